// The plan of an open hedge at its maturity, for the overview: the roll mode (the policy's Roll), the next tenor (the tenor rule with the policy's working days, at the maturity) and this roll's cost (rollOnce, as ROLLCOST prices one roll), from the last proposal's policy and exposures.
import type { QuoteRequest, Side, Tenor } from "../api/schemas";
import type { Exposure, PolicyRow } from "../policy/inputs";
import { quoteKey, rollOnce, tradePieces, type QuoteCosts } from "../policy/rollcost";
import { policyFor } from "../policy/target";
import { HOUR_MS, tenorFor, type RollMode } from "../policy/tenor";

/** What the last proposal was made from: its policy and exposures, as read then. */
export interface PlanInputs {
  policy: readonly PolicyRow[];
  exposures: readonly Exposure[];
}

export interface MaturityPlan {
  mode: RollMode;
  /** The next hedge's tenor; null when nothing follows (the exposure is paid by the maturity). */
  nextTenor: Tenor | null;
  /** The roll's cost (rollOnce's total: fees + carry − price impact), null until its quotes are in or when nothing follows. */
  costUsd: number | null;
  /** The quotes the cost needs (each piece of Max trade's split at the next tenor, and the whole size for an early exit). */
  questions: QuoteRequest[];
}

/**
 * The exposure of a side that still counts after `atMs` (undated rows, or a value date after it) and the earliest of
 * those value dates, of the side alone or, when the policy nets sides, of the market (as the rule bounds the tenor).
 */
function exposureAfter(exposures: readonly Exposure[], market: string, side: Side, netSides: boolean, atMs: number) {
  let amount = 0;
  let due: number | null = null;
  for (const e of exposures) {
    if (e.market !== market) continue;
    const date = e.valueDateMs ?? null;
    if (date !== null && date <= atMs) continue; // paid by then
    if (date !== null && (netSides || e.side === side)) due = Math.min(due ?? date, date);
    if (e.side === side) amount += e.amountUsd;
  }
  return { amount, due };
}

/**
 * The plan of a side holding `sizeUsd` maturing at `maturityMs`: the mode and Roll within of the policy's row for the
 * market; the next tenor by the tenor rule at the maturity (bounded by the earliest value date still ahead, the working
 * days, at maturity a hedge ending inside Roll within after the value date allowed, as the rule does); the roll's cost
 * from `quoteOf` (null while a quote is missing). A side whose exposure is paid by then: nothing follows.
 */
export function planFor(
  market: string,
  side: Side,
  sizeUsd: number,
  maturityMs: number,
  inputs: PlanInputs,
  quoteOf: (q: QuoteRequest) => QuoteCosts | null,
): MaturityPlan {
  const p = policyFor(inputs.policy, market);
  const { amount, due } = exposureAfter(inputs.exposures, market, side, p.netSides, maturityMs);
  if (!(amount > 0)) return { mode: p.roll, nextTenor: null, costUsd: null, questions: [] };
  const slack = p.roll === "at maturity" ? p.rollWithinHours * HOUR_MS : 0;
  const nextTenor = tenorFor(p.tenor, due === null ? null : due - maturityMs, maturityMs, p.workingDays, slack);
  const ask = (tenor: Tenor, usd: number): QuoteRequest => ({ market, side, notional_usd: usd, tenor_days: tenor });
  const questions = tradePieces(sizeUsd, p.maxTradeUsd).map((usd) => ask(nextTenor, usd));
  if (p.roll === "early") questions.push(ask(nextTenor, sizeUsd));
  let missing = false;
  const cost = rollOnce(
    sizeUsd,
    nextTenor,
    p.roll,
    (tenor, usd) => {
      const q = quoteOf(ask(tenor, usd));
      if (q) return q;
      missing = true;
      return { upfront: { platform_fee_usdc: 0 }, carry: { total_usdc: 0 }, pricing: { price_impact_usd: 0 } };
    },
    p.maxTradeUsd,
  );
  return { mode: p.roll, nextTenor, costUsd: missing ? null : Math.round(cost.totalUsd * 100) / 100, questions: dedupe(questions) };
}

function dedupe(questions: QuoteRequest[]): QuoteRequest[] {
  const seen = new Map(questions.map((q) => [quoteKey(q), q]));
  return [...seen.values()];
}
