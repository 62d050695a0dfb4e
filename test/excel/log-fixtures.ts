// Hedge Log records for adapter tests, and a record's cells in LOG_COLUMNS order as the log sheet holds them.
import { toExcelDate, type CellValue } from "../../src/trading/cells";
import { LOG_COLUMNS, type LogRecord } from "../../src/trading/hedge-log";

export const record = (key: string, over: Partial<LogRecord> = {}): LogRecord => ({
  loggedAt: "2025-03-04T05:06:07.000Z",
  environment: "sandbox",
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 1_250_000,
  tenor: 7,
  clientReference: "D-1",
  idempotencyKey: key,
  status: "submitting",
  hedgeId: null,
  orderTxHash: null,
  fillTxHash: null,
  struckRate: null,
  filledAt: null,
  errorCode: null,
  message: null,
  account: null,
  notionalBefore: null,
  sentAt: null,
  decision: null,
  decidedAt: null,
  ...over,
});

/** The cells of a record in LOG_COLUMNS order: dates as serials, empty as "". */
export function logCells(r: LogRecord): CellValue[] {
  return LOG_COLUMNS.map((c) => {
    const v = r[c.field];
    return v === null || v === undefined ? "" : c.kind === "date" ? toExcelDate(String(v)) : (v as CellValue);
  });
}
