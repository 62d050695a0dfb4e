// The recon sheet through the Office.js adapter (office-addin-mock) and in memory: plain values only, number formats, bold headers, widths, a new sheet each time.
import { officeSheetWriter, MemorySheetWriter } from "../../src/excel/recon-sheet";
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { fromExcelDate } from "../../src/trading/cells";
import { reconcile } from "../../src/monthend/reconcile";
import { reconContent } from "../../src/monthend/recon-layout";
import { FORMATS } from "../../src/trading/sheet-content";
import { closed, hedge, logRow, monthData, position } from "../support/builders";
import { ExcelModel } from "./excel-model";

const g = globalThis as unknown as { Excel: unknown };

/** The model with these sheets, installed as global Excel (officeSheetWriter's default runner). */
function install(...sheets: Array<[string, string[][]]>): ExcelModel {
  const model = new ExcelModel();
  for (const [name, grid] of sheets) model.addSheet(name, grid);
  g.Excel = model.excel;
  return model;
}

function sampleRecon() {
  return reconcile(
    monthData({
      history: [
        closed({ hedge_id: "h1", client_reference: '=HYPERLINK("x")', side: "buy", net_pnl_usd: 10.1 }),
        closed({ hedge_id: "h2", client_reference: "00123", side: "sell", closed_at: "2026-11-20T00:00:00Z", net_pnl_usd: 20.2 }),
      ],
      hedges: [hedge({ id: "h1", client_reference: '=HYPERLINK("x")' }), hedge({ id: "h2", client_reference: "00123", side: "sell" })],
      positions: [position()],
      log: [logRow({ hedgeId: "h1", clientReference: '=HYPERLINK("x")' }), logRow({ hedgeId: "zz", loggedAt: "2026-11-09T00:00:00Z" })],
    }),
  );
}

/** Row index of the first cell in column A equal to `text`. */
const rowOf = (grid: unknown[][], text: string) => grid.findIndex((r) => r[0] === text);

describe("officeSheetWriter (office-addin-mock)", () => {
  it("adds Hedge Recon YYYY-MM with the content as values, text kept as text, dates as serials, formats, bold rows and widths", async () => {
    const model = install(["Hedge Log", []]);
    const content = reconContent(sampleRecon());
    const written = await officeSheetWriter().writeSheet(content);

    expect(written).toEqual({ name: "Hedge Recon 2026-11", rows: content.values.length, columns: content.columnWidths.length });
    const sheet = model.host.sheet("Hedge Recon 2026-11");
    expect(model.host.active).toBe("Hedge Recon 2026-11");
    const grid = model.grid("Hedge Recon 2026-11");

    // Header block.
    expect(grid[0][0]).toBe("Hedge reconciliation 2026-11");
    expect(grid[rowOf(grid, "Environment")][1]).toBe("sandbox");
    expect(grid[rowOf(grid, "Account address")][1]).toBe("0xACCOUNT");
    expect(fromExcelDate(grid[rowOf(grid, "Period start (UTC)")][1] as number)).toBe("2026-11-01T00:00:00.000Z");
    expect(fromExcelDate(grid[rowOf(grid, "Generated at (UTC)")][1] as number)).toBe("2026-12-01T10:00:00.000Z");
    expect(grid[rowOf(grid, "Hedges closed in the period")][1]).toBe(2);
    expect(grid[rowOf(grid, "Differences")][1]).toBe(3);

    // No cell holds a formula: a client reference that looks like one is written as text.
    for (const row of sheet.rows) for (const cell of row ?? []) expect(cell?.f).toBeUndefined();
    const realizedHeader = rowOf(grid, "Closed at (UTC)");
    const refColumn = grid[realizedHeader].indexOf("Client reference");
    const refs = [grid[realizedHeader + 1][refColumn], grid[realizedHeader + 2][refColumn]];
    // Written exactly as the service sent them, into text cells: never a formula, never a number.
    expect(refs).toEqual(["00123", '=HYPERLINK("x")']);
    expect(sheet.cell(realizedHeader + 1, refColumn)?.nf).toBe(FORMATS.text);
    expect(sheet.cell(realizedHeader + 2, refColumn)?.nf).toBe(FORMATS.text);

    // Amounts are numbers with a money format; dates are serials with a date format; totals sum exactly.
    const netColumn = grid[realizedHeader].indexOf("Net P&L (USD)");
    expect(sheet.cell(realizedHeader + 1, netColumn)?.nf).toBe(FORMATS.usd);
    expect(sheet.cell(realizedHeader + 1, 0)?.nf).toBe(FORMATS.date);
    expect(fromExcelDate(grid[realizedHeader + 1][0] as number)).toBe("2026-11-20T00:00:00.000Z");
    const total = rowOf(grid, "Total (2)");
    expect(grid[total][netColumn]).toBe(30.3);
    expect(grid[rowOf(grid, "Total buy (1)")][netColumn]).toBe(10.1);
    expect(grid[rowOf(grid, "Total sell (1)")][netColumn]).toBe(20.2);

    // Differences: one row each (zz is unknown to the service, h2 has no log row, h1 closed with no close in the log).
    const diffHeader = rowOf(grid, "Difference");
    expect(grid.slice(diffHeader + 1, diffHeader + 4).map((r) => [r[0], r[1]])).toEqual([
      ["Log action unknown to the service", "zz"],
      ["Service hedge with no log row", "h2"],
      ["Status disagrees", "h1"],
    ]);

    expect(sheet.bold.has(0)).toBe(true);
    expect(sheet.bold.has(realizedHeader)).toBe(true);
    expect(sheet.bold.has(realizedHeader + 1)).toBe(false);
    expect(sheet.widths.get(0)).toBe(150);
    expect([...sheet.widths.keys()]).toHaveLength(content.columnWidths.length);
  });

  it("never replaces an existing recon sheet: the second run gets (2)", async () => {
    const model = install(["Hedge Recon 2026-11", [["my notes"]]]);
    const written = await officeSheetWriter().writeSheet(reconContent(sampleRecon()));
    expect(written.name).toBe("Hedge Recon 2026-11 (2)");
    expect(model.grid("Hedge Recon 2026-11")).toEqual([["my notes"]]);
  });

  it.each([2, 3])(
    "a request Excel refuses part-way (sync %i) takes the half-written sheet away: the next run gets the name",
    async (failing) => {
      const model = install(["Hedge Log", []]);
      model.failAtSync = failing;
      await expect(officeSheetWriter().writeSheet(reconContent(sampleRecon()))).rejects.toThrow(/GeneralException/);
      expect([...model.host.sheets.keys()]).toEqual(["Hedge Log"]);
      model.failAtSync = null;
      expect((await officeSheetWriter().writeSheet(reconContent(sampleRecon()))).name).toBe("Hedge Recon 2026-11");
    },
  );

  it("refuses content whose rows do not match, before touching the workbook", async () => {
    const model = install(["Sheet1", []]);
    const content = reconContent(sampleRecon());
    content.formats[3] = content.formats[3].slice(1);
    await expect(officeSheetWriter().writeSheet(content)).rejects.toThrow(/row 4 has/);
    expect([...model.host.sheets.keys()]).toEqual(["Sheet1"]);
    expect(model.syncs).toBe(0);
  });
});

describe("MemorySheetWriter", () => {
  it("writes the same values into a MemoryWorkbook, unique names included", async () => {
    const workbook = new MemoryWorkbook({ sheets: { "Hedge Recon 2026-11": [["x"]] } });
    const writer = new MemorySheetWriter(workbook);
    const content = reconContent(sampleRecon());
    const written = await writer.writeSheet(content);
    expect(written.name).toBe("Hedge Recon 2026-11 (2)");
    expect(workbook.cells(written.name)[0][0]).toBe("Hedge reconciliation 2026-11");
    expect(writer.sheets.get(written.name)?.formats).toEqual(content.formats);
  });
});
