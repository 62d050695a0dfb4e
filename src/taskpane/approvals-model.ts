// View models of the Approvals panel: the list of batches, a batch's check as shown in place, the rejection's reason, the LIVE question, the control row of a change of "LIVE trades need approval".
import type { ApprovalBatch, ApprovalCheck, ApprovalStatus, BatchChange } from "../trading/approvals/approval-desk";
import { FIELD_LABELS } from "../trading/rows";
import type { ControlInput } from "../trading/desk/contract";
import { CONTROLS } from "../trading/log/control-row";
import type { Preview, TradeRequest, TradeRow } from "../trading/types";
import { formatUtc, plural } from "./format";
import { ACTION_LABELS, actionMix, confirmation, rowTitle, sendPlan } from "./trade-model";
import { READ_ONLY_NOTE, type KeyAccess } from "./key-access";

const APPROVAL_STATUS_LABELS: Record<ApprovalStatus, string> = {
  pending: "Pending approval",
  approved: "Approved, not all sent: approve again to finish",
  rejected: "Rejected",
  executed: "Executed",
};

/** How many decided batches the list shows under the pending ones (newest first). */
const RECENT_DECIDED = 5;

/** The batch hash as the list shows it: its first 12 hex characters (the sheet and the log hold it whole). */
export function shortHash(hash: string): string {
  return hash.length > 12 ? `${hash.slice(0, 12)}…` : hash;
}

export interface BatchItem {
  id: string;
  status: ApprovalStatus;
  statusLabel: string;
  /** "Open 2 rows" / "2 rows (1 Close, 1 Open)". */
  title: string;
  hash: string;
  hashShort: string;
  /** "Prepared by fp-… at 2026-11-25 17:05:09 UTC". */
  prepared: string;
  /** "Approved by fp-… at …" / "Rejected by fp-… at …: reason"; null while pending. */
  decided: string | null;
  rows: string[];
}

function batchTitleOf(rows: readonly TradeRow[]): string {
  const actions = rows.map((r) => r.action);
  if (actions.length > 0 && actions.every((a) => a === actions[0])) return `${ACTION_LABELS[actions[0]]} ${plural(rows.length, "row")}`;
  return `${plural(rows.length, "row")}${rows.length ? ` (${actionMix(actions)})` : ""}`;
}

export function batchItem(batch: ApprovalBatch): BatchItem {
  const by = batch.approvedBy ?? "—";
  const when = formatUtc(batch.decidedAt);
  let decided: string | null = null;
  if (batch.status === "rejected") decided = `Rejected by ${by} at ${when}${batch.reason ? `: ${batch.reason}` : ""}`;
  else if (batch.status !== "pending") decided = `Approved by ${by} at ${when}`;
  return {
    id: batch.id,
    status: batch.status,
    statusLabel: APPROVAL_STATUS_LABELS[batch.status],
    title: batchTitleOf(batch.rows),
    hash: batch.hash,
    hashShort: shortHash(batch.hash),
    prepared: `Prepared by ${batch.preparedBy} at ${formatUtc(batch.preparedAt)}`,
    decided,
    rows: batch.rows.map(batchRowText),
  };
}

/** A batch's row as the approver reads it: action, side, market, amount, tenor and client reference ("Open buy USDTNGN 20,000.00 USD, 7d, client reference DEAL-1"). */
function batchRowText(r: TradeRequest): string {
  return `${rowTitle(r)}${r.clientReference ? `, client reference ${r.clientReference}` : ", no client reference"}`;
}

/** Batches still to act on: pending, and approved but not executed (an approval cut short, finished by approving again). */
const OPEN_STATUSES: readonly ApprovalStatus[] = ["pending", "approved"];

/** The list: every batch still to act on (newest first), then the newest decided ones. */
export function approvalsList(batches: readonly ApprovalBatch[], recent = RECENT_DECIDED): { pending: BatchItem[]; decided: BatchItem[] } {
  const pending = batches.filter((b) => OPEN_STATUSES.includes(b.status)).map(batchItem);
  const decided = batches
    .filter((b) => !OPEN_STATUSES.includes(b.status))
    .slice(0, recent)
    .map(batchItem);
  return { pending, decided };
}

/**
 * A changed row's mark beside it in the batch's row list ("Notional changed", "added", "moved: prepared as row 2"); the
 * check's refusal says the same in sentences (the desk's describeChange), removed rows included.
 */
function rowMark(change: Exclude<BatchChange, { kind: "removed" }>): string {
  switch (change.kind) {
    case "changed":
      return change.fields.length ? `${change.fields.map((f) => FIELD_LABELS[f]).join(", ")} changed` : "changed";
    case "added":
      return "added";
    case "moved":
      return `moved: prepared as row ${change.from}`;
  }
}

interface CheckView {
  /** Approve is enabled only when this is null. */
  refusal: string | null;
  /** The rows (1-based positions in the batch as read now) changed in place, moved or added since preparation, with their mark. */
  marks: Map<number, string>;
  /** Whether the rows as read now hash to the batch hash written at preparation. */
  hashMatches: boolean;
}

/**
 * What the pane shows for a batch it re-read: the check's refusal first (edited since preparation, the same key as the
 * preparer, not pending), else the pane's own (a read-only key cannot send it; no desk yet); the changed rows marked.
 */
export function checkView(check: ApprovalCheck, access: KeyAccess, canSend: boolean): CheckView {
  let refusal = check.refusal;
  if (!refusal && access === "read_only") refusal = `This key is ${READ_ONLY_NOTE}: an approver connects with a trading key to approve.`;
  if (!refusal && !canSend) refusal = "The pane is still getting ready to trade: wait a moment, then select the batch again.";
  const marks = new Map<number, string>();
  for (const c of check.changes) if (c.kind !== "removed") marks.set(c.position, rowMark(c));
  return { refusal, marks, hashMatches: check.recomputedHash === check.batch.hash };
}

/** A rejection's reason, trimmed; an error naming the field when blank (the preparer reads it on the Approvals sheet). */
export function rejectionReason(text: string): { ok: true; reason: string } | { ok: false; error: string } {
  const reason = text.trim();
  if (reason) return { ok: true, reason };
  return { ok: false, error: "Reason: write why the batch is rejected (the preparer reads it on the Approvals sheet)." };
}

/**
 * The LIVE question before an approved batch is sent: the same wording as a direct LIVE send, then every row that will go
 * (action, side, market, amount, tenor, client reference) and the batch hash the approver's Check showed (`checkedHash`:
 * Approve is refused when the block no longer hashes to it), so that what is confirmed is what was checked and is sent.
 */
export function approvalLiveQuestion(preview: Preview, checkedHash: string): string {
  const plan = sendPlan(preview, new Set());
  const c = confirmation(
    preview.environment,
    preview.action,
    plan.count,
    plan.notional,
    0,
    plan.lines.map((l) => l.row.action),
  );
  const rows = preview.lines.map((l, i) => `${i + 1}. ${batchRowText(l.row)}`);
  return [`Approved batch ${shortHash(checkedHash)}. ${c.dialog ?? ""}`.trim(), ...rows, `Batch hash as checked: ${checkedHash}`].join(
    "\n",
  );
}

/** What Submit for approval says once the batch is on the sheet. */
export function submittedText(batch: ApprovalBatch): string {
  return `Submitted for approval: ${plural(batch.rows.length, "row")} as batch ${shortHash(batch.hash)} on the Approvals sheet, prepared by ${batch.preparedBy}. An approver with another, trading key approves it in Approvals. Nothing was traded.`;
}

/** The control row of a change of "LIVE trades need approval" by the key of this fingerprint. */
export function liveApprovalChange(on: boolean, fingerprint: string): ControlInput {
  return {
    control: CONTROLS.liveApproval,
    from: on ? "off" : "on",
    to: on ? "on" : "off",
    by: fingerprint,
    hash: null,
    preparedBy: null,
    message: on
      ? "“LIVE trades need approval” ticked: LIVE trades go only as approved batches."
      : "“LIVE trades need approval” unticked: LIVE trades may be sent directly.",
  };
}
