// Whether a key may approve a block now (pure): what changed since preparation, row by row, in sentences; the status and the preparer's key; and whether the block still is what the approver's check showed.
import { batchChanges, batchHash, BATCH_FIELDS, type BatchChange, type BatchField } from "./batch-hash";
import { approvalKey, bindingOf, rowDigest, type ApprovalBatch } from "./block";
import type { ApprovalBlock, RowLine } from "./block-read";
import { FIELD_LABELS } from "../rows";

export interface ApprovalCheck {
  batch: ApprovalBatch;
  changes: BatchChange[];
  recomputedHash: string;
  /** null: may be approved by this key; else why not (edited since preparation, same key as the preparer, not pending…). */
  refusal: string | null;
}

/** The fields whose digest groups differ (all of them when the stored digest is not one the add-in writes). */
function fieldsChanged(stored: string, now: string): BatchField[] {
  const a = stored.split("-");
  const b = now.split("-");
  if (a.length !== b.length) return [...BATCH_FIELDS];
  return BATCH_FIELDS.filter((_, i) => a[i] !== b[i]);
}

/**
 * What differs between the batch as prepared and its block now, by 1-based position: a line without one of the batch's
 * keys (or a second line with the same key) is added; a key no line carries is a row removed; a row whose digest no longer
 * matches its cells changed (the fields named), or took another row's content (moved); rows out of their prepared order moved.
 */
export function blockChanges(block: ApprovalBlock): BatchChange[] {
  const { batch, lines } = block;
  const prepared = Math.max(block.preparedRows ?? 0, 0);
  const positionOf = new Map<string, number>();
  for (let p = 1; p <= Math.max(prepared, lines.length); p++) positionOf.set(approvalKey(batch.id, p), p);
  const rowAt = new Map(batch.rows.map((r) => [r.rowNumber, r]));
  const changes: BatchChange[] = [];
  const kept: Array<{ position: number; from: number; line: RowLine; now: string | null }> = [];
  const seen = new Set<number>();
  lines.forEach((line, i) => {
    const from = positionOf.get(line.key);
    if (from === undefined || seen.has(from) || (block.preparedRows !== null && from > prepared)) {
      changes.push({ kind: "added", position: i + 1 });
      return;
    }
    seen.add(from);
    const row = rowAt.get(line.rowNumber);
    kept.push({ position: i + 1, from, line, now: row ? rowDigest(row) : null });
  });
  const total = block.preparedRows ?? Math.max(0, ...seen);
  for (let p = 1; p <= total; p++) if (!seen.has(p)) changes.push({ kind: "removed", position: p });
  const order = kept.map((k) => k.from).sort((a, b) => a - b);
  kept.forEach((k, j) => {
    if (k.now === k.line.digest) {
      if (order[j] !== k.from) changes.push({ kind: "moved", position: k.position, from: k.from });
      return;
    }
    // k itself never matches: its digest differs from its cells'.
    const other = kept.find((o) => o.line.digest === k.now);
    if (other) changes.push({ kind: "moved", position: k.position, from: other.from });
    else changes.push({ kind: "changed", position: k.position, fields: k.now === null ? [] : fieldsChanged(k.line.digest, k.now) });
  });
  return changes.sort((a, b) => a.position - b.position);
}

/**
 * A change in a sentence: "row 2 (sheet row 14): Notional changed". A changed, added or moved row is at a line of the block
 * (blockChanges names them by their line); a row changed in place names one field at least, or it was not read (then its
 * row problem says why).
 */
export function describeChange(change: BatchChange, block: ApprovalBlock): string {
  const sheetRow = (position: number) => block.lines[position - 1].rowNumber;
  const at = (position: number) => `row ${position} (sheet row ${sheetRow(position)})`;
  switch (change.kind) {
    case "changed": {
      const problem = block.rowProblems.find((p) => p.rowNumber === sheetRow(change.position));
      // The row's own sentence, without its "Row N: " (the place is said first) and its full stop (the changes are joined by "; ").
      if (problem) return `${at(change.position)}: ${problem.message.replace(/^Row \d+: /, "").replace(/\.$/, "")}`;
      return `${at(change.position)}: ${change.fields.map((f) => FIELD_LABELS[f]).join(", ")} changed`;
    }
    case "added":
      return `${at(change.position)}: added (not one of the prepared rows)`;
    case "removed":
      return `row ${change.position} as prepared: removed`;
    case "moved":
      return `${at(change.position)}: moved (prepared as row ${change.from})`;
  }
}

/** Why a key may not approve this block now, in sentences; null when it may. Approve again is allowed to the approver of an approved batch (finishing it). */
export function judgeBlock(block: ApprovalBlock, approver: string): ApprovalCheck {
  const { batch } = block;
  const changes = blockChanges(block);
  const recomputedHash = batchHash(batch.rows, bindingOf(batch));
  const reasons: string[] = [];
  if (block.problems.length > 0) {
    reasons.push(`Batch ${batch.id} cannot be approved: ${block.problems.join("; ")}. Ask the preparer to submit the batch again.`);
  }
  const finishing = batch.status === "approved" && batch.approvedBy === approver;
  if (batch.status !== "pending" && !finishing) reasons.push(notPending(batch));
  if (changes.length > 0 || recomputedHash !== batch.hash) {
    const which = changes.map((c) => describeChange(c, block));
    const what = which.length > 0 ? which.join("; ") : "its rows no longer match the batch hash written at preparation";
    reasons.push(
      `Batch ${batch.id} was edited since preparation: ${what}. Approval needs the rows exactly as prepared: undo the edit, or ask the preparer to submit the batch again.`,
    );
  }
  if (batch.preparedBy === approver) {
    reasons.push(
      `The key that prepared a batch cannot approve it: approval needs a second person's trading key (batch ${batch.id} was prepared by ${approver}, the key in use).`,
    );
  }
  return { batch, changes, recomputedHash, refusal: reasons.length > 0 ? reasons.join(" ") : null };
}

function notPending(batch: ApprovalBatch): string {
  const by = batch.approvedBy ? ` by ${batch.approvedBy}` : "";
  const at = batch.decidedAt ? ` at ${batch.decidedAt}` : "";
  switch (batch.status) {
    case "executed":
      return `Batch ${batch.id} was already approved${by} and executed${at}: it is never sent twice.`;
    case "approved":
      return `Batch ${batch.id} was already approved${by}${at}; only that approver can finish sending it.`;
    default: // rejected (notPending is never asked about a pending batch)
      return `Batch ${batch.id} was rejected${by}${at}${batch.reason ? ` ("${batch.reason}")` : ""}: prepare and submit it again to trade it.`;
  }
}

/**
 * Why the block read now is not what the approver's check showed (the rows it pinned and their hash), in a sentence; null
 * when it is the same batch, the same rows and the same hash. Approve sends only what was shown. (No change between the
 * rows means the same canonical rows, so the same recomputed hash: comparing those too would add nothing.)
 */
export function differsFromShown(shown: ApprovalCheck, now: ApprovalCheck): string | null {
  const what = batchChanges(shown.batch.rows, now.batch.rows).map(describeShownChange);
  if (shown.batch.hash !== now.batch.hash)
    what.push(`Batch hash ${shown.batch.hash.slice(0, 12)}… when checked, ${now.batch.hash.slice(0, 12)}… now`);
  if (shown.batch.id !== now.batch.id) what.push(`the block read is batch ${now.batch.id}`);
  if (what.length === 0) return null;
  return `Batch ${shown.batch.id} changed on the sheet since you checked it: ${what.join("; ")}. Nothing was sent: check it again and approve only what you see.`;
}

/** A change against the rows the check showed: "row 1: Side changed" (a row changed in place differs in one field at least: its canonical values are the fields). */
function describeShownChange(change: BatchChange): string {
  switch (change.kind) {
    case "changed":
      return `row ${change.position}: ${change.fields.map((f) => FIELD_LABELS[f]).join(", ")} changed`;
    case "added":
      return `row ${change.position}: added`;
    case "removed":
      return `row ${change.position} as checked: removed`;
    case "moved":
      return `row ${change.position}: moved (was row ${change.from})`;
  }
}
