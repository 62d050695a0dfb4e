// A decision written into a block's header line (pure): its four cells, the status it may be written over, and the errors when the block is gone or was decided meanwhile.
import { COL, text, type BlockStatus } from "./block";
import type { CellValue } from "../cells";

/** What a decision writes into a block's header line. */
export interface ApprovalDecision {
  status: BlockStatus;
  /** The deciding key's public fingerprint: every decision names who made it. */
  approvedBy: string;
  decidedAt: string | null;
  reason: string | null;
}

/** The four cells a decision writes: Status, then (after hash, rows, preparer and time) Approved/rejected by, Decided at, Reason. */
export const DECISION_COLUMNS = [COL.status, COL.decidedBy, COL.decidedAt, COL.reason] as const;

/** The header cells a decision writes, by column (see DECISION_COLUMNS). */
export function decisionCells(decision: ApprovalDecision): CellValue[] {
  return [decision.status, decision.approvedBy, decision.decidedAt ?? "", decision.reason ?? ""];
}

/** Whether a decision may be written over the status a block's values line holds now. */
export function statusAllows(statusCell: CellValue | undefined, from: readonly BlockStatus[]): boolean {
  return (from as readonly string[]).includes(text(statusCell).toLowerCase());
}

/** The error of a decision on a batch no block holds (deleted, or its Batch id cell edited). */
export function noSuchBatch(batchId: string): Error {
  return new Error(`No batch ${batchId} on the Approvals sheet: it was deleted or its Batch id cell edited.`);
}

/** The error of a decision whose batch changed status since it was checked (another approver was first): nothing written. */
export function decidedMeanwhile(batchId: string, statusCell: CellValue | undefined, from: readonly BlockStatus[]): Error {
  return new Error(
    `Batch ${batchId} is ${text(statusCell) || "without a status"} now, not ${from.join(" or ")}: someone decided it first, so nothing was written.`,
  );
}
