// HEDGE.ROLLCOST(market, side, notional_usd, days, [tenor_days], [roll], [roll_within_hours], [max_trade_usd]): the cost of the program the desk runs (the tenor rule, the roll mode, Max trade's split) from one quote per distinct question (HEDGE.QUOTE's cached topics), with a warning row when the notional is above the side's capacity or the account's headroom, as a two-column spill.
import type { Account, Market, Quote, Side, Tenor } from "../api/schemas";
import { ArgumentError } from "../feeds/feed-error";
import type { TopicSpec } from "../feeds/topic";
import { accountTopic, marketsTopic, quoteTopic } from "../feeds/topics";
import { rollModeOf, TargetInputError } from "../policy/inputs";
import { deskProgram, rollCost, tradePieces, type ProgramHedge } from "../policy/rollcost";
import { ROLL_WITHIN_DEFAULT_HOURS, ROLL_WITHIN_MAX_HOURS, type RollMode } from "../policy/tenor";
import { isOmitted, marketArg, notionalArg, sideArg, tenorArg } from "./args";
import type { Spill } from "./cells";
import { cellErrorOfThrown, type CellStreams, type Sink } from "./stream";

/** The spill's labels, in its order (warning rows, when any, come after them). */
export const ROLLCOST_LABELS = [
  "hedges",
  "tenors",
  "fees_usdc",
  "carry_usdc",
  "price_impact_usd",
  "total_usd",
  "total_yearly_rate",
  "early_closes",
  "exit_impact_usd",
] as const;

/** The longest program: 10 years of days. */
export const ROLLCOST_MAX_DAYS = 3_650;

export function daysArg(value: unknown, name = "days"): number {
  if (isOmitted(value)) throw new ArgumentError(name, `${name} is required: how many days to stay hedged, e.g. 90.`);
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim().replace(/[,_]/g, "")) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > ROLLCOST_MAX_DAYS)
    throw new ArgumentError(name, `${name} must be a whole number of days from 1 to ${ROLLCOST_MAX_DAYS}; got ${JSON.stringify(value)}.`);
  return n;
}

function rollArg(value: unknown): RollMode {
  if (isOmitted(value)) return "at maturity";
  const mode = typeof value === "string" ? rollModeOf(value) : null;
  if (mode === null)
    throw new ArgumentError("roll", `roll must be "at maturity" or "early" (default at maturity); got ${JSON.stringify(value)}.`);
  return mode;
}

function windowArg(value: unknown): number {
  if (isOmitted(value)) return ROLL_WITHIN_DEFAULT_HOURS;
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > ROLL_WITHIN_MAX_HOURS)
    throw new ArgumentError(
      "roll_within_hours",
      `roll_within_hours must be hours from 0 to ${ROLL_WITHIN_MAX_HOURS} (default ${ROLL_WITHIN_DEFAULT_HOURS}), as the policy's Roll within; got ${JSON.stringify(value)}.`,
    );
  return n;
}

/** Made on first use, not when the engine loads: a page's first formatter starts the browser's number formatting (ICU). */
let usdFormat: Intl.NumberFormat | undefined;
const usd = (n: number) => (usdFormat ??= new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })).format(n);

/** The warning rows: a notional the service would refuse (above the side's available capacity, or the account's headroom). */
export function capacityWarnings(market: string, side: Side, notionalUsd: number, markets: readonly Market[], account: Account): Spill {
  const out: Spill = [];
  const capacity = markets.find((m) => m.market === market)?.available_capacity_usd[side];
  const refused = "the first Open of it would be refused (exposure_exceeded): lower the notional, or hedge part of it";
  if (capacity !== undefined && notionalUsd > capacity)
    out.push([
      "warning",
      `notional_usd ${usd(notionalUsd)} is above ${market} ${side}'s available capacity ${usd(capacity)} (GET /markets): ${refused}.`,
    ]);
  if (notionalUsd > account.available_exposure_usd)
    out.push([
      "warning",
      `notional_usd ${usd(notionalUsd)} is above the account's available exposure ${usd(account.available_exposure_usd)} (GET /account): ${refused}.`,
    ]);
  return out;
}

export function rollCostSpill(
  notionalUsd: number,
  days: number,
  program: readonly (Tenor | ProgramHedge)[],
  quoteOf: (tenor: Tenor, notionalUsd: number) => Quote,
  maxTradeUsd: number | null = null,
): Spill {
  const c = rollCost(notionalUsd, days, program, quoteOf, maxTradeUsd);
  const values = [c.hedges, c.tenors, c.feesUsdc, c.carryUsdc, c.priceImpactUsd, c.totalUsd, c.yearlyRate, c.earlyCloses, c.exitImpactUsd];
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
  roll?: unknown,
  rollWithinHours?: unknown,
  maxTradeUsd?: unknown,
): void {
  try {
    const m = marketArg(market);
    const s = sideArg(side);
    const notional = notionalArg(notionalUsd);
    const d = daysArg(days);
    const tenor = isOmitted(tenorDays) ? 7 : tenorArg(tenorDays);
    const mode = rollArg(roll);
    const withinHours = windowArg(rollWithinHours);
    const max = isOmitted(maxTradeUsd) ? null : notionalArg(maxTradeUsd, "max_trade_usd");
    let pieces: number[];
    try {
      pieces = tradePieces(notional, max, "max_trade_usd"); // a split too fine to price is refused before anything is asked
    } catch (e) {
      throw e instanceof TargetInputError ? new ArgumentError("max_trade_usd", e.message) : e;
    }
    const program = deskProgram(d, tenor, mode, withinHours);
    // The very questions HEDGE.QUOTE(market, side, size, t) asks: one per tenor and size of Max trade's pieces, and the
    // whole notional's for an early close's exit impact; shared with those cells.
    const questions = new Map<string, { tenor: Tenor; usd: number }>();
    for (const h of program) {
      for (const usd of pieces) questions.set(`${h.tenor}|${usd}`, { tenor: h.tenor, usd });
      if (h.closedEarly) questions.set(`${h.tenor}|${notional}`, { tenor: h.tenor, usd: notional });
    }
    const asked = [...questions.values()];
    const topics = [
      ...asked.map((q) => quoteTopic({ market: m, side: s, notional_usd: q.usd, tenor_days: q.tenor })),
      marketsTopic(),
      accountTopic(),
    ] as TopicSpec<unknown>[];
    streams.openAll(sink, `rollcost|${d}|${tenor}|${mode}|${withinHours}|${max ?? ""}`, topics, (snapshots) => {
      if (snapshots.some((q) => q.value === undefined)) return { error: { code: "#N/A", message: "No answer from the service yet." } };
      const quotes = new Map(asked.map((q, i) => [`${q.tenor}|${q.usd}`, snapshots[i].value as Quote]));
      const [markets, account] = snapshots.slice(asked.length).map((x) => x.value) as [Market[], Account];
      try {
        const spill = rollCostSpill(notional, d, program, (t, usd) => quotes.get(`${t}|${usd}`) as Quote, max);
        return { value: [...spill, ...capacityWarnings(m, s, notional, markets, account)] };
      } catch (e) {
        return { error: cellErrorOfThrown(e) };
      }
    });
  } catch (e) {
    streams.fail(sink, cellErrorOfThrown(e));
  }
}
