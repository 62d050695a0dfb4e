// Sample service objects and engine results for the pane's view-model tests.
import type { Account, Market, Position, Quote } from "../../src/api/schemas";
import type { Preview, PreviewLine, TradeRow } from "../../src/trading/types";

export const account: Account = {
  account_address: "0xabc123",
  balance_usdc: 25_000,
  margin_used_usdc: 1_250.5,
  exposure_usd: 400_000,
  unrealized_pnl_usd: -37.25,
  open_positions: 2,
  max_exposure_usd: 1_000_000,
  available_exposure_usd: 600_000,
};

export const market: Market = {
  market: "USDTNGN",
  status: "open",
  price: 1502.35,
  available_capacity_usd: { buy: 2_000_000, sell: 750_000 },
  net_rate_daily_pct: { buy: 0.012, sell: -0.008 },
};

export function quote(notional: number): Quote {
  return {
    market: "USDTNGN",
    side: "buy",
    notional_usd: notional,
    tenor_days: 7,
    maturity: "2025-02-07T00:00:00Z",
    pricing: { market_price: 1502.35, execution_price: 1503.1, price_impact_usd: -5 },
    carry: { daily_usdc: 1.2, daily_rate_pct: 0.012, total_usdc: 8.4, total_rate_pct: 0.084 },
    upfront: { required_margin_usdc: notional / 10, platform_fee_usdc: 10, total_upfront_usdc: notional / 10 + 10 },
  };
}

export const position: Position = {
  market: "USDTNGN",
  side: "buy",
  size_usd: 100_000,
  collateral_usdc: 10_010,
  entry_price: 1500,
  mark_price: 1502.35,
  gross_pnl_usd: 156.67,
  accrued_carry_usd: -12,
  net_pnl_usd: 144.67,
  closing_fee_usd: 5,
  net_margin_usd: 10_150,
  maturity_at: "2025-02-07T00:00:00Z",
};

export function row(rowNumber: number, over: Partial<TradeRow> = {}): TradeRow {
  return {
    rowNumber,
    action: "open",
    market: "USDTNGN",
    side: "buy",
    notional: 100_000,
    tenor: 7,
    clientReference: `DEAL-${rowNumber}`,
    ...over,
  };
}

export function openLine(rowNumber: number, over: Partial<PreviewLine> = {}): PreviewLine {
  const r = row(rowNumber);
  const q = quote(r.notional!);
  return {
    row: r,
    quote: q,
    position: null,
    collateralUsdc: q.upfront.total_upfront_usdc,
    carryUsdc: q.carry.total_usdc,
    marginBackUsdc: 0,
    duplicateOf: null,
    blockers: [],
    warnings: [],
    ...over,
  };
}

export function preview(lines: PreviewLine[], over: Partial<Preview> = {}): Preview {
  return {
    action: "open",
    environment: "sandbox",
    createdAt: "2025-01-31T10:00:00Z",
    lines,
    totals: {
      rows: lines.length,
      priced: lines.filter((l) => l.blockers.length === 0).length,
      notionalUsd: lines.reduce((s, l) => s + (l.row.notional ?? 0), 0),
      collateralUsdc: lines.reduce((s, l) => s + l.collateralUsdc, 0),
      carryUsdc: lines.reduce((s, l) => s + l.carryUsdc, 0),
      marginBackUsdc: 0,
    },
    checks: [],
    blockers: [],
    duplicates: lines.filter((l) => l.duplicateOf).length,
    account,
    markets: [market],
    cancelled: false,
    quoteRequests: lines.length,
    rolls: [],
    ...over,
  };
}
