// The fill poller's judgement and one poll round: one GET /hedges list for many pending hedges, GET /hedges/{id} for those the list missed, and the final state each one reached.
import type { HedgingClient } from "../api/client";
import type { Hedge } from "../api/schemas";
import { utcMs } from "../api/time";
import type { Intent, IntentPatch } from "./intent";

/** The list call covers this many newest hedges; anything older is fetched by id. */
export const POLL_LIST_LIMIT = 500;

/**
 * What a hedge's current state means for an intent that is `submitted` (null: not final yet).
 *  - open:   the hedge fills (filled, with fill tx, struck rate, filled at) or fails (failed).
 *  - add:    final when the hedge is filled again at a notional at least the one the add answered (new_notional_usd);
 *            `closed` (not filled) when the hedge closed before that was seen.
 *  - reduce: final when the hedge is filled at a notional at most the answered new notional; `closed` when the reduce closed it.
 *  - close:  final when the hedge is closed.
 * A hedge that went `failed` after an add/reduce/close means that action failed.
 */
export function judge(intent: Intent, hedge: Hedge): IntentPatch | null {
  const fillFields = {
    fillTxHash: hedge.fill_tx_hash ?? null,
    struckRate: hedge.struck_rate ?? null,
    filledAt: hedge.filled_at ?? null,
  };
  // A hedge's fill details belong to its open. An add/reduce/close records them only when the hedge shows a fill made
  // after this row was journalled (filled_at later than its Logged at); otherwise they stay empty.
  const filledAtMs = utcMs(hedge.filled_at);
  const refilled = Number.isFinite(filledAtMs) && filledAtMs > utcMs(intent.loggedAt);
  const ownFill = refilled ? fillFields : {};
  const expected = intent.expectedNotional ?? null;
  switch (intent.action) {
    case "open":
      if (hedge.status === "filled" || (hedge.status === "closed" && hedge.fill_tx_hash)) {
        return {
          status: "filled",
          ...fillFields,
          message: hedge.status === "closed" ? "Filled (the hedge has since been closed)." : "Filled.",
        };
      }
      if (hedge.status === "failed")
        return { status: "failed", message: "The order did not go through: nothing was opened and the collateral was released." };
      return null;
    case "add":
      if (hedge.status === "failed") return { status: "failed", message: "The add did not go through." };
      // Closed before the add was seen filled: whether the add filled first cannot be told, so it is not called filled.
      if (hedge.status === "closed")
        return { status: "closed", message: "The hedge closed before the add was confirmed: check the hedge's history on the service." };
      if (hedge.status === "filled" && (expected === null || hedge.notional_usd >= expected - 0.005)) {
        return { status: "filled", ...ownFill, message: `Filled: hedge notional now ${hedge.notional_usd}.` };
      }
      return null;
    case "reduce":
      if (hedge.status === "closed") return { status: "closed", ...ownFill, message: "The reduction closed the whole hedge." };
      if (hedge.status === "failed") return { status: "failed", message: "The reduction did not go through." };
      if (hedge.status === "filled" && (expected === null || hedge.notional_usd <= expected + 0.005)) {
        return { status: "filled", ...ownFill, message: `Filled: hedge notional now ${hedge.notional_usd}.` };
      }
      return null;
    case "close":
      if (hedge.status === "closed") return { status: "closed", ...ownFill, message: "Closed." };
      if (hedge.status === "failed") return { status: "failed", message: "The close did not go through." };
      return null;
  }
}

export interface PollRound {
  /** Intents that reached a final state in this round, with their patch. */
  outcomes: Array<{ intent: Intent; patch: IntentPatch }>;
  /** Requests made (1 list + stragglers). */
  requests: number;
}

/**
 * One poll round over `submitted` intents that have a hedge id: one list call, then GET by id for hedges not in it.
 * Errors of single GETs are left for the next round; a failed list call falls back to GETs.
 */
export async function pollOnce(client: HedgingClient, pending: readonly Intent[], signal?: AbortSignal): Promise<PollRound> {
  const round: PollRound = { outcomes: [], requests: 0 };
  const submitted = pending.filter((i) => i.status === "submitted");
  if (submitted.length === 0) return round;
  const byId = new Map<string, Hedge>();
  const newest = new Map<string, Hedge>();
  const withoutId = submitted.filter((i) => !i.hedgeId);
  if (submitted.length > 1 || withoutId.length > 0) {
    round.requests++;
    try {
      const { data } = await client.list({ limit: POLL_LIST_LIMIT }, signal);
      for (const h of data) {
        byId.set(h.id, h);
        if (!newest.has(`${h.market}|${h.side}`)) newest.set(`${h.market}|${h.side}`, h);
      }
    } catch {
      // fall through to single GETs
    }
  }
  // An answer without hedge_id (the spec's close result has none): the newest hedge of that market side is the one acted on.
  for (const intent of withoutId) {
    const hedge = newest.get(`${intent.market}|${intent.side}`);
    const patch = hedge ? judge(intent, hedge) : null;
    if (patch && hedge) round.outcomes.push({ intent, patch: { hedgeId: hedge.id, ...patch } });
  }
  for (const intent of submitted.filter((i) => i.hedgeId)) {
    let hedge = byId.get(intent.hedgeId!);
    if (!hedge) {
      round.requests++;
      try {
        hedge = (await client.get(intent.hedgeId!, signal)).data;
        byId.set(hedge.id, hedge);
      } catch {
        continue;
      }
    }
    const patch = judge(intent, hedge);
    if (patch) round.outcomes.push({ intent, patch });
  }
  return round;
}
