// The memory workbook behaves as the Office.js adapter does: visible rows of the selection only (filters, hidden rows), tables intersected, several areas, and the log kept by header name.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { LOG_SHEET_NAME, LOG_TABLE_NAME } from "../../src/trading/log/hedge-log";
import { FINAL_STATUSES } from "../../src/trading/types";
import type { CellValue } from "../../src/trading/cells";
import { journalled } from "../support/builders";

const book = () =>
  new MemoryWorkbook({
    sheets: {
      Deals: [
        ["Market", "Side", "Amount", "Desk"],
        ["USDTNGN", "buy", 1, "A"],
        ["USDTNGN", "sell", 2, "B"],
        ["USDTNGN", "buy", 3, "A"],
        ["USDTNGN", "sell", 4, "B"],
        ["USDTNGN", "buy", 5, "A"],
      ],
    },
  }).addTable("DealTable", "Deals", "A1:D6");
const amounts = (r: { rows: Array<{ rowNumber: number; values: CellValue[] }> }) => r.rows.map((x) => [x.rowNumber, x.values[2]]);

describe("MemoryWorkbook.readSelection", () => {
  it("reads only the table rows the selection covers", async () => {
    const wb = book().select("Deals", "C3");
    expect(amounts(await wb.readSelection())).toEqual([[3, 2]]);
    const header = await book().select("Deals", "A1:D1").readSelection();
    expect(header.rows).toEqual([]);
  });

  it("never reads a table's totals row as a row to trade", async () => {
    const wb = new MemoryWorkbook({
      sheets: {
        Deals: [
          ["Market", "Side", "Amount"],
          ["USDTNGN", "buy", 1],
          ["Total", "", 1],
        ],
      },
    })
      .addTable("DealTable", "Deals", "A1:C3", { totalsRow: true })
      .select("Deals", "1:3");
    expect(amounts(await wb.readSelection())).toEqual([[2, 1]]);
  });

  it("skips rows a table filter hides and rows the user hid, and counts them", async () => {
    const wb = book()
      .filterTable("DealTable", "Desk", (v) => v === "A")
      .hideRows("Deals", "6")
      .select("Deals", "A2:D6");
    const read = await wb.readSelection();
    expect(amounts(read)).toEqual([
      [2, 1],
      [4, 3],
    ]);
    expect(read.hiddenRowsSkipped).toBe(3);
    expect(read.address).toBe("Deals!A2:D2,A4:D4");
    wb.filterTable("DealTable", "Desk", null).hideRows("Deals", "6", false);
    expect((await wb.readSelection()).hiddenRowsSkipped).toBe(0);
  });

  it("reads Ctrl-click areas under one header area by area, and refuses areas under different headers", async () => {
    const wb = book().select("Deals", "C6,A2:B3,D3");
    expect(amounts(await wb.readSelection())).toEqual([
      [2, 1],
      [3, 2],
      [6, 5],
    ]);
    const mixed = book();
    mixed.setSheet("Deals", [...mixed.cells("Deals").map((r) => [...r, "", "Note"]), ["", "", "", "", "", "x"]]);
    mixed.select("Deals", "A2,F2");
    await expect(mixed.readSelection()).rejects.toThrow(/2 areas under different headers \(table DealTable, cells outside any table\)/);
  });
});

describe("MemoryWorkbook log by header name", () => {
  it("keeps reading and writing the right cells after the user inserts a column inside the log", async () => {
    const wb = new MemoryWorkbook();
    await wb.appendLog([journalled("k1"), journalled("k2")]);
    wb.insertColumns(LOG_SHEET_NAME, 2, 1, ["My notes"]);
    await wb.updateLog([{ idempotencyKey: "k2", status: "filled", hedgeId: "h-2" }]);
    await wb.appendLog([journalled("k3", { clientReference: "R-3" })]);
    const grid = wb.cells(LOG_SHEET_NAME);
    expect(grid[0][2]).toBe("My notes");
    expect(grid.slice(1).map((r) => r[2])).toEqual(["", "", ""]);
    expect((await wb.readLog()).map((r) => [r.idempotencyKey, r.status, r.hedgeId, r.clientReference])).toEqual([
      ["k1", "submitting", null, "DEAL-1"],
      ["k2", "filled", "h-2", "DEAL-1"],
      ["k3", "submitting", null, "R-3"],
    ]);
    expect(wb.table(LOG_TABLE_NAME)?.rect.right).toBe(grid[0].length - 1);
  });

  it("an archive moves the rows left behind up with their own formats: a Filled at cell of =1+1 stays text", async () => {
    const wb = new MemoryWorkbook();
    const old = (key: string) =>
      journalled(key, { status: "filled", loggedAt: "2024-05-01T00:00:00.000Z", filledAt: "2024-05-01T00:00:04.000Z" });
    await wb.appendLog([old("k1"), old("k2"), journalled("k3", { filledAt: "=1+1" })]);
    const column = wb.cells(LOG_SHEET_NAME)[0].indexOf("Filled at (UTC)");
    expect(column).toBeGreaterThanOrEqual(0);
    expect(wb.formats(LOG_SHEET_NAME)[1][column]).not.toBe("@"); // a time: the column's date format
    expect(wb.formats(LOG_SHEET_NAME)[3][column]).toBe("@");
    await wb.archiveLog({ before: "2025-01-01T00:00:00Z", finalStatuses: FINAL_STATUSES });
    expect(wb.cells(LOG_SHEET_NAME)[1][column]).toBe("=1+1");
    expect(wb.formats(LOG_SHEET_NAME)[1][column]).toBe("@");
    expect(
      wb
        .formulas(LOG_SHEET_NAME)
        .flat()
        .filter((f) => f !== null),
    ).toEqual([]);
    expect((await wb.readLog()).map((r) => r.idempotencyKey)).toEqual(["k1", "k2", "k3"]);
  });
});
