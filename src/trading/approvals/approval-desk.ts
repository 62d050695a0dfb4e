// Four-eyes approval of a batch: submit a preview to the Approvals sheet, list and check batches, approve (send once, through the desk) or reject with a reason.
import { newIdempotencyKey } from "../../api/client";
import { batchHash } from "./batch-hash";
import {
  approvalKey,
  blockLines,
  judgeBlock,
  newBatchId,
  noSuchBatch,
  parseApprovals,
  type ApprovalBatch,
  type ApprovalBlock,
  type ApprovalCheck,
  type ApprovalDecision,
  type ApprovalStatus,
} from "./approvals";
import type { Preview, SendResult } from "../types";
import type { TradingDesk } from "../desk/contract";
import type { ApprovalsWorkbook } from "./port";

export type { ApprovalBatch, ApprovalCheck, ApprovalDecision, ApprovalStatus } from "./approvals";
export type { BatchChange } from "./batch-hash";

/** A public key fingerprint as publicKeyFingerprint() makes it: anything else (the key itself) is never written. */
const FINGERPRINT = /^fp-[0-9a-f]{16}$/;

/** Approval refused (the check's refusal as its message); nothing was written nor sent. */
export class ApprovalRefusedError extends Error {
  constructor(
    message: string,
    readonly check: ApprovalCheck | null = null,
  ) {
    super(message);
    this.name = "ApprovalRefusedError";
  }
}

export class Approvals {
  private readonly sheet: ApprovalsWorkbook;
  private readonly now: () => Date;

  constructor(options: { sheet: ApprovalsWorkbook; now?: () => Date }) {
    this.sheet = options.sheet;
    this.now = options.now ?? (() => new Date());
  }

  /** Writes the preview's lines as a pending batch (its block on the Approvals sheet); refuses a preview with blockers. */
  async submit(preview: Preview, preparedBy: string): Promise<ApprovalBatch> {
    checkFingerprint(preparedBy, "preparedBy");
    refuseUnsendable(preview);
    const now = this.now();
    const id = newBatchId(now, newIdempotencyKey);
    const rows = preview.lines.map((l) => l.row);
    const lines = blockLines({
      id,
      status: "pending",
      hash: batchHash(rows),
      preparedBy,
      preparedAt: now.toISOString(),
      rows,
      approvedBy: null,
      decidedAt: null,
      reason: null,
    });
    await this.sheet.appendApproval(lines);
    return (await this.block(id)).batch;
  }

  /** Re-reads the sheet: every batch, newest first. */
  async list(): Promise<ApprovalBatch[]> {
    const blocks = parseApprovals(await this.sheet.readApprovals());
    return blocks
      .map((b, i) => ({ batch: b.batch, i }))
      .sort((a, b) => b.batch.preparedAt.localeCompare(a.batch.preparedAt) || b.i - a.i)
      .map((b) => b.batch);
  }

  /** Re-reads the batch and judges whether this key may approve it now. */
  async check(id: string, approverFingerprint: string): Promise<ApprovalCheck> {
    checkFingerprint(approverFingerprint, "approverFingerprint");
    return judgeBlock(await this.block(id), approverFingerprint);
  }

  /**
   * Re-checks; previews the rows as read and asks `confirm` (the pane's LIVE confirmation); marks the batch approved
   * (only if still pending: a second approver is refused) before anything is sent; sends every row with the batch's
   * idempotency keys; marks it executed once the Hedge Log holds a row for each key. An approval interrupted between
   * "approved" and "executed" is finished by the same approver approving again: rows already sent are skipped (their
   * keys are in the log) or replayed by the service, never traded twice.
   */
  async approve(
    id: string,
    approverFingerprint: string,
    desk: TradingDesk,
    confirm?: (preview: Preview) => Promise<boolean>,
  ): Promise<SendResult> {
    const check = await this.check(id, approverFingerprint);
    if (check.refusal !== null) throw new ApprovalRefusedError(check.refusal, check);
    const { batch } = check;
    const preview = await desk.preview("column", batch.rows);
    const finishing = batch.status === "approved";
    const blocked = unsendable(preview);
    if (!finishing && blocked.length > 0) {
      throw new ApprovalRefusedError(`Batch ${id} was not approved: ${blocked.join("; ")}. Nothing was sent; it stays pending.`, check);
    }
    if (confirm && !(await confirm(preview))) return { rows: [], skipped: [] };
    if (!finishing) await this.decide(id, ["pending"], { status: "approved", approvedBy: approverFingerprint, reason: null });
    const position = new Map(batch.rows.map((r, i) => [r.rowNumber, i + 1]));
    const idempotencyKeys = preview.lines.map((l) => approvalKey(id, position.get(l.row.rowNumber)!));
    const approval = { batchHash: batch.hash, preparedBy: batch.preparedBy, approvedBy: approverFingerprint, idempotencyKeys };
    const result = await desk.send(preview, { approval });
    const batchKeys = batch.rows.map((_, i) => approvalKey(id, i + 1));
    await this.settle(id, approverFingerprint, batchKeys, result);
    return result;
  }

  /**
   * After a send: executed once the Hedge Log holds a row for every key of the batch; rejected when the service refused
   * every row because the approving key cannot trade (nothing traded: prepare it again for an approver with a trading key);
   * else still approved (rows not sent yet: the same approver approves again to finish).
   */
  private async settle(id: string, approver: string, keys: readonly string[], result: SendResult): Promise<void> {
    const scope =
      result.rows.length === keys.length && result.rows.every((r) => r.status === "rejected" && r.errorCode === "insufficient_scope");
    if (scope) {
      const reason =
        "The approving key cannot trade (403 insufficient_scope): nothing was traded. Prepare the batch again for an approver with a trading key.";
      await this.decide(id, ["approved"], { status: "rejected", approvedBy: approver, reason });
      return;
    }
    const held = new Set((await this.sheet.readLog({ keys })).map((r) => r.idempotencyKey));
    if (keys.every((k) => held.has(k))) await this.decide(id, ["approved"], { status: "executed", approvedBy: approver, reason: null });
  }

  /** Marks a pending batch rejected, with the reason (required: trimmed, non-empty). The preparer may reject their own batch (withdraw it). */
  async reject(id: string, approverFingerprint: string, reason: string): Promise<ApprovalBatch> {
    checkFingerprint(approverFingerprint, "approverFingerprint");
    const why = reason.trim();
    if (why === "")
      throw new ApprovalRefusedError(`Reason is empty: say why batch ${id} is rejected, so the preparer knows what to change.`);
    const block = await this.block(id);
    if (block.batch.status !== "pending") throw new ApprovalRefusedError(judgeBlock(block, approverFingerprint).refusal!);
    await this.decide(id, ["pending"], { status: "rejected", approvedBy: approverFingerprint, reason: why });
    return (await this.block(id)).batch;
  }

  private async decide(id: string, from: readonly ApprovalStatus[], decision: Omit<ApprovalDecision, "decidedAt">): Promise<void> {
    await this.sheet.setApprovalStatus(id, from, { ...decision, decidedAt: this.now().toISOString() });
  }

  private async block(id: string): Promise<ApprovalBlock> {
    const block = parseApprovals(await this.sheet.readApprovals(id)).find((b) => b.batch.id === id);
    if (!block) throw new ApprovalRefusedError(noSuchBatch(id).message);
    return block;
  }
}

function checkFingerprint(value: string, field: string): void {
  if (!FINGERPRINT.test(value)) {
    throw new Error(
      `${field} must be the key's public fingerprint (publicKeyFingerprint(key), "fp-" and 16 hex digits), never the key itself.`,
    );
  }
}

/** Why a preview cannot go whole (no rows, cancelled, a batch or row blocker); empty when it can. */
function unsendable(preview: Preview): string[] {
  const reasons: string[] = [];
  if (preview.lines.length === 0) reasons.push("the preview has no rows");
  if (preview.cancelled) reasons.push("the preview was cancelled before every row was priced");
  reasons.push(...preview.blockers);
  for (const line of preview.lines) {
    if (line.blockers.length > 0) reasons.push(`row ${line.row.rowNumber}: ${line.blockers.join(" ")}`);
  }
  return reasons;
}

/** A batch goes for approval only if every row could be sent: no batch blocker, no row blocker, priced in full. */
function refuseUnsendable(preview: Preview): void {
  const reasons = unsendable(preview);
  if (reasons.length > 0) {
    throw new ApprovalRefusedError(
      `Not submitted for approval: ${reasons.join("; ")}. Fix the rows and preview again; an approver can only send a batch that can go whole.`,
    );
  }
}
