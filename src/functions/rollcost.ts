// HEDGE.ROLLCOST(market, side, notional_usd, days, [tenor_days]): the cost of holding a hedge for `days`, rolled at each maturity by the tenor rule, from one quote per tenor (HEDGE.QUOTE's cached topics), as a two-column spill.
import type { Quote, Tenor } from "../api/schemas";
import { ArgumentError } from "../feeds/feed-error";
import { quoteTopic } from "../feeds/topics";
import { rollCost } from "../policy/rollcost";
import { programTenors } from "../policy/tenor";
import { isOmitted, marketArg, notionalArg, sideArg, tenorArg } from "./args";
import type { Spill } from "./cells";
import { cellErrorOfThrown, type CellStreams, type Sink } from "./stream";

/** The spill's labels, in its order. */
export const ROLLCOST_LABELS = [
  "hedges",
  "tenors",
  "fees_usdc",
  "carry_usdc",
  "price_impact_usd",
  "total_usd",
  "total_yearly_rate",
] as const;

/** The longest program: 10 years of days. */
const ROLLCOST_MAX_DAYS = 3_650;

function daysArg(value: unknown, name = "days"): number {
  if (isOmitted(value)) throw new ArgumentError(name, `${name} is required: how many days to stay hedged, e.g. 90.`);
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim().replace(/[,_]/g, "")) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > ROLLCOST_MAX_DAYS)
    throw new ArgumentError(name, `${name} must be a whole number of days from 1 to ${ROLLCOST_MAX_DAYS}; got ${JSON.stringify(value)}.`);
  return n;
}

function rollCostSpill(notionalUsd: number, days: number, tenors: readonly Tenor[], quotes: ReadonlyMap<Tenor, Quote>): Spill {
  const c = rollCost(notionalUsd, days, tenors, (t) => quotes.get(t) as Quote);
  const values = [c.hedges, c.tenors, c.feesUsdc, c.carryUsdc, c.priceImpactUsd, c.totalUsd, c.yearlyRate];
  return ROLLCOST_LABELS.map((label, i) => [label, values[i]]);
}

export function rollcost(
  streams: CellStreams,
  sink: Sink<Spill>,
  market: unknown,
  side: unknown,
  notionalUsd: unknown,
  days: unknown,
  tenorDays: unknown,
): void {
  try {
    const m = marketArg(market);
    const s = sideArg(side);
    const notional = notionalArg(notionalUsd);
    const d = daysArg(days);
    const tenor = isOmitted(tenorDays) ? 7 : tenorArg(tenorDays);
    const tenors = programTenors(d, tenor);
    const distinct = [...new Set(tenors)];
    // The very questions HEDGE.QUOTE(market, side, notional_usd, t) asks: one quote per tenor, shared with those cells.
    const topics = distinct.map((t) => quoteTopic({ market: m, side: s, notional_usd: notional, tenor_days: t }));
    streams.openAll(sink, `rollcost|${d}|${tenor}`, topics, (snapshots) => {
      if (snapshots.some((q) => q.value === undefined)) return { error: { code: "#N/A", message: "No answer from the service yet." } };
      const quotes = new Map(distinct.map((t, i) => [t, snapshots[i].value as Quote]));
      return { value: rollCostSpill(notional, d, tenors, quotes) };
    });
  } catch (e) {
    streams.fail(sink, cellErrorOfThrown(e));
  }
}
