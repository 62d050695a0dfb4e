// Example payloads of every Hedging Service v2 resource, as the spec describes them, for client and schema tests.

export const quote = {
  market: "USDTNGN",
  side: "buy",
  notional_usd: 10000,
  tenor_days: 7,
  maturity: "2026-11-29T10:00:00Z",
  pricing: { market_price: 1502.35, execution_price: 1502.5, price_impact_usd: -1 },
  carry: { daily_usdc: 5, daily_rate_pct: 0.05, total_usdc: 35, total_rate_pct: 0.35 },
  upfront: { required_margin_usdc: 1000, platform_fee_usdc: 10, total_upfront_usdc: 1010 },
};

export const hedge = {
  id: "hdg_01",
  client_reference: "DEAL-1",
  market: "USDTNGN",
  side: "buy",
  notional_usd: 10000,
  tenor_days: 7,
  status: "filled",
  order_tx_hash: "0x" + "a".repeat(64),
  fill_tx_hash: "0x" + "b".repeat(64),
  struck_rate: 1502.5,
  units: 15025000,
  order_key: "ok_1",
  opened_at: "2026-11-22T10:00:00Z",
  filled_at: "2026-11-22T10:00:02Z",
  maturity_at: "2026-11-29T10:00:00Z",
};

export const submittedHedge = {
  id: "hdg_02",
  client_reference: null,
  market: "USDTNGN",
  side: "sell",
  notional_usd: 5000,
  tenor_days: 1,
  status: "submitted",
  order_tx_hash: "0x" + "c".repeat(64),
  opened_at: "2026-11-22T10:00:00Z",
  maturity_at: "2026-11-23T10:00:00Z",
};

export const openResult = {
  status: "submitted",
  order_tx_hash: "0x" + "a".repeat(64),
  hedge_id: "hdg_01",
  client_reference: "DEAL-1",
  collateral_usdc: 1010,
  maturity_at: "2026-11-29T10:00:00Z",
  quote,
};

export const addResult = {
  status: "submitted",
  order_tx_hash: "0x" + "d".repeat(64),
  hedge_id: "hdg_01",
  market: "USDTNGN",
  side: "buy",
  additional_notional_usd: 5000,
  collateral_usdc: 505,
  new_notional_usd: 15000,
  maturity_at: "2026-11-29T10:00:00Z",
};

export const decreaseResult = {
  status: "submitted",
  order_tx_hash: "0x" + "e".repeat(64),
  hedge_id: "hdg_01",
  market: "USDTNGN",
  side: "buy",
  reduced_notional_usd: 5000,
  new_notional_usd: 10000,
  maturity_at: "2026-11-29T10:00:00Z",
};

export const closeResult = { status: "submitted", order_tx_hash: "0x" + "f".repeat(64), market: "USDTNGN", side: "buy" };

export const position = {
  market: "USDTNGN",
  side: "buy",
  size_usd: 10000,
  collateral_usdc: 1000,
  entry_price: 1502.5,
  mark_price: 1510,
  gross_pnl_usd: 49.92,
  accrued_carry_usd: 5,
  net_pnl_usd: 44.92,
  closing_fee_usd: 5,
  net_margin_usd: 1039.92,
  maturity_at: "2026-11-29T10:00:00Z",
};

export const closedHedge = {
  market: "USDTNGN",
  side: "buy",
  size_usd: 10000,
  collateral_usdc: 1000,
  entry_price: 1502.5,
  exit_price: 1510,
  opened_at: "2026-11-22T10:00:00Z",
  closed_at: "2026-11-23T10:00:00Z",
  exit_type: "close",
  gross_pnl_usd: 49.92,
  net_pnl_usd: 34.92,
  carry_usd: 5,
  fees_usd: 10,
};

export const account = {
  account_address: "0x" + "1".repeat(40),
  balance_usdc: 250000,
  margin_used_usdc: 1000,
  exposure_usd: 10000,
  unrealized_pnl_usd: 44.92,
  open_positions: 1,
  max_exposure_usd: 1000000,
  available_exposure_usd: 990000,
};

export const market = {
  market: "USDTNGN",
  status: "open",
  price: 1502.35,
  available_capacity_usd: { buy: 1000000, sell: 800000 },
  net_rate_daily_pct: { buy: 0.05, sell: -0.03 },
};

export const prices = { USDTNGN: { pair: "USDT/NGN", price: 1502.35, timestamp: "2026-11-22T10:00:00Z" } };
