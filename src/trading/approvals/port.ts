// The approvals workflow's ports: the Approvals sheet (read blocks, append one, write a decision) and this computer's journal of decisions. Implemented by src/excel (Office.js and in-memory).
import type { CellValue } from "../cells";
import type { SheetRow, Workbook } from "../workbook";
import type { BlockStatus } from "./block";
import type { ApprovalDecision } from "./decision";
import type { JournalledDecision } from "./record";

/** The "Approvals" sheet as the approvals workflow sees it. Implementations: office-workbook.ts (Excel.run) and memory-workbook.ts. */
export interface ApprovalsSheet {
  /**
   * Lines of the "Approvals" sheet (see block.ts for the block layout), blank lines left out, in sheet order; empty
   * when the sheet is missing. With a batch id, only that batch's block (the implementation finds it by reading the first
   * column, then reads those lines only).
   */
  readApprovals(batchId?: string): Promise<SheetRow[]>;
  /** Appends one batch's block (lines of plain values, written through the safe writer) below the sheet's last used line, creating the sheet when missing. */
  appendApproval(lines: CellValue[][]): Promise<void>;
  /**
   * Writes a batch's decision (status, approved/rejected by, decided at, reason) into its block's header line, only when
   * its status is still one of `from`; otherwise throws, writing nothing (another approver was first). Throws when no block holds the id.
   */
  setApprovalStatus(batchId: string, from: readonly BlockStatus[], decision: ApprovalDecision): Promise<void>;
}

/** What the approvals workflow uses of a workbook: the Approvals sheet, and the Hedge Log's query (an executed batch is one whose every key the log holds). */
export type ApprovalsWorkbook = ApprovalsSheet & Pick<Workbook, "readLog">;

/**
 * This computer's journal of approval decisions (beside the API key, never in the workbook: src/excel/intent-store.ts):
 * what a workbook editor cannot type back. Writes are durable when the promise resolves.
 */
export interface ApprovalJournal {
  /** The decision this computer made on a batch, null when none. */
  loadDecision(batchId: string): Promise<JournalledDecision | null>;
  /** Keeps a decision; a final one (rejected, executed) is never replaced by a later write. */
  putDecision(decision: JournalledDecision): Promise<void>;
  /** Whether this computer has approved a batch with the key of this public fingerprint. */
  hasApproved(fingerprint: string): Promise<boolean>;
}
