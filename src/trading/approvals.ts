// The Approvals sheet's model (pure): one block per batch (its header line and rows), the block read back from cells, and the judgment of whether a key may approve it.
import type { BatchChange } from "./batch-hash";
import type { TradeRow } from "./types";

/** The Approvals sheet's name. */
export const APPROVALS_SHEET_NAME = "Approvals";

export type ApprovalStatus = "pending" | "approved" | "rejected" | "executed";

/** A batch as its block on the Approvals sheet says now. */
export interface ApprovalBatch {
  id: string;
  status: ApprovalStatus;
  /** The batch hash written at preparation. */
  hash: string;
  /** Public key fingerprint of the preparer (publicKeyFingerprint), never the key. */
  preparedBy: string;
  preparedAt: string;
  /** As read from the sheet now. */
  rows: TradeRow[];
  approvedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}

export interface ApprovalCheck {
  batch: ApprovalBatch;
  changes: BatchChange[];
  recomputedHash: string;
  /** null: may be approved by this key; else why not (edited since preparation, same key as the preparer, not pending…). */
  refusal: string | null;
}

/** What a decision writes into a block's header line. */
export interface ApprovalDecision {
  status: ApprovalStatus;
  approvedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}
