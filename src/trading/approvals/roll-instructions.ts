// Standing roll instructions, four-eyes: submit one to the Approvals sheet, read them with the status the Hedge Log records, check and approve once by a second key (the batch's rules: not the preparer, its environment and account, within Approval valid for), reject, and revoke; approval and revocation logged as control rows with its hash.
import { newIdempotencyKey } from "../../api/client";
import { PUBLIC_FINGERPRINT, type Environment } from "../../api/environment";
import type { ControlInput } from "../desk/contract";
import { CONTROLS } from "../log/control-row";
import type { LogRecord } from "../log/hedge-log";
import { INTENT_STATUSES } from "../types";
import { recordedStatus } from "./covers-roll";
import { noSuchBatch } from "./decision";
import type { ApprovalsWorkbook } from "./port";
import {
  instructionHash,
  instructionLines,
  instructionTerms,
  newInstructionId,
  parseInstructions,
  type InstructionStatus,
  type RollInstruction,
} from "./roll-instruction";
import { DEFAULT_APPROVAL_HOURS, expiryRefusal, placeRefusal, type ApproverPlace } from "./validity";

export type { RollInstruction } from "./roll-instruction";

const NOUN = "Roll instruction";

/** A roll instruction's check for a key: null refusal when it may approve it now. */
export interface InstructionCheck {
  instruction: RollInstruction;
  refusal: string | null;
}

/** What the workflow needs: the Approvals sheet (and the log's query), the desk's control rows, the clock, the setting. */
export interface RollInstructionOptions {
  sheet: ApprovalsWorkbook;
  /** Records a control row in the Hedge Log (TradingDesk.recordControl): journalled here and chained; rejects when not written. */
  recordControl(change: ControlInput): Promise<unknown>;
  now?: () => Date;
  /** "Approval valid for (hours)", read at each check. */
  validHours?: () => number | Promise<number>;
}

/** A refusal of a fingerprint that is not one (the key itself never goes into the sheet). */
function checkFingerprint(value: string, field: string): void {
  if (!PUBLIC_FINGERPRINT.test(value)) throw new Error(`${field} must be a key's public fingerprint (fp- and 16 hex), never the key.`);
}

export class RollInstructions {
  private readonly now: () => Date;

  constructor(private readonly options: RollInstructionOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Writes a pending instruction (its block) from the terms typed in the pane; a bad term is refused naming it, nothing written. */
  async submit(
    input: Parameters<typeof instructionTerms>[0],
    preparedBy: string,
    place: { environment: Environment; account: string | null },
  ): Promise<RollInstruction> {
    checkFingerprint(preparedBy, "preparedBy");
    const now = this.now();
    const read = instructionTerms(input, now.getTime());
    if (!read.ok) throw new Error(read.error);
    const bound = { ...read.terms, environment: place.environment, account: place.account, preparedAt: now.toISOString() };
    const id = newInstructionId(now, newIdempotencyKey);
    const instruction = {
      ...bound,
      id,
      status: "pending" as const,
      hash: instructionHash(bound),
      preparedBy,
      decidedBy: null,
      decidedAt: null,
      reason: null,
    };
    await this.options.sheet.appendApproval(instructionLines(instruction));
    return this.read(id);
  }

  /** Every instruction, newest first, with the status the Hedge Log's control rows record (they outrank the Status cell). */
  list(): Promise<RollInstruction[]> {
    return listInstructions(this.options.sheet);
  }

  /** One instruction as the sheet and the log say now (the armed rolls read them all, listInstructions, through roll-cover.ts). */
  async read(id: string): Promise<RollInstruction> {
    const [lines, controls] = await Promise.all([this.options.sheet.readApprovals(id), controlRows(this.options.sheet)]);
    const found = parseInstructions(lines).find((i) => i.id === id.trim());
    if (!found) throw noSuchBatch(id);
    return recordedStatus(found, controls);
  }

  /** Whether the key of `approver` in `place` may approve it now: the batch's rules, in sentences (null: it may). */
  async check(id: string, approver: string, place: ApproverPlace): Promise<InstructionCheck> {
    checkFingerprint(approver, "approverFingerprint");
    const instruction = await this.read(id);
    const nowMs = this.now().getTime();
    const refusals = [
      instruction.problems.length > 0 ? `${NOUN} ${instruction.id}: ${instruction.problems.join("; ")}.` : null,
      instructionHash(instruction) !== instruction.hash
        ? `${NOUN} ${instruction.id} was edited since it was prepared: its cells no longer match its hash. Have it prepared again.`
        : null,
      instruction.preparedBy === approver
        ? "The key that prepared a roll instruction cannot approve it: approval needs a second person's trading key."
        : null,
      instruction.status !== "pending" ? `${NOUN} ${instruction.id} is ${instruction.status}: an instruction is approved once.` : null,
      expiryRefusal(instruction, nowMs, await (this.options.validHours?.() ?? DEFAULT_APPROVAL_HOURS), NOUN),
      placeRefusal(instruction, place, NOUN),
      !(Date.parse(instruction.until) > nowMs) ? `${NOUN} ${instruction.id} ended at ${instruction.until}: nothing to approve.` : null,
    ].filter((r): r is string => r !== null);
    return { instruction, refusal: refusals.length > 0 ? refusals.join(" ") : null };
  }

  /**
   * Approves it once: checked again, the Status written over `pending` only, then a control row (pending → approved) with
   * its hash. When the log does not take the row (no desk, Excel busy), the Status is put back as it was read, so that
   * nothing is left half-done: the cell never says approved without the log's record, and it may be approved again.
   */
  async approve(id: string, approver: string, place: ApproverPlace): Promise<RollInstruction> {
    const { instruction, refusal } = await this.check(id, approver, place);
    if (refusal) throw new Error(refusal);
    await this.decide(instruction, ["pending"], "approved", approver, null);
    try {
      await this.options.recordControl(this.change(instruction, "pending", "approved", approver));
    } catch (e) {
      const { decidedBy, decidedAt, reason } = instruction;
      await this.options.sheet.setApprovalStatus(instruction.id, ["approved"], {
        status: "pending",
        approvedBy: decidedBy ?? "",
        decidedAt,
        reason,
      });
      throw e;
    }
    return this.read(id);
  }

  /** Rejects a pending instruction with a reason (the preparer may withdraw their own); nothing is logged as it never covered a roll. */
  async reject(id: string, by: string, reason: string): Promise<RollInstruction> {
    checkFingerprint(by, "by");
    if (reason.trim() === "")
      throw new Error("Reason: say why the roll instruction is rejected (the preparer reads it on the Approvals sheet).");
    const instruction = await this.read(id);
    await this.decide(instruction, ["pending"], "rejected", by, reason.trim());
    return this.read(id);
  }

  /**
   * Revokes it, by any key (revoking only takes a permission away): a control row (approved → revoked) with its hash first,
   * which alone ends it (coversRoll reads the log's record), then the Status cell.
   */
  async revoke(id: string, by: string, reason: string | null = null): Promise<RollInstruction> {
    checkFingerprint(by, "by");
    const instruction = await this.read(id);
    if (instruction.status === "revoked" || instruction.status === "rejected")
      throw new Error(`${NOUN} ${instruction.id} is ${instruction.status} already: nothing to revoke.`);
    await this.options.recordControl(this.change(instruction, instruction.status, "revoked", by, reason));
    await this.decide(instruction, ["pending", "approved"], "revoked", by, reason);
    return this.read(id);
  }

  private async decide(i: RollInstruction, from: InstructionStatus[], status: InstructionStatus, by: string, reason: string | null) {
    await this.options.sheet.setApprovalStatus(i.id, from, { status, approvedBy: by, decidedAt: this.now().toISOString(), reason });
  }

  private change(i: RollInstruction, from: string, to: string, by: string, reason: string | null = null): ControlInput {
    const terms = `${i.market} ${i.side} until ${i.until}, at most ${i.maxPerHedgeUsd.toFixed(2)} USD per hedge, tenors by the rule up to ${i.maxTenor} days`;
    return {
      control: CONTROLS.rollInstruction,
      from,
      to,
      by,
      hash: i.hash,
      preparedBy: i.preparedBy,
      message: `${NOUN} ${i.id} ${to} (${terms})${reason ? `: ${reason}` : ""}.`,
    };
  }
}

/**
 * Every instruction of the Approvals sheet, newest first, with the status the Hedge Log's control rows record (they
 * outrank the Status cell): two reads, the sheet and the log's control rows. What the panel lists and the armed rolls ask.
 */
export async function listInstructions(sheet: ApprovalsWorkbook): Promise<RollInstruction[]> {
  const [lines, controls] = await Promise.all([sheet.readApprovals(), controlRows(sheet)]);
  return parseInstructions(lines)
    .map((i) => recordedStatus(i, controls))
    .sort((a, b) => b.preparedAt.localeCompare(a.preparedAt));
}

/** The Hedge Log's control rows: the rows whose Status is no trade's (one query on the Status column). */
function controlRows(sheet: ApprovalsWorkbook): Promise<LogRecord[]> {
  return sheet.readLog({ statusNotIn: INTENT_STATUSES }); // recordedStatus reads control rows alone
}
