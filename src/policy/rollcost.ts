// The cost of a hedging program as the desk runs it: its hedges by the tenor rule and the roll mode (held to each maturity, or rolled early inside Roll within), each priced by its quote's own fee, carry (for the time held) and price impact (at entry, and at an early close), split by Max trade as it would trade; the total as a yearly rate of notional.
import type { Tenor } from "../api/schemas";
import { DAY_MS, HOUR_MS, opensInsideWindow, programTenors, tenorFor, type RollMode } from "./tenor";
import { splitCents } from "./split";

/** The fields of a Quote the cost sums (a whole Quote fits). */
export interface QuoteCosts {
  upfront: { platform_fee_usdc: number };
  carry: { total_usdc: number };
  pricing: { price_impact_usd: number };
}

/** One hedge of a program: its tenor, the share of it held (1: to maturity), and whether it is closed before its maturity. */
export interface ProgramHedge {
  tenor: Tenor;
  heldFraction: number;
  closedEarly: boolean;
}

export interface RollCost {
  /** How many hedges (Opens; Max trade's Adds belong to their hedge). */
  hedges: number;
  /** "7d × 12 + 3d × 2": each tenor used, longest first, and how many hedges of it. */
  tenors: string;
  /** Σ upfront.platform_fee_usdc (open and close fees), of every trade of the split. */
  feesUsdc: number;
  /** Σ carry.total_usdc × the share held (signed: positive is paid). */
  carryUsdc: number;
  /** Σ pricing.price_impact_usd at entry and at each early close (signed as the quote: negative is a cost). */
  priceImpactUsd: number;
  /** fees + carry − price impact: what the program costs (negative: it earns). */
  totalUsd: number;
  /** total ÷ notional × 365 ÷ days: a decimal (0.0245 is 2.45 % a year). */
  yearlyRate: number;
  /** How many hedges are closed before their maturity (early mode). */
  earlyCloses: number;
  /** The part of priceImpactUsd paid at those closes. */
  exitImpactUsd: number;
}

/**
 * The hedges of a program of `days` whole days at `tenor`, as the desk runs it. At maturity: each held to its maturity
 * and the next opened then (programTenors). Early (HEDGE.TARGET's early roll, acted on at the desk's looks, every
 * `lookMs` from the start: hourly by default, the analyst's way): each hedge is closed at the first look after it came
 * inside Roll within of its maturity (strictly) and the next opened then by the tenor rule over the time left, unless
 * that next hedge would be inside its own window (then it is held to maturity: no churn); a hedge still open at the
 * value date (the 1-day one when less than a day was left) is closed then. Roll within is 0 to 24 h (the callers
 * check it): a window of 0 (or less) closes nothing early, as the first look inside it is after the maturity; at most
 * 24 h, the shortest tenor, the first look inside a hedge's window is always after it opened (`rollAt > at` guards it).
 */
export function deskProgram(days: number, tenor: Tenor, roll: RollMode, rollWithinHours = 24, lookMs = HOUR_MS): ProgramHedge[] {
  const held = (t: Tenor): ProgramHedge => ({ tenor: t, heldFraction: 1, closedEarly: false });
  if (roll === "at maturity") return programTenors(days, tenor).map(held);
  const end = days * DAY_MS;
  const windowMs = rollWithinHours * HOUR_MS;
  const out: ProgramHedge[] = [];
  for (let at = 0; at < end;) {
    const t = tenorFor(tenor, end - at);
    const maturity = at + t * DAY_MS;
    const rollAt = Math.floor((maturity - windowMs) / lookMs) * lookMs + lookMs; // the first look strictly inside the window
    const share = (until: number) => (until - at) / (t * DAY_MS);
    if (rollAt > at && rollAt < Math.min(end, maturity) && !opensInsideWindow(tenorFor(tenor, end - rollAt), rollWithinHours)) {
      out.push({ tenor: t, heldFraction: share(rollAt), closedEarly: true });
      at = rollAt;
    } else if (maturity > end) {
      out.push({ tenor: t, heldFraction: share(end), closedEarly: true }); // paid at the value date: closed early
      at = end;
    } else {
      out.push(held(t));
      at = maturity;
    }
  }
  return out;
}

/** Max trade's pieces of a notional: the full ones first, the remainder last (the proposal's split). */
export function tradePieces(notionalUsd: number, maxTradeUsd: number | null, name?: string): number[] {
  const total = Math.round(notionalUsd * 100);
  return splitCents(total, maxTradeUsd === null ? null : Math.round(maxTradeUsd * 100), name).map((c) => c / 100);
}

/** A quote's question as a key: questions with the same key are asked once (month end's, the overview's plans). */
export const quoteKey = (q: { market: string; side: string; notional_usd: number; tenor_days: number }) =>
  `${q.market}|${q.side}|${q.notional_usd}|${q.tenor_days}`;

/** Micro-units: the quotes' figures carry at most USDC's 6 decimals, so sums are exact. */
const micro = (x: number) => Math.round(x * 1e6);

/**
 * The cost of holding `notionalUsd` for `days` with the hedges `program` (deskProgram; a plain tenor is a hedge held to
 * maturity), each trade priced by the quote of its tenor and size (`quoteOf`): fees and entry impact of every piece of
 * Max trade's split, carry for the share held, and at an early close the exit impact of the whole position (the quote
 * of the notional).
 */
export function rollCost(
  notionalUsd: number,
  days: number,
  program: readonly (Tenor | ProgramHedge)[],
  quoteOf: (tenor: Tenor, notionalUsd: number) => QuoteCosts,
  maxTradeUsd: number | null = null,
): RollCost {
  const hedges = program.map((h): ProgramHedge => (typeof h === "number" ? { tenor: h, heldFraction: 1, closedEarly: false } : h));
  const pieces = tradePieces(notionalUsd, maxTradeUsd);
  const asked = new Map<string, QuoteCosts>(); // one quote per distinct question, however many hedges ask it
  const quote = (t: Tenor, usd: number) => {
    const key = `${t}|${usd}`;
    if (!asked.has(key)) asked.set(key, quoteOf(t, usd));
    return asked.get(key) as QuoteCosts;
  };
  let fees = 0;
  let carry = 0;
  let impact = 0;
  let exit = 0;
  for (const h of hedges) {
    for (const piece of pieces) {
      const q = quote(h.tenor, piece);
      fees += micro(q.upfront.platform_fee_usdc);
      carry += micro(q.carry.total_usdc * h.heldFraction);
      impact += micro(q.pricing.price_impact_usd);
    }
    if (h.closedEarly) exit += micro(quote(h.tenor, notionalUsd).pricing.price_impact_usd);
  }
  const counts = new Map<Tenor, number>();
  for (const h of hedges) counts.set(h.tenor, (counts.get(h.tenor) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[0] - a[0]).map(([t, n]) => `${t}d × ${n}`);
  const total = fees + carry - impact - exit;
  return {
    hedges: hedges.length,
    tenors: parts.join(" + "),
    feesUsdc: fees / 1e6,
    carryUsdc: carry / 1e6,
    priceImpactUsd: (impact + exit) / 1e6,
    totalUsd: total / 1e6,
    yearlyRate: (total / 1e6 / notionalUsd / days) * 365,
    earlyCloses: hedges.filter((h) => h.closedEarly).length,
    exitImpactUsd: exit / 1e6,
  };
}

/**
 * One roll of a side holding `notionalUsd`, as rollCost prices each roll of a program: the next hedge (`nextTenor`) held
 * to its maturity — its fees, carry and entry impact, split by Max trade — and, `early`, the current hedge closed before
 * its maturity: the exit impact of the whole position (the quote of the notional at `exitTenor`), as rollCost prices an
 * early close. The pane's overview shows it beside each maturity.
 */
export function rollOnce(
  notionalUsd: number,
  nextTenor: Tenor,
  roll: RollMode,
  quoteOf: (tenor: Tenor, notionalUsd: number) => QuoteCosts,
  maxTradeUsd: number | null = null,
  exitTenor: Tenor = nextTenor,
): RollCost {
  const next = rollCost(notionalUsd, nextTenor, [nextTenor], quoteOf, maxTradeUsd);
  if (roll === "at maturity") return next;
  const exit = micro(quoteOf(exitTenor, notionalUsd).pricing.price_impact_usd);
  const total = micro(next.totalUsd) - exit;
  return {
    ...next,
    priceImpactUsd: (micro(next.priceImpactUsd) + exit) / 1e6,
    totalUsd: total / 1e6,
    yearlyRate: (total / 1e6 / notionalUsd / nextTenor) * 365,
    earlyCloses: 1,
    exitImpactUsd: exit / 1e6,
  };
}
