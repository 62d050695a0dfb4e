// The cost of a hedging program: the sum over its hedges of each quote's own fee, carry and entry price impact, and the total as a yearly rate of notional.
import type { Tenor } from "../api/schemas";

/** The fields of a Quote the cost sums (a whole Quote fits). */
export interface QuoteCosts {
  upfront: { platform_fee_usdc: number };
  carry: { total_usdc: number };
  pricing: { price_impact_usd: number };
}

export interface RollCost {
  /** How many hedges. */
  hedges: number;
  /** "7d × 12 + 3d × 2": each tenor used, longest first, and how many hedges of it. */
  tenors: string;
  /** Σ upfront.platform_fee_usdc (open and close fees). */
  feesUsdc: number;
  /** Σ carry.total_usdc (signed: positive is paid). */
  carryUsdc: number;
  /** Σ pricing.price_impact_usd (signed as the quote: negative is a cost). */
  priceImpactUsd: number;
  /** fees + carry − price impact: what the program costs (negative: it earns). */
  totalUsd: number;
  /** total ÷ notional × 365 ÷ days: a decimal (0.0245 is 2.45 % a year). */
  yearlyRate: number;
}

/** Micro-units: the quotes' figures carry at most USDC's 6 decimals, so sums are exact. */
const micro = (x: number) => Math.round(x * 1e6);

/**
 * The cost of holding `notionalUsd` for `days` with the hedges `tenors` (programTenors), each priced by the quote of its
 * tenor (`quoteOf`, one quote per distinct tenor): every figure is the sum over the hedges of that quote's own field.
 */
export function rollCost(notionalUsd: number, days: number, tenors: readonly Tenor[], quoteOf: (tenor: Tenor) => QuoteCosts): RollCost {
  const counts = new Map<Tenor, number>();
  for (const t of tenors) counts.set(t, (counts.get(t) ?? 0) + 1);
  let fees = 0;
  let carry = 0;
  let impact = 0;
  const parts: string[] = [];
  for (const [t, n] of [...counts].sort((a, b) => b[0] - a[0])) {
    const q = quoteOf(t);
    fees += n * micro(q.upfront.platform_fee_usdc);
    carry += n * micro(q.carry.total_usdc);
    impact += n * micro(q.pricing.price_impact_usd);
    parts.push(`${t}d × ${n}`);
  }
  const total = fees + carry - impact;
  return {
    hedges: tenors.length,
    tenors: parts.join(" + "),
    feesUsdc: fees / 1e6,
    carryUsdc: carry / 1e6,
    priceImpactUsd: impact / 1e6,
    totalUsd: total / 1e6,
    yearlyRate: (total / 1e6 / notionalUsd / days) * 365,
  };
}
