// The Hedge Log's rows read back from their cells as Excel gives them, which rows a log query returns (the rule every workbook follows), its order by time and its sheet names.
import {
  LOG_COLUMNS,
  LOG_HEADERS,
  archiveSheetName,
  archiveTableName,
  byLoggedAt,
  cellsToLogRecord,
  matchesLogQuery,
  utcDayStart,
  type LogRecord,
} from "../../../src/trading/log/hedge-log";
import type { CellValue } from "../../../src/trading/cells";

/** A log row's cells in column order: `values` by field (null: a cell Excel gives as null), every other cell blank (""). */
const cellsOf = (values: Partial<Record<keyof LogRecord, CellValue>>): CellValue[] =>
  LOG_COLUMNS.map((c) => (c.field in values ? values[c.field]! : ""));

const record = (over: Partial<LogRecord> = {}): LogRecord => ({
  loggedAt: "2025-03-04T09:00:00.000Z",
  environment: "sandbox",
  action: "add",
  market: "USDTNGN",
  side: "buy",
  notional: 25_000,
  tenor: null,
  clientReference: null,
  idempotencyKey: "k-1",
  status: "submitted",
  hedgeId: "h-1",
  orderTxHash: null,
  fillTxHash: null,
  struckRate: null,
  filledAt: null,
  errorCode: null,
  message: null,
  ...over,
});

describe("a Hedge Log row read back from its cells", () => {
  it("reads dates Excel turned into serial numbers as UTC times, and keeps dates typed as text", () => {
    // 45720.25 is 2025-03-04 06:00 in Excel's day count (45658 is 2025-01-01).
    const r = cellsToLogRecord(cellsOf({ loggedAt: 45720.25, sentAt: "2025-03-04T06:00:01.000Z", filledAt: 45720.5 }));
    expect([r.loggedAt, r.sentAt, r.filledAt]).toEqual([
      "2025-03-04T06:00:00.000Z",
      "2025-03-04T06:00:01.000Z",
      "2025-03-04T12:00:00.000Z",
    ]);
  });

  it("reads amounts typed as text with thousands separators, keeps numbers, and leaves an amount it cannot read empty", () => {
    const r = cellsToLogRecord(cellsOf({ notional: "1,250,000.5", notionalBefore: 400_000, struckRate: "1,523.25", tenor: "seven" }));
    expect([r.notional, r.notionalBefore, r.struckRate, r.tenor]).toEqual([1_250_000.5, 400_000, 1523.25, null]);
    expect(cellsToLogRecord(cellsOf({ notionalBefore: 0 })).notionalBefore).toBe(0);
  });

  it("reads a text column holding a number (a client reference Excel took for one) as its text", () => {
    const r = cellsToLogRecord(cellsOf({ clientReference: 12345, hedgeId: 7, idempotencyKey: "k-1" }));
    expect([r.clientReference, r.hedgeId]).toEqual(["12345", "7"]);
  });

  it("leaves a blank cell empty (null), and a row of an older log without the later columns has them empty", () => {
    const r = cellsToLogRecord(cellsOf({ idempotencyKey: "k-1", status: "filled", clientReference: "", sentAt: "", notional: "" }));
    expect([r.clientReference, r.sentAt, r.notional, r.decision]).toEqual([null, null, null, null]);
    const nulls = cellsToLogRecord(cellsOf({ idempotencyKey: "k-1", clientReference: null, sentAt: null, notional: null }));
    expect([nulls.clientReference, nulls.sentAt, nulls.notional]).toEqual([null, null, null]);
    const older = cellsToLogRecord(cellsOf({ idempotencyKey: "k-2", status: "filled", decision: "not done" }).slice(0, 17));
    expect([older.idempotencyKey, older.status, older.decision, older.account, older.finalHash]).toEqual([
      "k-2",
      "filled",
      null,
      null,
      null,
    ]);
  });

  it("reads a blank required cell as empty text, never null (readers check those fields as text), and keeps the ones given", () => {
    const blank = cellsToLogRecord(cellsOf({}));
    expect([blank.loggedAt, blank.environment, blank.action, blank.market, blank.side, blank.idempotencyKey, blank.status]).toEqual([
      "",
      "",
      "",
      "",
      "",
      "",
      "",
    ]);
    expect(blank.hedgeId).toBeNull();
    const given = cellsToLogRecord(cellsOf({ environment: "sandbox", action: "close", market: "USDTKES", side: "sell", status: "closed" }));
    expect([given.environment, given.action, given.market, given.side, given.status]).toEqual([
      "sandbox",
      "close",
      "USDTKES",
      "sell",
      "closed",
    ]);
  });

  it("has its headers in column order, the Logged at first", () => {
    expect(LOG_HEADERS).toEqual(LOG_COLUMNS.map((c) => c.header));
    expect(LOG_HEADERS.slice(0, 3)).toEqual(["Logged at (UTC)", "Environment", "Action"]);
  });
});

describe("which log rows a query returns", () => {
  it("an empty query returns no row", () => {
    expect(matchesLogQuery(record(), {})).toBe(false);
  });

  it("by idempotency key", () => {
    expect(matchesLogQuery(record(), { keys: ["k-0", "k-1"] })).toBe(true);
    expect(matchesLogQuery(record(), { keys: ["k-0"] })).toBe(false);
  });

  it("the rows whose status is not one of those given (the unfinished rows)", () => {
    expect(matchesLogQuery(record({ status: "submitted" }), { statusNotIn: ["filled", "closed"] })).toBe(true);
    expect(matchesLogQuery(record({ status: "filled" }), { statusNotIn: ["filled", "closed"] })).toBe(false);
  });

  it("the rows logged at or after an instant; a row whose time cannot be read is never among them", () => {
    const since = { loggedSince: "2025-03-04T09:00:00.000Z" };
    expect(matchesLogQuery(record({ loggedAt: "2025-03-04T09:00:00.000Z" }), since)).toBe(true);
    expect(matchesLogQuery(record({ loggedAt: "2025-03-04T10:00:00+01:00" }), since)).toBe(true);
    expect(matchesLogQuery(record({ loggedAt: "2025-03-04T08:59:59.999Z" }), since)).toBe(false);
    expect(matchesLogQuery(record({ loggedAt: "yesterday" }), since)).toBe(false);
  });

  it("the rows acting on one of the hedges given; a row without a hedge id is not", () => {
    expect(matchesLogQuery(record({ hedgeId: "h-1" }), { hedgeIds: ["h-1"] })).toBe(true);
    expect(matchesLogQuery(record({ hedgeId: "h-2" }), { hedgeIds: ["h-1"] })).toBe(false);
    expect(matchesLogQuery(record({ hedgeId: null }), { hedgeIds: ["h-1"] })).toBe(false);
  });

  it("a row matching any one criterion given is returned", () => {
    const query = { keys: ["k-9"], statusNotIn: ["submitted"], loggedSince: "2026-01-01T00:00:00.000Z", hedgeIds: ["h-9"] };
    expect(matchesLogQuery(record(), query)).toBe(false);
    expect(matchesLogQuery(record({ idempotencyKey: "k-9" }), query)).toBe(true);
    expect(matchesLogQuery(record({ status: "filled" }), query)).toBe(true);
    expect(matchesLogQuery(record({ loggedAt: "2026-01-01T00:00:00.000Z" }), query)).toBe(true);
    expect(matchesLogQuery(record({ hedgeId: "h-9" }), query)).toBe(true);
  });
});

describe("the log's order and names", () => {
  it("orders rows oldest first by when logged, rows logged at the same instant in the order they came", () => {
    const rows = [
      { loggedAt: "2025-03-04T10:00:00.000Z", key: "b" },
      { loggedAt: "2025-03-04T09:00:00.000Z", key: "a" },
      { loggedAt: "2025-03-04T10:00:00.000Z", key: "c" },
      { loggedAt: "2025-03-04T10:00:00.000Z", key: "d" },
    ];
    expect([...rows].sort(byLoggedAt).map((r) => r.key)).toEqual(["a", "b", "c", "d"]);
    expect([byLoggedAt(rows[0], rows[2]), byLoggedAt(rows[1], rows[0]), byLoggedAt(rows[0], rows[1])]).toEqual([0, -1, 1]);
  });

  it("today's rows start at midnight UTC of the day", () => {
    expect(utcDayStart(new Date("2025-03-04T23:59:59.999Z"))).toBe("2025-03-04T00:00:00.000Z");
    expect(utcDayStart(new Date("2025-03-05T00:00:00.000Z"))).toBe("2025-03-05T00:00:00.000Z");
  });

  it("an archived year's sheet and table are named after the log's", () => {
    expect([archiveSheetName(2025), archiveTableName(2025)]).toEqual(["Hedge Log 2025", "HedgeLog2025"]);
  });
});
