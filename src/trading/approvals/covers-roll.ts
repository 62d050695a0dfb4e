// Whether a standing roll instruction covers one roll now (pure; the roll-arming code asks it before sending): edited, not approved, revoked, another place, market or side, past its date, above its amount per hedge, or a tenor not the rule's each refuse with the reason; its status as the Hedge Log's control rows record it; what a roll under it carries into its log row.
import type { LogRecord } from "../log/hedge-log";
import { CONTROLS, readControl } from "../log/control-row";
import type { SendApproval } from "../types";
import { instructionHash, type RollInstruction } from "./roll-instruction";

/** The roll the arming code would send: one Open of a market side, and the tenor the rule (tenorFor) gives it now. */
export interface RollToCover {
  market: string;
  side: string;
  /** The Open's notional (USD). */
  notional: number;
  /** The Open's tenor (days). */
  tenor: number;
  /** The tenor the rule picks for this roll at its time (src/policy/tenor.ts's tenorFor, with the policy's tenor and working days). */
  ruleTenor: number;
  /** The desk's environment and account: an instruction covers rolls only where it was prepared. */
  environment: string;
  account: string | null;
}

export type Cover = { ok: true } | { ok: false; reason: string };

const usd = (n: number) => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const NEW_APPROVAL = "this roll needs a new approval";

/**
 * Whether `instruction` covers `roll` at `now` (epoch ms or a Date): its block as prepared (the hash recomputes), approved
 * and not revoked (read the status through recordedStatus first), of the desk's environment and account, the roll's
 * market and side, before its Until, the notional at most its amount per hedge, and the tenor the rule's, at most its
 * most. Otherwise the first reason, ending in what to do.
 */
export function coversRoll(instruction: RollInstruction, roll: RollToCover, now: number | Date): Cover {
  const no = (why: string): Cover => ({ ok: false, reason: `Roll instruction ${instruction.id} ${why}: ${NEW_APPROVAL}.` });
  const nowMs = Number(now); // a Date reads as its epoch ms
  if (instructionHash(instruction) !== instruction.hash) return no("was edited since it was prepared (its cells no longer match its hash)");
  if (instruction.status === "revoked")
    return no(`was revoked by ${instruction.decidedBy ?? "a key"} at ${instruction.decidedAt ?? "(no time)"}`);
  if (instruction.status !== "approved") return no(`is ${instruction.status}, not approved by a second key`);
  if (instruction.environment !== roll.environment || instruction.account !== roll.account)
    return no(
      `was approved for ${instruction.environment ?? "(no environment)"} account ${instruction.account ?? "(not known)"}, and this desk trades ${roll.environment} account ${roll.account ?? "(not known)"}`,
    );
  if (roll.market.toUpperCase() !== instruction.market || roll.side !== instruction.side)
    return no(`keeps ${instruction.market} ${instruction.side} hedged, not ${roll.market} ${roll.side}`);
  const untilMs = Date.parse(instruction.until);
  if (!(nowMs < untilMs)) return no(`ended at ${instruction.until}`);
  if (!Number.isFinite(roll.notional) || !(roll.notional > 0)) return no(`cannot cover a notional of ${String(roll.notional)}`);
  if (Math.round(roll.notional * 100) > Math.round(instruction.maxPerHedgeUsd * 100))
    return no(`allows at most ${usd(instruction.maxPerHedgeUsd)} USD per hedge, and this roll is ${usd(roll.notional)} USD`);
  if (roll.tenor !== roll.ruleTenor)
    return no(`allows tenors by the rule, and this roll's ${roll.tenor} days is not the rule's ${roll.ruleTenor}`);
  if (roll.tenor > instruction.maxTenor)
    return no(`allows tenors of at most ${instruction.maxTenor} days, and this roll's is ${roll.tenor}`);
  return { ok: true };
}

/**
 * The instruction with its status as the Hedge Log's control rows record it (they outrank the Status cell, which anyone
 * can type): revoked once a control row revoked its hash; "approved" only when a control row approved its hash (else it
 * reads pending, with the problem named). `controls`: the log's control rows (any order).
 */
export function recordedStatus(instruction: RollInstruction, controls: readonly LogRecord[]): RollInstruction {
  const mine = controls.map(readControl).filter((c) => c !== null && c.control === CONTROLS.rollInstruction && c.hash === instruction.hash);
  const revoked = mine.find((c) => c!.to === "revoked");
  if (revoked) return { ...instruction, status: "revoked", decidedBy: revoked.by, decidedAt: revoked.at };
  if (instruction.status === "approved" && !mine.some((c) => c!.to === "approved"))
    return {
      ...instruction,
      status: "pending",
      problems: [
        ...instruction.problems,
        "its Status cell reads approved, but the Hedge Log records no approval of its hash: a status typed in",
      ],
    };
  return instruction;
}

/**
 * What a roll sent under the instruction carries into its Hedge Log row (the desk's SendApproval): the instruction's hash
 * in Batch hash, its preparer and approver in Prepared by and Approved by. Batch hash is a body column, so the row's link
 * (Row hash) seals it; the control rows carrying the same hash tell an instruction's hash from a batch's. Only an approved
 * instruction has an approver to name.
 */
export function rollApprovalOf(instruction: RollInstruction): Pick<SendApproval, "batchHash" | "preparedBy" | "approvedBy"> {
  if (instruction.status !== "approved" || !instruction.decidedBy)
    throw new Error(`Roll instruction ${instruction.id} is ${instruction.status}: no roll is sent under it.`);
  return { batchHash: instruction.hash, preparedBy: instruction.preparedBy, approvedBy: instruction.decidedBy };
}
