// What outside the block says about a batch (pure): the decision journalled on this computer and the Hedge Log's rows of its keys, which outrank a Status or Prepared by cell typed over; and from when a hedge counts as the batch's row done.
import { batchDayStart, type ApprovalBatch, type ApprovalStatus } from "./block";

/** A decision as this computer's journal keeps it (src/excel/intent-store.ts): never in the workbook. */
export interface JournalledDecision {
  batchId: string;
  /** The batch hash the decision was made on. */
  hash: string;
  status: Exclude<ApprovalStatus, "pending">;
  /** The deciding key's public fingerprint. */
  by: string;
  /** When (ISO 8601 UTC). */
  at: string;
}

/** What outside the block says about a batch: this computer's journal, and the Hedge Log's rows of the batch's keys. */
export interface ApprovalRecord {
  /** This computer's decision on the batch (null: none made here). */
  journalled: JournalledDecision | null;
  /** Hedge Log rows carrying one of the batch's idempotency keys: who approved them. */
  logRows: ReadonlyArray<{ approvedBy?: string | null; loggedAt: string; batchHash?: string | null }>;
  /** Whether this computer has approved a batch with the key named in Prepared by. */
  preparerApprovedHere: boolean;
}

/**
 * Why the record refuses the block's status, in sentences; null when it agrees. A batch rejected or executed never becomes
 * approvable again: a decision journalled here or rows of its keys in the Hedge Log outrank the Status cell. "approved"
 * is finished only by its approver, and only where the record shows the approval (this journal, or the log's rows).
 */
export function recordRefusal(batch: ApprovalBatch, record: ApprovalRecord, approver: string): string | null {
  const reasons: string[] = [];
  const j = record.journalled;
  const final = j !== null && (j.status === "rejected" || j.status === "executed");
  // An executed mark lost with an unsaved workbook reads "approved" again: its approver may finish it (its keys are held: nothing is sent).
  const finishing = j?.status === "executed" && batch.status === "approved" && batch.approvedBy === approver && j.by === approver;
  if (final && batch.status !== j.status && !finishing) {
    reasons.push(
      `Batch ${batch.id} was ${j.status} by ${j.by} at ${j.at} (this computer's record), but its Status cell now reads "${batch.status}": a status typed back is refused. It is never approved again: prepare and submit it anew.`,
    );
  }
  const sent = record.logRows[0];
  if (sent && batch.status === "pending") {
    reasons.push(
      `Batch ${batch.id}'s rows are in the Hedge Log (approved by ${sent.approvedBy ?? "an approver"}, logged ${sent.loggedAt}), but its Status cell reads "pending": a status typed back is refused. It was approved and sent; it is never approved again.`,
    );
  }
  if (batch.status === "approved" && !final) {
    const approvedHere = j?.status === "approved" && j.by === approver;
    const loggedBy = record.logRows.some((r) => r.approvedBy === approver);
    if (batch.approvedBy === approver && !approvedHere && !loggedBy) {
      reasons.push(
        `Batch ${batch.id} reads "approved", but neither this computer's record nor the Hedge Log shows that approval: a status typed in is refused. Ask the preparer to submit the batch again.`,
      );
    }
  }
  // Held to the hash the approval was made on (this computer's journal, else the Hedge Log's rows of the batch), whatever
  // the Status cell reads: finishing an approved batch, and a batch approved here read "pending" again (its Status typed
  // back) with its rows rewritten and its hash recomputed, which would send other rows under the same approval's keys.
  const approvedOn = j?.status === "approved" ? j.hash : (record.logRows.find((r) => r.batchHash)?.batchHash ?? null);
  if (approvedOn !== null && approvedOn !== batch.hash) {
    reasons.push(
      `Batch ${batch.id} was approved on batch hash ${approvedOn.slice(0, 12)}…, and its block now reads ${batch.hash.slice(0, 12)}…: the block was rewritten after the approval, so it is not finished. Nothing was sent: check the rows already sent in the Hedge Log, and prepare what is left again.`,
    );
  }
  if (record.preparerApprovedHere && batch.preparedBy !== approver) {
    reasons.push(
      `Prepared by names ${batch.preparedBy}, a key this computer has approved batches with: the preparer's name may have been typed over. Ask the preparer to submit the batch again under their own key.`,
    );
  }
  return reasons.length > 0 ? reasons.join(" ") : null;
}

/**
 * From when a hedge carrying a row's client reference counts as this batch's row done (the service asked before sending):
 * the start of the UTC day in the batch id, or Prepared at when it reads as an earlier time. Both are cells: a Prepared at
 * typed later than the truth cannot hide a hedge opened that day; a later day cannot be typed into the id without changing
 * every key the batch is sent with.
 */
export function doneSince(batch: Pick<ApprovalBatch, "id" | "preparedAt">): string | undefined {
  const dayStart = batchDayStart(batch.id);
  const prepared = Date.parse(batch.preparedAt);
  const since = Math.min(...[dayStart, prepared].filter((t) => Number.isFinite(t)));
  return Number.isFinite(since) ? new Date(since).toISOString() : undefined;
}
