// The standing roll instructions as the armed rolls ask them (issue 39 items 2 and 3 wired): at a roll's maturity the instructions the Approvals sheet holds, with the status the Hedge Log's control rows record, and whether one covers the roll — sent under it (its hash in the rows' Batch hash) or proposed with coversRoll's reason.
import type { Environment } from "../../api/environment";
import type { RollCover, RollInstructions } from "../desk/contract";
import type { TradeRow } from "../types";
import { coversRoll, rollApprovalOf, type RollToCover } from "./covers-roll";
import type { ApprovalsWorkbook } from "./port";
import type { RollInstruction } from "./roll-instruction";
import { listInstructions } from "./roll-instructions";

export interface InstructionCoverOptions {
  /** The Approvals sheet and the Hedge Log (its control rows): read at each roll asked about, two reads. */
  sheet: ApprovalsWorkbook;
  /** The desk's environment and account now; null while not connected (nothing covered). */
  place(): { environment: Environment; account: string | null } | null;
  /** Why no instruction may cover a roll now (a read-only key cannot send one), or null. */
  refusal?(): string | null;
  now?: () => Date;
}

/** Which instruction of the roll's side names why it is not covered: an approved one first, then revoked, pending, rejected. */
const RANK: readonly RollInstruction["status"][] = ["approved", "revoked", "pending", "rejected"];

/**
 * The roll the arming would send as coversRoll reads it: its market side, the hedge's notional (the Open and Max trade's
 * Adds onto the same hedge, summed: "at most <USD> per hedge"), the Open's tenor. The rows are the policy's rule at the
 * maturity (rollRowsAt, tenorFor inside it), so the rule's tenor is the Open's.
 */
function rollToCover(market: string, side: string, rows: readonly TradeRow[], place: { environment: Environment; account: string | null }) {
  const open = rows.find((r) => r.action === "open");
  const tenor = open?.tenor ?? NaN;
  const notional = rows.reduce((sum, r) => sum + (r.action === "open" || r.action === "add" ? (r.notional ?? NaN) : 0), 0);
  return { market, side, notional, tenor, ruleTenor: tenor, environment: place.environment, account: place.account } satisfies RollToCover;
}

/**
 * The armed rolls' port over the Approvals sheet: the first instruction that covers the roll now (approved by a second
 * key, not revoked in the log, before its Until, within its amount and tenors, of the desk's place) with what the roll's
 * rows carry (rollApprovalOf); else the reason of the side's nearest instruction, or that none keeps the side hedged.
 */
export function instructionCover(o: InstructionCoverOptions): RollInstructions {
  const now = o.now ?? (() => new Date());
  return {
    async coversRoll(roll): Promise<RollCover> {
      const refusal = o.refusal?.() ?? null;
      if (refusal) return { ok: false, reason: refusal };
      const place = o.place();
      if (!place) return { ok: false, reason: "the pane is not connected" };
      const asked = rollToCover(roll.market, roll.side, roll.rows, place);
      const nowMs = now().getTime();
      const instructions = await listInstructions(o.sheet);
      const covering = instructions.find((i) => coversRoll(i, asked, nowMs).ok);
      if (covering) return { ok: true, instruction: covering.id, approval: rollApprovalOf(covering) };
      const [nearest] = instructions
        .filter((i) => i.market === roll.market.toUpperCase() && i.side === roll.side)
        .sort((a, b) => RANK.indexOf(a.status) - RANK.indexOf(b.status)); // stable: newest first within a status
      const cover = nearest && coversRoll(nearest, asked, nowMs);
      return {
        ok: false,
        reason: cover && !cover.ok ? cover.reason : `no standing roll instruction keeps ${roll.market} ${roll.side} hedged`,
      };
    },
  };
}
