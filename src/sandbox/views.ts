// Resources as the API returns them (Hedge, Position, Closed-hedge record), rendered from engine state.
import type { ClosedHedge, Hedge, Position } from "../api/schemas";
import { iso } from "./clock";
import { carryPnl, pricePnl } from "./economics";
import { fromMicro, roundTo } from "./money";
import type { MarketConfig } from "./pricing";
import type { ClosedRecord, HedgeState } from "./state";

/**
 * Hedge fields present only once the hedge has filled (the spec's "present once filled"): left out before, never null
 * (README "Service assumptions"); the OpenAPI document says the same. `order_tx_hash` is likewise left out while `submitting`.
 */
export const FILL_FIELDS = ["fill_tx_hash", "struck_rate", "units", "filled_at"] as const;

export function hedgeView(h: HedgeState): Hedge {
  const filled =
    h.entry === null || h.filledAt === null
      ? {}
      : {
          fill_tx_hash: h.fillTx,
          struck_rate: roundTo(h.entry, 6),
          // Quote-currency amount of the hedge: notional × struck rate.
          units: roundTo(fromMicro(h.notional) * h.entry, 2),
          filled_at: iso(h.filledAt),
        };
  return {
    id: h.id,
    client_reference: h.clientReference,
    market: h.market,
    side: h.side,
    notional_usd: fromMicro(h.notional),
    tenor_days: h.tenorDays,
    status: h.status,
    ...(h.orderTx === null ? {} : { order_tx_hash: h.orderTx }),
    ...filled,
    order_key: h.orderKey,
    opened_at: iso(h.openedAt),
    maturity_at: iso(h.maturityAt),
  };
}

/** Carry of a live hedge up to `now` (capped at maturity), as P&L to the caller. */
export function accruedCarry(h: HedgeState, market: MarketConfig, now: number): number {
  return h.carry + carryPnl(market, h.side, h.notional, h.carryFrom, Math.min(now, h.maturityAt));
}

/** One Position line for a filled hedge, marked at `mark` (the current mid). */
export function positionView(h: HedgeState, market: MarketConfig, mark: number, now: number): Position {
  const entry = h.entry ?? mark;
  const gross = pricePnl(h.side, h.notional, entry, mark);
  const carry = accruedCarry(h, market, now);
  return {
    market: h.market,
    side: h.side,
    size_usd: fromMicro(h.notional),
    collateral_usdc: fromMicro(h.margin + h.openFee + h.closeFee),
    entry_price: roundTo(entry, 6),
    mark_price: mark,
    gross_pnl_usd: fromMicro(gross),
    accrued_carry_usd: fromMicro(carry),
    net_pnl_usd: fromMicro(gross + carry),
    closing_fee_usd: fromMicro(h.closeFee),
    // Reclaimed if closed at mark now: the margin plus price and carry P&L (the reserved fees are spent).
    net_margin_usd: fromMicro(h.margin + gross + carry),
    maturity_at: iso(h.maturityAt),
  };
}

/** Unrealized net P&L (price plus carry) of a filled hedge, in micro-USD. */
export function unrealizedPnl(h: HedgeState, market: MarketConfig, mark: number, now: number): number {
  return pricePnl(h.side, h.notional, h.entry ?? mark, mark) + accruedCarry(h, market, now);
}

export function recordView(r: ClosedRecord): ClosedHedge {
  return {
    market: r.market,
    side: r.side,
    size_usd: fromMicro(r.size),
    collateral_usdc: fromMicro(r.collateral),
    entry_price: roundTo(r.entry, 6),
    exit_price: r.exit,
    opened_at: iso(r.openedAt),
    closed_at: iso(r.closedAt),
    exit_type: r.exitType,
    gross_pnl_usd: fromMicro(r.gross),
    net_pnl_usd: fromMicro(r.net),
    carry_usd: fromMicro(r.carry),
    fees_usd: fromMicro(r.fees),
    hedge_id: r.hedgeId,
    client_reference: r.clientReference,
  };
}
