// The Office.js workbook adapter under office-addin-mock: what a selection reads (visible rows, tables intersected, several areas), and the Hedge Log kept by header name, in chunks, with one bad field never failing a flush.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { toExcelDate, type CellValue } from "../../src/trading/cells";
import { LOG_COLUMNS, LOG_HEADERS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../src/trading/log/hedge-log";
import { ExcelModel } from "./excel-model";
import { journalled, logCells } from "../support/builders";

const col = (field: keyof LogRecord) => LOG_COLUMNS.findIndex((c) => c.field === field);
/** Tiny chunks, so a handful of rows crosses several chunk boundaries. */
const TINY = { budgetBytes: 600, maxRows: 3, maxCells: 60 };

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
    model.select("Exposures", { top: 1, left: 2, rows: 3, cols: 1 }); // C2:C4, header row included
    const rows = await new OfficeWorkbook(model.excel).readSelection();
    expect(rows).toEqual({
      sheetName: "Exposures",
      address: "Exposures!B3:D4",
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
    expect(model.runOptions[0]).toEqual({ delayForCellEdit: true });
  });

  const deals = () => {
    const model = new ExcelModel();
    model.addSheet("Deals", [
      ["Pair", "Direction", "Notional USD"],
      ["USDTNGN", "buy", 1],
      ["USDTNGN", "sell", 2],
      ["USDTNGN", "buy", 3],
      ["USDTNGN", "sell", 4],
      ["USDTNGN", "buy", 5],
    ]);
    model.addTable("DealTable", "Deals", 0, 0, 5, 3);
    return model;
  };
  const amounts = (rows: { rows: Array<{ rowNumber: number; values: CellValue[] }> }) => rows.rows.map((r) => [r.rowNumber, r.values[2]]);

  it("intersects a table with the selection: a cell trades its row, not the whole table", async () => {
    const model = deals();
    model.select("Deals", { top: 2, left: 1, rows: 1, cols: 1 }); // B3
    const one = await new OfficeWorkbook(model.excel).readSelection();
    expect(one.tableName).toBe("DealTable");
    expect(one.headers).toEqual(["Pair", "Direction", "Notional USD"]);
    expect(amounts(one)).toEqual([[3, 2]]);
    model.select("Deals", { top: 0, left: 0, rows: 4, cols: 10 }); // header and three rows, columns past the table
    const some = await new OfficeWorkbook(model.excel).readSelection();
    expect(amounts(some)).toEqual([
      [2, 1],
      [3, 2],
      [4, 3],
    ]);
    expect(some.address).toBe("Deals!A2:C4");
  });

  it("never reads a table's totals row as a row to trade", async () => {
    const model = new ExcelModel();
    model.addSheet("Deals", [
      ["Pair", "Direction", "Notional USD"],
      ["USDTNGN", "buy", 1],
      ["USDTNGN", "sell", 2],
      ["Total", "", 3],
    ]);
    model.addTable("DealTable", "Deals", 0, 0, 2, 3, true);
    model.select("Deals", { top: 0, left: 0, rows: 6, cols: 3 }); // the whole table and rows under it, by row headers
    const rows = await new OfficeWorkbook(model.excel).readSelection();
    expect(amounts(rows)).toEqual([
      [2, 1],
      [3, 2],
    ]);
    expect(rows.address).toBe("Deals!A2:C3");
    model.select("Deals", { top: 3, left: 1, rows: 1, cols: 1 }); // a cell of the totals row alone
    expect((await new OfficeWorkbook(model.excel).readSelection()).rows).toEqual([]);
  });

  it("skips rows hidden by a filter or by the user, and counts them", async () => {
    const model = deals();
    const sheet = model.host.sheet("Deals");
    sheet.hidden.add(2); // row 3 filtered out
    sheet.hidden.add(4); // row 5 hidden by hand
    model.select("Deals", { top: 1, left: 0, rows: 5, cols: 3 });
    const rows = await new OfficeWorkbook(model.excel).readSelection();
    expect(amounts(rows)).toEqual([
      [2, 1],
      [4, 3],
      [6, 5],
    ]);
    expect(rows.hiddenRowsSkipped).toBe(2);
    expect(rows.address).toBe("Deals!A2:C2,A4:C4,A6:C6");
    // Every row hidden: nothing to trade, all counted.
    for (let r = 1; r <= 5; r++) sheet.hidden.add(r);
    const none = await new OfficeWorkbook(model.excel).readSelection();
    expect([none.rows.length, none.hiddenRowsSkipped]).toEqual([0, 5]);
  });

  it("reads a Ctrl-click selection area by area when the areas share a header, in row order, each row once", async () => {
    const model = deals();
    model.select(
      "Deals",
      { top: 4, left: 0, rows: 2, cols: 1 },
      { top: 1, left: 2, rows: 1, cols: 1 },
      { top: 5, left: 1, rows: 1, cols: 1 },
    );
    const rows = await new OfficeWorkbook(model.excel).readSelection();
    expect(amounts(rows)).toEqual([
      [2, 1],
      [5, 4],
      [6, 5],
    ]);
    expect(rows.address).toBe("Deals!A2:C2,A5:C6");
  });

  it("refuses areas under different headers, saying which", async () => {
    const model = deals();
    model.host.sheet("Deals").fill(0, 5, [["Other"], ["x"]]);
    model.select("Deals", { top: 1, left: 0, rows: 1, cols: 1 }, { top: 1, left: 5, rows: 1, cols: 1 });
    await expect(new OfficeWorkbook(model.excel).readSelection()).rejects.toThrow(
      /2 areas under different headers \(table DealTable, cells outside any table\): select rows under one header at a time/,
    );
  });

  it("reads a long selection in chunks, every row once and in order", async () => {
    const model = new ExcelModel();
    const grid: CellValue[][] = [["Market", "Side", "Amount"]];
    for (let i = 1; i <= 20; i++) grid.push(["USDTNGN", i % 2 ? "buy" : "sell", i]);
    model.addSheet("Big", grid);
    model.host.sheet("Big").hidden.add(7);
    model.select("Big", { top: 1, left: 0, rows: 20, cols: 3 });
    const rows = await new OfficeWorkbook(model.excel, { limits: TINY }).readSelection();
    expect(rows.rows.map((r) => r.values[2])).toEqual([...Array.from({ length: 20 }, (_, i) => i + 1)].filter((n) => n !== 7));
    const bodyLoads = model.valueLoads.filter((l) => l.columns === 3 && l.rows > 0).slice(1); // the header row first
    expect(bodyLoads.length).toBeGreaterThanOrEqual(7);
    expect(Math.max(...bodyLoads.map((l) => l.rows))).toBeLessThanOrEqual(3);
  });

  it("says so when the sheet is empty", async () => {
    const model = new ExcelModel();
    model.addSheet("Empty", []);
    model.select("Empty", { top: 0, left: 0, rows: 1, cols: 1 });
    await expect(new OfficeWorkbook(model.excel).readSelection()).rejects.toThrow(
      "Sheet Empty is empty: select the rows to trade under a header row.",
    );
  });
});

describe("OfficeWorkbook log", () => {
  const logGrid = (model: ExcelModel) => model.grid(LOG_SHEET_NAME);

  it("creates the Hedge Log sheet and table with headers, number formats, widths and a frozen header, once", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.ensureLog();
    const sheet = model.host.sheet(LOG_SHEET_NAME);
    expect(logGrid(model)[0]).toEqual([...LOG_HEADERS]);
    expect(model.host.tables.has(LOG_TABLE_NAME)).toBe(true);
    expect(sheet.frozenRows).toBe(1);
    LOG_COLUMNS.forEach((c, i) => {
      expect(sheet.widths.get(i)).toBe(c.width);
      expect(sheet.cell(1, i)?.nf).toBe(c.numberFormat);
    });
    await wb.ensureLog();
    expect(model.host.sheets.size).toBe(1);
    expect(model.host.tables.size).toBe(1);
  });

  it("appends rows (filling the new table's empty row first), with formats, and reads them back", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    expect(await wb.readLog()).toEqual([]);
    const k1 = journalled("k1", { loggedAt: "2025-03-04T05:06:07.000Z", notional: 1_250_000 });
    await wb.appendLog([k1, journalled("k2", { side: "sell", clientReference: "D-2" })]);
    await wb.appendLog([journalled("k3", { action: "close", notional: null, tenor: null, clientReference: null })]);
    const grid = logGrid(model);
    expect(grid).toHaveLength(4); // header + 3, no gap
    expect(grid[1][col("loggedAt")]).toBe(toExcelDate("2025-03-04T05:06:07.000Z"));
    expect(grid[1][col("notional")]).toBe(1_250_000);
    expect(grid[3][col("notional")]).toBe("");
    expect(model.host.sheet(LOG_SHEET_NAME).cell(3, col("struckRate"))?.nf).toBe("#,##0.0000");
    const log = await wb.readLog();
    expect(log.map((r) => r.idempotencyKey)).toEqual(["k1", "k2", "k3"]);
    expect(log[0]).toEqual(k1);
    expect(log[2]).toMatchObject({ action: "close", notional: null, tenor: null, clientReference: null });
  });

  it("writes the columns added after Message (Account, Notional before, Sent at, Decision) in their own cells", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([journalled("k1", { action: "add", tenor: null }), journalled("k2")]);
    await wb.updateLog([
      { idempotencyKey: "k1", sentAt: "2025-03-04T05:06:08.000Z", notionalBefore: 400_000, hedgeId: "h-1" },
      { idempotencyKey: "k2", status: "needs_decision", account: "0xabc" },
    ]);
    await wb.updateLog([{ idempotencyKey: "k2", status: "not_sent", decision: "not done", decidedAt: "2025-03-05T00:00:00.000Z" }]);
    const log = await wb.readLog();
    expect(log[0]).toEqual(
      journalled("k1", { action: "add", tenor: null, sentAt: "2025-03-04T05:06:08.000Z", notionalBefore: 400_000, hedgeId: "h-1" }),
    );
    expect(log[1]).toEqual(
      journalled("k2", { status: "not_sent", account: "0xabc", decision: "not done", decidedAt: "2025-03-05T00:00:00.000Z" }),
    );
  });

  it("updates only the cells named, of the rows named by key, keeping the rest; a missing key is reported and the others written", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([journalled("k1"), journalled("k2")]);
    await wb.updateLog([
      { idempotencyKey: "k2", status: "submitted", hedgeId: "h-2", orderTxHash: "0x01" },
      { idempotencyKey: "k1", status: "rejected", errorCode: "hedge_exists", message: "A hedge is already open." },
    ]);
    await wb.updateLog([
      { idempotencyKey: "k2", status: "filled", fillTxHash: "0x02", struckRate: 1502.1234, filledAt: "2025-03-04T05:06:09.000Z" },
    ]);
    const log = await wb.readLog();
    expect(log[0]).toEqual(journalled("k1", { status: "rejected", errorCode: "hedge_exists", message: "A hedge is already open." }));
    expect(log[1]).toEqual(
      journalled("k2", {
        status: "filled",
        hedgeId: "h-2",
        orderTxHash: "0x01",
        fillTxHash: "0x02",
        struckRate: 1502.1234,
        filledAt: "2025-03-04T05:06:09.000Z",
      }),
    );
    expect(logGrid(model)[2][col("filledAt")]).toBe(toExcelDate("2025-03-04T05:06:09.000Z"));
    expect(
      await wb.updateLog([
        { idempotencyKey: "nope", status: "filled" },
        { idempotencyKey: "k1", message: "still written" },
      ]),
    ).toEqual({ missing: ["nope"] });
    expect((await wb.readLog())[0].message).toBe("still written");
  });

  it("writes a value that cannot take its column's type as text, says so in the row's Message, and still writes every other row", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([journalled("k1"), journalled("k2"), journalled("k3", { loggedAt: "yesterday" })]);
    const result = await wb.updateLog([
      { idempotencyKey: "k1", status: "filled", filledAt: "22/11/2026 20:00 UTC", message: "Filled." },
      { idempotencyKey: "k2", status: "filled", filledAt: "2026-11-22T20:00:00Z" },
    ]);
    expect(result).toEqual({ missing: [] });
    const [k1, k2, k3] = await wb.readLog();
    expect(k1).toMatchObject({ status: "filled", filledAt: "22/11/2026 20:00 UTC" });
    expect(k1.message).toBe('Filled. (Filled at (UTC) "22/11/2026 20:00 UTC" is not an ISO 8601 time; written as text.)');
    expect(k2).toMatchObject({ status: "filled", filledAt: "2026-11-22T20:00:00.000Z", message: null });
    expect(k3).toMatchObject({ loggedAt: "yesterday", message: '(Logged at (UTC) "yesterday" is not an ISO 8601 time; written as text.)' });
    const sheet = model.host.sheet(LOG_SHEET_NAME);
    expect(sheet.cell(1, col("filledAt"))?.nf).toBe("@");
    expect(sheet.cell(2, col("filledAt"))?.nf).toBe("yyyy-mm-dd hh:mm:ss");
  });

  it("a query for unfinished rows also returns a row whose key was cleared (to show it, never to send it), but no blank row", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog([
      journalled("k1", { status: "filled" }),
      journalled("", { status: "submitting" }),
      journalled("k3", { status: "submitted" }),
    ]);
    await wb.appendLog([journalled("", { status: "" })]);
    const unfinished = await wb.readLog({ statusNotIn: ["filled", "failed", "closed", "rejected", "not_sent"] });
    expect(unfinished.map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["", "submitting"],
      ["k3", "submitted"],
    ]);
    // Month end and key lookups read journal rows only.
    expect((await wb.readLog()).map((r) => r.idempotencyKey)).toEqual(["k1", "k3"]);
    const memory = new MemoryWorkbook();
    await memory.appendLog([
      journalled("k1", { status: "filled" }),
      journalled("", { status: "submitting" }),
      journalled("", { status: "" }),
    ]);
    expect((await memory.readLog({ statusNotIn: ["filled"] })).map((r) => [r.idempotencyKey, r.status])).toEqual([["", "submitting"]]);
  });

  describe("by header name", () => {
    /** A log the user rearranged: Status moved to the front, a Notes column inserted, Account missing (an older log). */
    function rearranged(model: ExcelModel, rows: LogRecord[]): string[] {
      const headers = LOG_COLUMNS.filter((c) => c.field !== "account").map((c) => c.header);
      const moved = ["Status", ...headers.filter((h) => h !== "Status")];
      moved.splice(3, 0, "Notes");
      const grid: CellValue[][] = [moved];
      for (const r of rows) {
        const cells = logCells(r);
        grid.push(moved.map((h) => (h === "Notes" ? "my note" : cells[LOG_HEADERS.indexOf(h)])));
      }
      model.addSheet(LOG_SHEET_NAME, grid);
      model.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, 0, 0, rows.length, moved.length);
      return moved;
    }

    it("reads records from columns the user inserted or moved", async () => {
      const model = new ExcelModel();
      rearranged(model, [journalled("k1", { status: "filled" }), journalled("k2", { clientReference: "00123" })]);
      const log = await new OfficeWorkbook(model.excel).readLog();
      expect(log).toEqual([journalled("k1", { status: "filled" }), journalled("k2", { clientReference: "00123" })]);
    });

    it("writes status under its own header, appends the missing column by name at the end, and leaves the user's column alone", async () => {
      const model = new ExcelModel();
      const headers = rearranged(model, [journalled("k1"), journalled("k2")]);
      const wb = new OfficeWorkbook(model.excel);
      await wb.updateLog([{ idempotencyKey: "k2", status: "filled", hedgeId: "h-2" }]);
      await wb.appendLog([journalled("k3", { account: "0xabc" })]);
      const grid = logGrid(model);
      expect(grid[0]).toEqual([...headers, "Account"]);
      const at = (h: string) => grid[0].indexOf(h);
      expect(grid[2][at("Status")]).toBe("filled");
      expect(grid[2][at("Hedge id")]).toBe("h-2");
      expect(grid[1][at("Status")]).toBe("submitting");
      expect(grid.slice(1).map((r) => r[at("Notes")])).toEqual(["my note", "my note", ""]);
      expect(grid[3][at("Idempotency key")]).toBe("k3");
      expect(grid[3][at("Account")]).toBe("0xabc");
      expect(model.host.sheet(LOG_SHEET_NAME).widths.get(at("Account"))).toBe(LOG_COLUMNS[col("account")].width);
      expect((await wb.readLog()).map((r) => [r.idempotencyKey, r.status, r.account])).toEqual([
        ["k1", "submitting", null],
        ["k2", "filled", null],
        ["k3", "submitting", "0xabc"],
      ]);
    });

    it("a log written before issue 24 gets the approval and chain columns appended by name, as text, and a seal written with its final status", async () => {
      const model = new ExcelModel();
      const older = LOG_COLUMNS.slice(0, col("batchHash"));
      const k1 = journalled("k1", { status: "submitted" });
      model.addSheet(LOG_SHEET_NAME, [older.map((c) => c.header), logCells(k1).slice(0, older.length)]);
      model.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, 0, 0, 1, older.length);
      const wb = new OfficeWorkbook(model.excel);
      // A hash of digits only stays text ("@"), never a number in E notation.
      const linked = journalled("k2", {
        batchHash: "1".repeat(64),
        preparedBy: "fp-0123456789abcdef",
        prevHash: "0".repeat(64),
        rowHash: "9".repeat(64),
      });
      await wb.appendLog([linked]);
      await wb.updateLog([{ idempotencyKey: "k2", status: "filled", finalHash: "7".repeat(64) }]);
      const grid = logGrid(model);
      expect(grid[0].slice(older.length)).toEqual(["Batch hash", "Prepared by", "Approved by", "Prev hash", "Row hash", "Final hash"]);
      expect(grid[2][col("rowHash")]).toBe("9".repeat(64));
      expect(model.host.sheet(LOG_SHEET_NAME).cell(2, col("batchHash"))?.nf).toBe("@");
      expect(await wb.readLog()).toEqual([k1, { ...linked, status: "filled", finalHash: "7".repeat(64) }]);
    });

    it("finds a row again after the user sorts the log", async () => {
      const model = new ExcelModel();
      const wb = new OfficeWorkbook(model.excel);
      await wb.appendLog([journalled("k1"), journalled("k2"), journalled("k3")]);
      await wb.updateLog([{ idempotencyKey: "k3", status: "submitted" }]);
      // The user sorts the table descending by key.
      const sheet = model.host.sheet(LOG_SHEET_NAME);
      [sheet.rows[1], sheet.rows[3]] = [sheet.rows[3], sheet.rows[1]];
      await wb.updateLog([
        { idempotencyKey: "k3", status: "filled" },
        { idempotencyKey: "k1", status: "failed" },
      ]);
      expect((await wb.readLog()).map((r) => [r.idempotencyKey, r.status])).toEqual([
        ["k3", "filled"],
        ["k2", "submitting"],
        ["k1", "failed"],
      ]);
    });
  });

  describe("in chunks", () => {
    const many = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => journalled(`k${from + i}`, { clientReference: `R-${from + i}` }));

    it("appends, updates and reads across chunk boundaries, every row once and in order", async () => {
      const model = new ExcelModel();
      const wb = new OfficeWorkbook(model.excel, { limits: TINY });
      await wb.appendLog(many(10));
      await wb.appendLog(many(4, 10));
      const result = await wb.updateLog(
        many(14).map((r, i) => ({ idempotencyKey: r.idempotencyKey, status: i % 2 ? "filled" : "failed" })),
      );
      expect(result.missing).toEqual([]);
      const log = await wb.readLog();
      expect(log.map((r) => r.idempotencyKey)).toEqual(many(14).map((r) => r.idempotencyKey));
      expect(log.map((r) => r.status)).toEqual(many(14).map((_, i) => (i % 2 ? "filled" : "failed")));
      expect(log.map((r) => r.clientReference)).toEqual(many(14).map((r) => r.clientReference));
      expect(Math.max(...model.valueLoads.map((l) => l.rows))).toBeLessThanOrEqual(3);
    });

    it("answers a query from the query's columns, then reads only the matching rows", async () => {
      const model = new ExcelModel();
      const wb = new OfficeWorkbook(model.excel, { limits: TINY });
      const rows = many(12).map((r, i) => ({
        ...r,
        status: i === 4 || i === 9 ? "submitting" : "filled",
        loggedAt: i === 11 ? "2026-01-02T00:00:00.000Z" : "2025-03-04T05:06:07.000Z",
      }));
      await wb.appendLog(rows);
      model.valueLoads = [];
      const found = await wb.readLog({ statusNotIn: ["filled"], loggedSince: "2026-01-01T00:00:00Z", keys: ["k0"] });
      expect(found.map((r) => r.idempotencyKey)).toEqual(["k0", "k4", "k9", "k11"]);
      const wide = model.valueLoads.filter((l) => l.columns > 1);
      // The header row, then whole rows of the four matches only (a row wider than the first chunk's cells in column ranges).
      expect(wide.reduce((n, l) => n + l.rows * l.columns, 0)).toBe((1 + 4) * wide[0].columns);
      expect(model.valueLoads.filter((l) => l.columns === 1).every((l) => l.rows <= 3)).toBe(true);
      expect(await wb.readLog({})).toEqual([]);
    });
  });

  it("the log's last row, for the chain's next link: that one row read, whatever the log's size; none for a missing, new or blank-ended log", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel, { limits: TINY });
    expect(await wb.readLastLogRecord()).toBeNull();
    await wb.ensureLog();
    expect(await wb.readLastLogRecord()).toBeNull(); // the new table's one empty row
    const rows = Array.from({ length: 20 }, (_, i) => journalled(`k${i}`, { rowHash: `${i}`.padStart(64, "a") }));
    await wb.appendLog(rows);
    model.valueLoads = [];
    expect(await wb.readLastLogRecord()).toEqual(rows[19]);
    // The header row (the layout by name), then the last row (in column ranges, the chunks being tiny): one row at a time,
    // two rows' cells in all, never the key column nor any other row.
    expect(model.valueLoads.every((l) => l.rows === 1)).toBe(true);
    expect(model.valueLoads.reduce((n, l) => n + l.columns, 0)).toBe(2 * LOG_COLUMNS.length);
    // A row typed in by hand with only a Row hash is still the last row (the journal judges it); a blank one is none.
    await wb.appendLog([{ ...journalled(""), status: "", rowHash: "f".repeat(64) }]);
    expect((await wb.readLastLogRecord())?.rowHash).toBe("f".repeat(64));
    await wb.appendLog([{ ...journalled(""), status: "" }]);
    expect(await wb.readLastLogRecord()).toBeNull();
    const memory = new MemoryWorkbook();
    expect(await memory.readLastLogRecord()).toBeNull();
    await memory.appendLog(rows);
    expect(await memory.readLastLogRecord()).toEqual(rows[19]);
  });

  it("brings the log sheet to the front", async () => {
    const model = new ExcelModel();
    model.addSheet("Sheet1");
    await new OfficeWorkbook(model.excel).showLog();
    expect(model.host.active).toBe(LOG_SHEET_NAME);
  });
});
