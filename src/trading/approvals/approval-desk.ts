// Four-eyes approval of a batch: submit a preview to the Approvals sheet, list and check batches, approve (send once, through the desk) or reject with a reason.
import { newIdempotencyKey } from "../../api/client";
import { PUBLIC_FINGERPRINT } from "../../api/environment";
import { batchHash } from "./batch-hash";
import { approvalKey, bindingOf, blockLines, newBatchId, type ApprovalBatch, type ApprovalStatus } from "./block";
import { DEFAULT_APPROVAL_HOURS, expiryRefusal, placeRefusal, type ApproverPlace } from "./validity";
import { parseApprovals, type ApprovalBlock } from "./block-read";
import { noSuchBatch, type ApprovalDecision } from "./decision";
import { differsFromShown, judgeBlock, type ApprovalCheck } from "./judgment";
import { doneSince, recordRefusal, type JournalledDecision } from "./record";
import type { Preview, SendResult } from "../types";
import type { TradingDesk } from "../desk/contract";
import type { ApprovalJournal, ApprovalsWorkbook } from "./port";

export type { ApprovalBatch, ApprovalStatus } from "./block";
export type { ApprovalDecision } from "./decision";
export type { ApprovalCheck } from "./judgment";
export type { BatchChange } from "./batch-hash";
export type { ApproverPlace } from "./validity";

/** A public key fingerprint as publicKeyFingerprint() makes it: anything else (the key itself) is never written. */
const FINGERPRINT = PUBLIC_FINGERPRINT;

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

/** A journal kept in memory only (tests; a pane without per-user storage): it holds this session's decisions. */
export function memoryJournal(): ApprovalJournal {
  const decisions = new Map<string, JournalledDecision>();
  const approvers = new Set<string>();
  return {
    loadDecision: async (batchId) => decisions.get(batchId) ?? null,
    putDecision: async (d) => {
      const stored = decisions.get(d.batchId);
      if (stored?.status === "rejected" || stored?.status === "executed") return;
      decisions.set(d.batchId, d);
      if (d.status !== "rejected") approvers.add(d.by);
    },
    hasApproved: async (fingerprint) => approvers.has(fingerprint),
  };
}

export class Approvals {
  private readonly sheet: ApprovalsWorkbook;
  private readonly now: () => Date;
  private readonly journal: ApprovalJournal;
  private readonly validHours: () => number | Promise<number>;

  /** `validHours`: "Approval valid for (hours)", read at each check (the user's setting; DEFAULT_APPROVAL_HOURS when absent). */
  constructor(options: {
    sheet: ApprovalsWorkbook;
    now?: () => Date;
    journal?: ApprovalJournal;
    validHours?: () => number | Promise<number>;
  }) {
    this.sheet = options.sheet;
    this.now = options.now ?? (() => new Date());
    this.journal = options.journal ?? memoryJournal();
    this.validHours = options.validHours ?? (() => DEFAULT_APPROVAL_HOURS);
  }

  /** Writes the preview's lines as a pending batch (its block on the Approvals sheet); refuses a preview with blockers. */
  async submit(preview: Preview, preparedBy: string): Promise<ApprovalBatch> {
    checkFingerprint(preparedBy, "preparedBy");
    refuseUnsendable(preview);
    const now = this.now();
    const id = newBatchId(now, newIdempotencyKey);
    const rows = preview.lines.map((l) => l.row);
    // Bound to where it was prepared: the preparer's environment and account address are in the hash (validity.ts).
    const binding = { environment: preview.environment, account: preview.account?.account_address ?? null, preparedAt: now.toISOString() };
    const lines = blockLines({
      id,
      status: "pending",
      hash: batchHash(rows, bindingOf(binding)),
      preparedBy,
      preparedAt: binding.preparedAt,
      environment: binding.environment,
      account: binding.account,
      rows,
      notionalsBefore: preview.lines.map((l) => l.notionalBefore ?? null),
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

  /**
   * Re-reads the batch and judges whether this key may approve it now: the block as prepared (judgeBlock), then against
   * the record a workbook editor cannot type back (this computer's journal of decisions, the Hedge Log's rows of the
   * batch's keys: recordRefusal), then its validity: not expired, and (given the approver's `place`) approved in the
   * environment and account it was prepared in (validity.ts).
   */
  async check(id: string, approverFingerprint: string, place?: ApproverPlace): Promise<ApprovalCheck> {
    checkFingerprint(approverFingerprint, "approverFingerprint");
    const block = await this.block(id);
    const check = judgeBlock(block, approverFingerprint);
    const refusals = [
      check.refusal,
      await this.recorded(block, approverFingerprint),
      expiryRefusal(block.batch, this.now().getTime(), await this.validHours()),
      place ? placeRefusal(block.batch, place) : null,
    ].filter((r): r is string => r !== null);
    return { ...check, refusal: refusals.length > 0 ? refusals.join(" ") : null };
  }

  /** What this computer's journal and the Hedge Log say against the block (recordRefusal); null when they agree. */
  private async recorded(block: ApprovalBlock, approverFingerprint: string): Promise<string | null> {
    const { batch } = block;
    const id = batch.id;
    const positions = Math.max(block.preparedRows ?? 0, block.lines.length);
    const keys = Array.from({ length: positions }, (_, i) => approvalKey(id, i + 1));
    const [journalled, logRows, preparerApprovedHere] = await Promise.all([
      this.journal.loadDecision(id),
      this.sheet.readLog({ keys }),
      this.journal.hasApproved(batch.preparedBy),
    ]);
    return recordRefusal(batch, { journalled, logRows, preparerApprovedHere }, approverFingerprint);
  }

  /**
   * Re-checks; previews the rows as read and asks `confirm` (the pane's LIVE confirmation); marks the batch approved
   * (only if still pending: a second approver is refused) before anything is sent; sends every row with the batch's
   * idempotency keys; marks it executed once the Hedge Log holds a row for each key. An approval interrupted between
   * "approved" and "executed" is finished by the same approver approving again: rows already sent are skipped (their
   * keys are in the log) or replayed by the service, never traded twice.
   *
   * `shown`: the check the approver was shown (the pane's Check). Approve sends only those rows: the block is read again
   * before the LIVE question and after it, and when it differs from what was shown (another hash, a row changed, added,
   * removed or moved) nothing is written nor sent, and the refusal says what changed. Without it, the check made here is
   * what is shown (confirm's preview).
   */
  async approve(
    id: string,
    approverFingerprint: string,
    desk: TradingDesk,
    confirm?: (preview: Preview) => Promise<boolean>,
    shown?: ApprovalCheck,
  ): Promise<SendResult> {
    const check = await this.pinned(id, approverFingerprint, shown);
    const { batch } = check;
    const preview = await desk.preview("column", batch.rows);
    // The approving key's environment and account, as its desk reads them: another's cannot approve the batch.
    const elsewhere = placeRefusal(batch, { environment: preview.environment, account: preview.account?.account_address ?? null });
    if (elsewhere !== null) throw new ApprovalRefusedError(elsewhere, check);
    const finishing = batch.status === "approved";
    const position = new Map(batch.rows.map((r, i) => [r.rowNumber, i + 1]));
    const idempotencyKeys = preview.lines.map((l) => approvalKey(id, position.get(l.row.rowNumber)!));
    // Each row's notional before as prepared (a batch prepared before they were kept has none: its keys alone decide).
    const before = preview.lines.map((l) => batch.notionalsBefore?.[position.get(l.row.rowNumber)! - 1] ?? null);
    const approval = {
      batchHash: batch.hash,
      preparedBy: batch.preparedBy,
      approvedBy: approverFingerprint,
      idempotencyKeys,
      preparedAt: doneSince(batch),
      ...(before.some((b) => b !== null) ? { notionalsBefore: before } : {}),
    };
    let blocked = unsendable(preview);
    // A row another approval of the batch already did blocks its preview now ("no open position", "already open"): the
    // service is asked, and a blocker of a row it shows done does not hold the batch back (the send records that row).
    if (!finishing && blocked.length > 0) blocked = unsendable(preview, await desk.doneBeforeApproval(preview, approval));
    if (!finishing && blocked.length > 0) {
      throw new ApprovalRefusedError(`Batch ${id} was not approved: ${listed(blocked)}. Nothing was sent; it stays pending.`, check);
    }
    if (confirm) {
      if (!(await confirm(preview))) return { rows: [], skipped: [] };
      await this.pinned(id, approverFingerprint, check); // the sheet may have been rewritten while the question was open
    }
    if (!finishing) await this.decide(id, ["pending"], { status: "approved", approvedBy: approverFingerprint, reason: null }, batch.hash);
    const result = await desk.send(preview, { approval });
    const batchKeys = batch.rows.map((_, i) => approvalKey(id, i + 1));
    await this.settle(id, approverFingerprint, batchKeys, result, batch.hash);
    return result;
  }

  /** The batch checked now, refused (nothing written nor sent) when the check refuses or it is not what `shown` showed. */
  private async pinned(id: string, approver: string, shown?: ApprovalCheck): Promise<ApprovalCheck> {
    const check = await this.check(id, approver);
    const changed = shown ? differsFromShown(shown, check) : null;
    if (changed !== null) throw new ApprovalRefusedError(changed, check);
    if (check.refusal !== null) throw new ApprovalRefusedError(check.refusal, check);
    return check;
  }

  /**
   * After a send: executed once the Hedge Log holds a row for every key of the batch; rejected when the service refused
   * every row because the approving key cannot trade (nothing traded: prepare it again for an approver with a trading key);
   * else still approved (rows not sent yet: the same approver approves again to finish).
   */
  private async settle(id: string, approver: string, keys: readonly string[], result: SendResult, hash: string): Promise<void> {
    const scope =
      result.rows.length === keys.length && result.rows.every((r) => r.status === "rejected" && r.errorCode === "insufficient_scope");
    if (scope) {
      const reason =
        "The approving key cannot trade (403 insufficient_scope): nothing was traded. Prepare the batch again for an approver with a trading key.";
      await this.decide(id, ["approved"], { status: "rejected", approvedBy: approver, reason }, hash);
      return;
    }
    const held = new Set((await this.sheet.readLog({ keys })).map((r) => r.idempotencyKey));
    if (keys.every((k) => held.has(k)))
      await this.decide(id, ["approved"], { status: "executed", approvedBy: approver, reason: null }, hash);
  }

  /** Marks a pending batch rejected, with the reason (required: trimmed, non-empty). The preparer may reject their own batch (withdraw it). */
  async reject(id: string, approverFingerprint: string, reason: string): Promise<ApprovalBatch> {
    checkFingerprint(approverFingerprint, "approverFingerprint");
    const why = reason.trim();
    if (why === "")
      throw new ApprovalRefusedError(`Reason is empty: say why batch ${id} is rejected, so the preparer knows what to change.`);
    const block = await this.block(id);
    if (block.batch.status !== "pending") throw new ApprovalRefusedError(judgeBlock(block, approverFingerprint).refusal!);
    // A batch the record shows decided (rejected, executed, its rows in the log) is not decided again from a typed-back status.
    const recorded = await this.recorded(block, approverFingerprint);
    if (recorded !== null) throw new ApprovalRefusedError(recorded);
    await this.decide(id, ["pending"], { status: "rejected", approvedBy: approverFingerprint, reason: why }, block.batch.hash);
    return (await this.block(id)).batch;
  }

  /** Writes the decision over the status expected (else throws, writing nothing), then journals it on this computer. */
  private async decide(
    id: string,
    from: readonly ApprovalStatus[],
    decision: Omit<ApprovalDecision, "decidedAt">,
    hash: string,
  ): Promise<void> {
    const decidedAt = this.now().toISOString();
    await this.sheet.setApprovalStatus(id, from, { ...decision, decidedAt });
    const status = decision.status as JournalledDecision["status"];
    await this.journal.putDecision({ batchId: id, hash, status, by: decision.approvedBy, at: decidedAt });
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

/** Why a preview cannot go whole (no rows, cancelled, a batch or row blocker); empty when it can. `done`: lines the service shows done already, by place (their blockers do not count). */
function unsendable(preview: Preview, done: ReadonlyMap<number, string> = new Map()): string[] {
  const reasons: string[] = [];
  if (preview.lines.length === 0) reasons.push("the preview has no rows");
  if (preview.cancelled) reasons.push("the preview was cancelled before every row was priced");
  reasons.push(...preview.blockers);
  for (const [i, line] of preview.lines.entries()) {
    if (line.blockers.length > 0 && !done.has(i)) reasons.push(`row ${line.row.rowNumber}: ${line.blockers.join(" ")}`);
  }
  return reasons;
}

/** Reasons joined into one clause, without the last one's full stop (the sentence around it ends it). */
function listed(reasons: readonly string[]): string {
  return reasons.join("; ").replace(/\.$/, "");
}

/** A batch goes for approval only if every row could be sent: no batch blocker, no row blocker, priced in full. */
function refuseUnsendable(preview: Preview): void {
  const reasons = unsendable(preview);
  if (reasons.length > 0) {
    throw new ApprovalRefusedError(
      `Not submitted for approval: ${listed(reasons)}. Fix the rows and preview again; an approver can only send a batch that can go whole.`,
    );
  }
}
