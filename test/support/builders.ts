// Builders of service records, Hedge Log rows (and their cells) and a month's data for every test: each takes only the fields a test cares about.
import type { ClosedHedge, Hedge, Position } from "../../src/api/schemas";
import { toExcelDate, type CellValue } from "../../src/trading/cells";
import { LOG_COLUMNS, type LogRecord } from "../../src/trading/log/hedge-log";
import { intentFromRow, intentToLogRecord } from "../../src/trading/intent";
import type { TradeRow } from "../../src/trading/types";
import { monthWindow } from "../../src/monthend/month";
import type { MonthData } from "../../src/monthend/recon-model";

export const NOV = monthWindow("2026-11");

export function closed(over: Partial<ClosedHedge> = {}): ClosedHedge {
  return {
    market: "USDTNGN",
    side: "buy",
    size_usd: 100_000,
    collateral_usdc: 10_100,
    entry_price: 1500,
    exit_price: 1510,
    opened_at: "2026-11-02T09:00:00.000Z",
    closed_at: "2026-11-05T09:00:00.000Z",
    exit_type: "close",
    gross_pnl_usd: 666.67,
    net_pnl_usd: 546.67,
    carry_usd: -20,
    fees_usd: 100,
    hedge_id: "h1",
    client_reference: "DEAL-1",
    ...over,
  };
}

export function hedge(over: Partial<Hedge> = {}): Hedge {
  return {
    id: "h1",
    client_reference: "DEAL-1",
    market: "USDTNGN",
    side: "buy",
    notional_usd: 100_000,
    tenor_days: 7,
    status: "closed",
    order_tx_hash: "0xorder",
    fill_tx_hash: "0xfill",
    struck_rate: 1500,
    units: null,
    order_key: null,
    opened_at: "2026-11-02T09:00:00.000Z",
    filled_at: "2026-11-02T09:00:02.000Z",
    maturity_at: "2026-11-09T09:00:00.000Z",
    ...over,
  };
}

export function position(over: Partial<Position> = {}): Position {
  return {
    market: "USDTNGN",
    side: "sell",
    size_usd: 50_000,
    collateral_usdc: 5_050,
    entry_price: 1505,
    mark_price: 1500,
    gross_pnl_usd: 166.11,
    accrued_carry_usd: -3.2,
    net_pnl_usd: 162.91,
    closing_fee_usd: 25,
    net_margin_usd: 5_187.91,
    maturity_at: "2026-12-03T09:00:00.000Z",
    ...over,
  };
}

let keys = 0;
/** A trade row (sheet row 2) opening 100,000 USD of USDTNGN buy for 7 days, reference DEAL-1. */
export const OPEN_ROW: TradeRow = {
  rowNumber: 2,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 100_000,
  tenor: 7,
  clientReference: "DEAL-1",
};

/** A row as the desk journals it before sending (an open): key `idempotencyKey`, status submitting, nothing back from the service yet. */
export function journalled(idempotencyKey: string, over: Partial<LogRecord> = {}): LogRecord {
  return { ...intentToLogRecord(intentFromRow(OPEN_ROW, idempotencyKey, "sandbox", "2026-11-02T09:00:00.000Z")), ...over };
}

/** A Hedge Log row of a filled open (a fresh idempotency key each, unless given). */
export function logRow(over: Partial<LogRecord> = {}): LogRecord {
  return journalled(`key-${++keys}`, {
    status: "filled",
    hedgeId: "h1",
    orderTxHash: "0xorder",
    fillTxHash: "0xfill",
    struckRate: 1500,
    filledAt: "2026-11-02T09:00:02.000Z",
    ...over,
  });
}

/** The cells of a row in LOG_COLUMNS order, as the log sheet holds them: dates as serials, empty as "". */
export function logCells(r: LogRecord): CellValue[] {
  return LOG_COLUMNS.map((c) => {
    const v = r[c.field];
    return v === null || v === undefined ? "" : c.kind === "date" ? toExcelDate(String(v)) : (v as CellValue);
  });
}

/** A month's data; generated on 2026-12-01 10:00 UTC unless told otherwise. */
export function monthData(over: Partial<MonthData> = {}): MonthData {
  return {
    environment: "sandbox",
    accountAddress: "0xACCOUNT",
    window: NOV,
    generatedAtMs: Date.UTC(2026, 11, 1, 10),
    history: [],
    historyComplete: true,
    positions: [],
    hedges: [],
    log: [],
    ...over,
  };
}
