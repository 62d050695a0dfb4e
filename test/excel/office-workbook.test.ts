// The Office.js workbook adapter under office-addin-mock: reading a selection and a table, creating the log table with formats, appending and updating rows.
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { toExcelDate } from "../../src/trading/cells";
import { LOG_COLUMNS, LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../src/trading/hedge-log";
import { ExcelModel } from "./excel-model";

const record = (key: string, over: Partial<LogRecord> = {}): LogRecord => ({
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

const col = (field: keyof LogRecord) => LOG_COLUMNS.findIndex((c) => c.field === field);

describe("OfficeWorkbook.readSelection", () => {
  it("reads the selected rows of a plain range under the used range's header row, with sheet row numbers", async () => {
    const model = new ExcelModel();
    model.addSheet("Exposures", [
      ["", "", "", ""],
      ["", "Market", "Side", "Amount"],
      ["", "USDTNGN", "buy", 100],
      ["", "USDTNGN", "sell", "2,000"],
      ["", "USDTNGN", "buy", 300],
    ]);
    model.selection = { sheet: "Exposures", top: 1, left: 2, rows: 3, cols: 1 }; // C2:C4, header row included
    const rows = await new OfficeWorkbook(model.excel).readSelection();
    expect(rows).toEqual({
      sheetName: "Exposures",
      address: "'Exposures'!B3:D4",
      tableName: null,
      headers: ["Market", "Side", "Amount"],
      headerRowNumber: 2,
      hiddenRowsSkipped: 0,
      rows: [
        { rowNumber: 3, values: ["USDTNGN", "buy", 100] },
        { rowNumber: 4, values: ["USDTNGN", "sell", "2,000"] },
      ],
    });
    expect(model.runs).toBe(1);
  });

  it("reads the whole table when the selection sits in one", async () => {
    const model = new ExcelModel();
    model.addSheet("Deals", [
      ["Pair", "Direction", "Notional USD"],
      ["USDTNGN", "buy", 1],
      ["USDTNGN", "sell", 2],
      ["USDTNGN", "buy", 3],
    ]);
    model.addTable("DealTable", "Deals", 0, 0, 3, 3);
    model.selection = { sheet: "Deals", top: 2, left: 1, rows: 1, cols: 1 };
    const rows = await new OfficeWorkbook(model.excel).readSelection();
    expect(rows.tableName).toBe("DealTable");
    expect(rows.headers).toEqual(["Pair", "Direction", "Notional USD"]);
    expect(rows.rows.map((r) => [r.rowNumber, r.values[2]])).toEqual([
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
  });

  it("says so when the sheet is empty", async () => {
    const model = new ExcelModel();
    model.addSheet("Empty", []);
    model.selection = { sheet: "Empty", top: 0, left: 0, rows: 1, cols: 1 };
    await expect(new OfficeWorkbook(model.excel).readSelection()).rejects.toThrow(
      "Sheet Empty is empty: select the rows to trade under a header row.",
    );
  });
});

describe("OfficeWorkbook log", () => {
  it("creates the Hedge Log sheet and table with headers, number formats, widths and a frozen header, once", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.ensureLog();
    const sheet = model.sheets.get(LOG_SHEET_NAME)!;
    expect(sheet.grid[0]).toEqual([...LOG_HEADERS]);
    expect(model.tables.has(LOG_TABLE_NAME)).toBe(true);
    expect(sheet.frozenRows).toBe(1);
    LOG_COLUMNS.forEach((c, i) => {
      expect(sheet.widths.get(i)).toBe(c.width);
      expect(sheet.formats.get(`1,${i}`)).toBe(c.numberFormat);
    });
    expect(sheet.formats.get(`1,${col("loggedAt")}`)).toBe("yyyy-mm-dd hh:mm:ss");
    expect(sheet.formats.get(`1,${col("notional")}`)).toBe("#,##0.00");
    expect(sheet.formats.get(`1,${col("idempotencyKey")}`)).toBe("@");
    await wb.ensureLog();
    expect(model.sheets.size).toBe(1);
    expect(model.tables.size).toBe(1);
  });

  it("appends rows (filling the new table's empty row first), with formats, and reads them back", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    expect(await wb.readLog()).toEqual([]);
    await wb.appendLog([record("k1"), record("k2", { side: "sell", clientReference: "D-2" })]);
    await wb.appendLog([record("k3", { action: "close", notional: null, tenor: null, clientReference: null })]);
    const sheet = model.sheets.get(LOG_SHEET_NAME)!;
    expect(sheet.grid).toHaveLength(4); // header + 3, no gap
    expect(sheet.grid[1][col("loggedAt")]).toBe(toExcelDate("2025-03-04T05:06:07.000Z"));
    expect(sheet.grid[1][col("notional")]).toBe(1_250_000);
    expect(sheet.grid[3][col("notional")]).toBe("");
    expect(sheet.formats.get(`3,${col("struckRate")}`)).toBe("#,##0.0000");
    const log = await wb.readLog();
    expect(log.map((r) => r.idempotencyKey)).toEqual(["k1", "k2", "k3"]);
    expect(log[0]).toEqual(record("k1"));
    expect(log[2]).toMatchObject({ action: "close", notional: null, tenor: null, clientReference: null });
  });

  it("keeps text cells text: a client reference like 00123 (and hashes of digits) are not turned into numbers, first row or later ones", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([record("k1", { clientReference: "00123" }), record("k2", { clientReference: "0456" })]);
    await wb.appendLog([record("k3", { clientReference: "000789", hedgeId: "0012" })]);
    const sheet = model.sheets.get(LOG_SHEET_NAME)!;
    expect([1, 2, 3].map((r) => sheet.grid[r][col("clientReference")])).toEqual(["00123", "0456", "000789"]);
    expect(sheet.formats.get(`3,${col("clientReference")}`)).toBe("@");
    const log = await wb.readLog();
    expect(log.map((r) => r.clientReference)).toEqual(["00123", "0456", "000789"]);
    expect(log[2].hedgeId).toBe("0012");
  });

  it("writes the columns added after Message (Account, Notional before, Sent at, Decision) in their own cells", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([record("k1", { action: "add", tenor: null }), record("k2")]);
    await wb.updateLog([
      { idempotencyKey: "k1", sentAt: "2025-03-04T05:06:08.000Z", notionalBefore: 400_000, hedgeId: "h-1" },
      { idempotencyKey: "k2", status: "needs_decision", account: "0xabc" },
    ]);
    await wb.updateLog([{ idempotencyKey: "k2", status: "not_sent", decision: "not done", decidedAt: "2025-03-05T00:00:00.000Z" }]);
    const log = await wb.readLog();
    expect(log[0]).toEqual(
      record("k1", { action: "add", tenor: null, sentAt: "2025-03-04T05:06:08.000Z", notionalBefore: 400_000, hedgeId: "h-1" }),
    );
    expect(log[1]).toEqual(
      record("k2", { status: "not_sent", account: "0xabc", decision: "not done", decidedAt: "2025-03-05T00:00:00.000Z" }),
    );
  });

  it("updates only the status cells of the rows named by key, keeping the rest", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([record("k1"), record("k2")]);
    await wb.updateLog([
      { idempotencyKey: "k2", status: "submitted", hedgeId: "h-2", orderTxHash: "0x01" },
      { idempotencyKey: "k1", status: "rejected", errorCode: "hedge_exists", message: "A hedge is already open." },
    ]);
    await wb.updateLog([
      { idempotencyKey: "k2", status: "filled", fillTxHash: "0x02", struckRate: 1502.1234, filledAt: "2025-03-04T05:06:09.000Z" },
    ]);
    const log = await wb.readLog();
    expect(log[0]).toEqual(record("k1", { status: "rejected", errorCode: "hedge_exists", message: "A hedge is already open." }));
    expect(log[1]).toEqual(
      record("k2", {
        status: "filled",
        hedgeId: "h-2",
        orderTxHash: "0x01",
        fillTxHash: "0x02",
        struckRate: 1502.1234,
        filledAt: "2025-03-04T05:06:09.000Z",
      }),
    );
    const sheet = model.sheets.get(LOG_SHEET_NAME)!;
    expect(sheet.grid[2][col("filledAt")]).toBe(toExcelDate("2025-03-04T05:06:09.000Z"));
    // A key with no row (deleted, or its key edited) is skipped and reported; the other updates are written.
    expect(
      await wb.updateLog([
        { idempotencyKey: "nope", status: "filled" },
        { idempotencyKey: "k1", message: "still written" },
      ]),
    ).toEqual({ missing: ["nope"] });
    expect((await wb.readLog())[0].message).toBe("still written");
  });

  it("adds the columns an older log lacks at its end (header, format, width), keeping its rows", async () => {
    const model = new ExcelModel();
    // A log written before the Account column (and those after it) existed.
    const old = LOG_COLUMNS.slice(0, col("account"));
    const oldRow = old.map((c) => {
      const v = record("k0")[c.field];
      return v === null || v === undefined ? "" : c.kind === "date" ? toExcelDate(String(v)) : (v as string | number);
    });
    model.addSheet(LOG_SHEET_NAME, [old.map((c) => c.header), oldRow]);
    model.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, 0, 0, 1, old.length);
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([record("k1", { account: "0xabc" })]);
    const sheet = model.sheets.get(LOG_SHEET_NAME)!;
    expect(sheet.grid[0]).toEqual([...LOG_HEADERS]);
    expect(sheet.formats.get(`2,${col("account")}`)).toBe("@");
    expect(sheet.widths.get(col("account"))).toBe(LOG_COLUMNS[col("account")].width);
    const log = await wb.readLog();
    expect(log.map((r) => [r.idempotencyKey, r.account])).toEqual([
      ["k0", null],
      ["k1", "0xabc"],
    ]);
  });

  it("brings the log sheet to the front", async () => {
    const model = new ExcelModel();
    await new OfficeWorkbook(model.excel).showLog();
    expect(model.sheets.get(LOG_SHEET_NAME)!.activated).toBe(true);
  });
});
