// Four-eyes approval of a batch: submit a preview to the Approvals sheet, list and check batches, approve (send once, through the desk) or reject with a reason.
import type { Preview, SendResult, TradingDesk } from "./types";
import type { Workbook } from "./workbook";
import type { ApprovalBatch, ApprovalCheck } from "./approvals";

export type { ApprovalBatch, ApprovalCheck, ApprovalDecision, ApprovalStatus } from "./approvals";
export type { BatchChange } from "./batch-hash";

const notYet = (): never => {
  throw new Error("Approvals: not yet built.");
};

export class Approvals {
  private readonly workbook: Workbook;
  private readonly now: () => Date;

  constructor(options: { workbook: Workbook; now?: () => Date }) {
    this.workbook = options.workbook;
    this.now = options.now ?? (() => new Date());
  }

  /** Writes the preview's lines as a pending batch (its block on the Approvals sheet); refuses a preview with blockers. */
  async submit(preview: Preview, preparedBy: string): Promise<ApprovalBatch> {
    void preview;
    void preparedBy;
    return notYet();
  }

  /** Re-reads the sheet: every batch, newest first. */
  async list(): Promise<ApprovalBatch[]> {
    return notYet();
  }

  /** Re-reads the batch and judges whether this key may approve it now. */
  async check(id: string, approverFingerprint: string): Promise<ApprovalCheck> {
    void id;
    void approverFingerprint;
    return notYet();
  }

  /** Re-checks, marks the batch approved (before anything is sent), sends it through desk.preview("column", rows) + desk.send(preview, { approval }), marks it executed. */
  async approve(
    id: string,
    approverFingerprint: string,
    desk: TradingDesk,
    confirm?: (preview: Preview) => Promise<boolean>,
  ): Promise<SendResult> {
    void [id, approverFingerprint, desk, confirm];
    return notYet();
  }

  /** Marks a pending batch rejected, with the reason (required: trimmed, non-empty). */
  async reject(id: string, approverFingerprint: string, reason: string): Promise<ApprovalBatch> {
    void [id, approverFingerprint, reason];
    return notYet();
  }
}
