// Quote economics and P&L: price impact, margin, fees, carry, and the realized P&L formula of a hedge.
import { DAY_MS, iso } from "./clock";
import { fromMicro, percentOf, roundTo, roundToCent, type Micro } from "./money";
import type { MarketConfig } from "./pricing";
import type { Quote, Side, Tenor } from "../api/schemas";

export interface Economics {
  /** Margin locked at open, percent of notional. */
  margin_pct: number;
  /** Fee to open, percent of notional (reserved at open, charged when the hedge is closed). */
  open_fee_pct: number;
  /** Fee to close, percent of notional (reserved at open). */
  close_fee_pct: number;
  /** Price impact in basis points per 100,000 USD of order size (linear in size). */
  impact_bps_per_100k: number;
  /** Largest notional of one hedge, unless the account says otherwise (USD). */
  per_hedge_limit_usd: number;
}

export const DEFAULT_ECONOMICS: Economics = {
  margin_pct: 10,
  open_fee_pct: 0.05,
  close_fee_pct: 0.05,
  impact_bps_per_100k: 1,
  per_hedge_limit_usd: 1_000_000,
};

/** Fractional price impact of an order of `notional` micro-USD. */
export function impactFraction(econ: Economics, notional: Micro): number {
  return (econ.impact_bps_per_100k / 10_000) * (notional / 100_000 / 1_000_000);
}

/**
 * The rate an order trades at. Buying USDT (a `buy` hedge, or closing a `sell`) pays above mid; selling pays below.
 * `opening` is false when the order reduces or closes a position (it then trades on the other side).
 */
export function executionPrice(econ: Economics, market: MarketConfig, side: Side, notional: Micro, mid: number, opening = true): number {
  const buying = (side === "buy") === opening;
  const f = impactFraction(econ, notional);
  return roundTo(buying ? mid * (1 + f) : mid * (1 - f), market.price_decimals);
}

/**
 * Price P&L in micro-USD, rounded to the cent. A buy is long USDT against the quote currency:
 * gross = notional × (exit / entry − 1); a sell is the opposite, notional × (1 − exit / entry).
 */
export function pricePnl(side: Side, notional: Micro, entry: number, exit: number): Micro {
  const r = exit / entry - 1;
  return roundToCent(notional * (side === "buy" ? r : -r));
}

/** Daily carry in micro-USDC, signed as the quote shows it: positive means the caller pays. */
export function dailyCarry(market: MarketConfig, side: Side, notional: Micro): Micro {
  return percentOf(notional, market.net_rate_daily_pct[side]);
}

/** Carry accrued over [fromMs, toMs], signed as P&L to the caller (negative when the caller pays). */
export function carryPnl(market: MarketConfig, side: Side, notional: Micro, fromMs: number, toMs: number): Micro {
  if (toMs <= fromMs) return 0;
  return -roundToCent((dailyCarry(market, side, notional) * (toMs - fromMs)) / DAY_MS);
}

export interface Upfront {
  margin: Micro;
  openFee: Micro;
  closeFee: Micro;
}

export function upfront(econ: Economics, notional: Micro): Upfront {
  return {
    margin: percentOf(notional, econ.margin_pct),
    openFee: percentOf(notional, econ.open_fee_pct),
    closeFee: percentOf(notional, econ.close_fee_pct),
  };
}

/** The Quote resource for an order at `nowMs` with mid `mid`. */
export function buildQuote(
  econ: Economics,
  market: MarketConfig,
  side: Side,
  notional: Micro,
  tenor: Tenor,
  mid: number,
  nowMs: number,
): Quote {
  const execution = executionPrice(econ, market, side, notional, mid);
  const daily = dailyCarry(market, side, notional);
  const ratePct = market.net_rate_daily_pct[side];
  const { margin, openFee, closeFee } = upfront(econ, notional);
  return {
    market: market.symbol,
    side,
    notional_usd: fromMicro(notional),
    tenor_days: tenor,
    maturity: iso(nowMs + tenor * DAY_MS),
    pricing: {
      market_price: mid,
      execution_price: execution,
      // What an immediate exit at mid would make: the cost of the impact, negative for the caller.
      price_impact_usd: fromMicro(pricePnl(side, notional, execution, mid)),
    },
    carry: {
      daily_usdc: fromMicro(daily),
      daily_rate_pct: roundTo(ratePct, 10),
      total_usdc: fromMicro(daily * tenor),
      total_rate_pct: roundTo(ratePct * tenor, 10),
    },
    upfront: {
      required_margin_usdc: fromMicro(margin),
      platform_fee_usdc: fromMicro(openFee + closeFee),
      total_upfront_usdc: fromMicro(margin + openFee + closeFee),
    },
  };
}
