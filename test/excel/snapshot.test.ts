// Snapshot to values through the Office.js adapter (office-addin-mock): HEDGE.* formulas become values with a note, spills whole, and nothing else changes.
import { officeSnapshotter } from "../../src/excel/snapshot";
import { ExcelModel } from "./excel-model";
import type { WireSheet } from "./wire/wire-host";

const g = globalThis as unknown as { Excel: unknown; Office: unknown };
const AT = new Date("2026-11-30T17:00:00Z");

/** The model, installed as global Excel and Office (as the pane has them), with the Excel API sets given. */
function install(apiSets?: string[]): ExcelModel {
  const model = new ExcelModel();
  if (apiSets) model.apiSets = apiSets;
  g.Excel = model.excel;
  g.Office = model.office;
  return model;
}

function desk(model: ExcelModel): WireSheet {
  return model
    .addSheet("Desk")
    .set("A1", "Rate")
    .set("B1", 1502.35, '=HEDGE.PRICE("USDTNGN")')
    .set("C1", 3004.7, "=B1*2") // depends on a HEDGE cell but is not one: untouched
    .set("D1", "typed value")
    .set("A2", 7, '=SUM(HEDGE.CAPACITY("USDTNGN","buy"),0)')
    .spill("A4", "=HEDGE.POSITIONS()", [
      ["market", "side", "size_usd"],
      ["USDTNGN", "buy", 100000],
      ["USDTNGN", "sell", 50000],
    ])
    .set("E1", "#BUSY!", '=HEDGE.QUOTE("USDTNGN","buy",1000,7,"execution_price")');
}

describe("officeSnapshotter on the whole active sheet", () => {
  it("replaces each HEDGE.* formula by its value and a spill by its block, adds a note, and leaves everything else", async () => {
    const model = install();
    const sheet = desk(model);
    sheet.notes.set("A2", "checked by AB");
    const before = structuredClone(sheet.rows);

    const result = await officeSnapshotter().snapshot("sheet", AT);

    expect(result.marker).toBe("note");
    expect(result.replaced.map((r) => [r.address, r.rows, r.columns])).toEqual([
      ["Desk!B1", 1, 1],
      ["Desk!A2", 1, 1],
      ["Desk!A4", 3, 3],
    ]);
    expect(result.cells).toBe(11);
    // The busy quote is left as a formula and reported.
    expect(result.skipped).toEqual([expect.objectContaining({ address: "Desk!E1", reason: expect.stringMatching(/#BUSY!/) })]);
    expect(sheet.cell(0, 4)?.f).toMatch(/^=HEDGE.QUOTE/);

    // Values now, no formulas, no spill.
    expect([sheet.cell(0, 1)?.v, sheet.cell(0, 1)?.f]).toEqual([1502.35, undefined]);
    expect([sheet.cell(1, 0)?.v, sheet.cell(1, 0)?.f]).toEqual([7, undefined]);
    expect(sheet.spills.size).toBe(0);
    expect(
      model
        .grid("Desk")
        .slice(3, 6)
        .map((r) => r.slice(0, 3)),
    ).toEqual([
      ["market", "side", "size_usd"],
      ["USDTNGN", "buy", 100000],
      ["USDTNGN", "sell", 50000],
    ]);
    for (let r = 3; r <= 5; r++) for (let c = 0; c <= 2; c++) expect(sheet.cell(r, c)?.f).toBeUndefined();

    // Notes say what and when; an existing note keeps its text.
    expect(sheet.notes.get("B1")).toBe('HEDGE.PRICE("USDTNGN") snapshot at 2026-11-30 17:00 UTC');
    expect(sheet.notes.get("A4")).toBe("HEDGE.POSITIONS() snapshot at 2026-11-30 17:00 UTC");
    expect(sheet.notes.get("A2")).toBe('checked by AB\nSUM(HEDGE.CAPACITY("USDTNGN","buy"),0) snapshot at 2026-11-30 17:00 UTC');

    // Everything else is as it was.
    for (const c of [0, 2, 3, 4]) expect(sheet.cell(0, c)).toEqual(before[0][c]);
  });

  it("falls back to comments on Excel without notes (ExcelApi 1.10), replying under an existing comment", async () => {
    const sheet = desk(install(["1.10", "1.12"])).addComment("B1", "source: desk");
    const result = await officeSnapshotter().snapshot("sheet", AT);
    expect(result.marker).toBe("comment");
    expect(sheet.comment("B1")).toEqual({
      content: "source: desk",
      replies: ['HEDGE.PRICE("USDTNGN") snapshot at 2026-11-30 17:00 UTC'],
    });
    expect(sheet.comment("A4")?.content).toBe("HEDGE.POSITIONS() snapshot at 2026-11-30 17:00 UTC");
    expect(sheet.notes.size).toBe(0);
  });

  it("does nothing on a sheet without HEDGE formulas", async () => {
    const model = install();
    const sheet = model.addSheet("Plain").set("A1", 1).set("A2", 2, "=A1+1");
    const result = await officeSnapshotter().snapshot("sheet", AT);
    expect(result).toMatchObject({ replaced: [], skipped: [], cells: 0 });
    expect(sheet.cell(1, 0)?.f).toBe("=A1+1");
    // Only the formula cell was read, never the whole used range.
    expect(model.formulaLoads).toEqual([{ rows: 1, columns: 1 }]);
  });
});

describe("officeSnapshotter on the selection", () => {
  it("replaces only the formulas inside it; a spill whose formula is inside is replaced whole", async () => {
    const model = install();
    const sheet = desk(model);
    model.select("Desk", { top: 1, left: 0, rows: 3, cols: 1 }); // A2:A4
    const result = await officeSnapshotter().snapshot("selection", AT);
    expect(result.replaced.map((r) => r.address)).toEqual(["Desk!A2", "Desk!A4"]);
    expect(sheet.cell(0, 1)?.f).toBe('=HEDGE.PRICE("USDTNGN")'); // outside the selection
    expect([sheet.cell(5, 2)?.v, sheet.cell(5, 2)?.f]).toEqual([50000, undefined]); // the spill's far corner, outside the selection
  });

  it("looks only at the used part of a selection of whole columns", async () => {
    const model = install();
    desk(model);
    model.select("Desk", { top: 0, left: 1, rows: 1_048_576, cols: 1 }); // B1:B1048576
    const result = await officeSnapshotter().snapshot("selection", AT);
    expect(result.address).toBe("Desk!B1:B6");
    expect(result.replaced.map((r) => r.address)).toEqual(["Desk!B1"]);
  });

  it("asks for one block when the selection has several areas", async () => {
    const model = install();
    desk(model);
    model.select("Desk", { top: 0, left: 0, rows: 1, cols: 1 }, { top: 2, left: 2, rows: 1, cols: 1 }); // A1 and C3
    await expect(officeSnapshotter().snapshot("selection", AT)).rejects.toThrow(/one block of cells/);
  });
});

describe("officeSnapshotter at scale and with text", () => {
  /** A column of HEDGE.PRICE formulas (rows 1…n of column B), values beside them, and nothing else. */
  function prices(model: ExcelModel, n: number): WireSheet {
    const sheet = model.addSheet("Prices");
    for (let r = 1; r <= n; r++) sheet.set(`A${r}`, `deal ${r}`).set(`B${r}`, 1500 + r, '=HEDGE.PRICE("USDTNGN")');
    return sheet;
  }

  it("keeps text as text: references that look like numbers, dates or formulas stay exactly as the service sent them", async () => {
    const refs = ["00123", "2026-11", "1-2", '=HYPERLINK("http://x")', "+1+1", "-1+1", "@SUM(1)", "\t=1+1", "TRUE", "12%"];
    const sheet = install()
      .addSheet("Hedges")
      .spill("A1", "=HEDGE.HEDGES()", [["client_reference", "notional_usd"], ...refs.map((r, i) => [r, 1000 * (i + 1)])]);
    sheet.put(1, 1, { ...sheet.cell(1, 1)!, nf: "#,##0.00" });
    const result = await officeSnapshotter().snapshot("sheet", AT);
    expect(result.cells).toBe(22);
    refs.forEach((ref, i) => {
      expect(sheet.cell(i + 1, 0)).toEqual({ v: ref, f: undefined, nf: "@" });
    });
    expect(sheet.cell(1, 1)).toEqual({ v: 1000, f: undefined, nf: "#,##0.00" }); // a number keeps the cell's format
    expect(sheet.cell(0, 0)?.v).toBe("client_reference");
  });

  it("reads only the formula cells, in chunks, and writes in chunks", async () => {
    const model = install();
    // 40 formulas in column B with a typed value under each: 40 areas of one cell (Excel joins only adjacent cells).
    const sheet = model.addSheet("Prices");
    for (let i = 0; i < 40; i++)
      sheet
        .set(`A${2 * i + 1}`, `deal ${i}`)
        .set(`B${2 * i + 1}`, 1501 + i, '=HEDGE.PRICE("USDTNGN")')
        .set(`B${2 * i + 2}`, "typed");
    const result = await officeSnapshotter({ chunks: { budgetBytes: 2_000, maxRows: 10, maxCells: 100 } }).snapshot("sheet", AT);
    expect(result.replaced).toHaveLength(40);
    expect(model.specialCellReads).toBe(1);
    expect(model.formulaLoads.every((l) => l.columns === 1)).toBe(true); // never column A's values
    expect(model.formulaLoads.reduce((n, l) => n + l.rows, 0)).toBe(40); // never the typed cells between them
    expect(model.formulaLoads.length).toBeGreaterThan(1);
    expect(model.syncs).toBeGreaterThan(6); // the writes went in several syncs
    for (let i = 0; i < 40; i++) expect([sheet.cell(2 * i, 1)?.v, sheet.cell(2 * i, 1)?.f]).toEqual([1501 + i, undefined]);
  });

  it("refuses a scope too large before changing anything, and says how to split it", async () => {
    const sheet = prices(install(), 5);
    await expect(officeSnapshotter({ limits: { hedgeFormulas: 4 } }).snapshot("sheet", AT)).rejects.toThrow(
      "Prices is too large to snapshot in one go: it holds 5 HEDGE formulas, more than the 4 one snapshot replaces. Nothing was changed. " +
        "Select a part of the sheet and snapshot the selection, then the next part.",
    );
    for (let r = 0; r < 5; r++) expect(sheet.cell(r, 1)?.f).toBe('=HEDGE.PRICE("USDTNGN")');
    expect(sheet.notes.size).toBe(0);
  });

  it("says how far it got when Excel refuses a write part-way, and a second run finishes the rest", async () => {
    const small = { budgetBytes: 1_500, maxRows: 10, maxCells: 100 };
    // A first run on a copy counts the syncs; the real one fails at the one before last (a write).
    const probe = install();
    prices(probe, 30);
    await officeSnapshotter({ chunks: small }).snapshot("sheet", AT);
    const model = install();
    const sheet = prices(model, 30);
    model.failAtSync = probe.syncs - 1;
    const failed = officeSnapshotter({ chunks: small }).snapshot("sheet", AT);
    await expect(failed).rejects.toThrow(
      /Snapshot stopped part-way: \d+ of 30 HEDGE formulas were replaced by their values \(the last one replaced: Prices!B\d+\); the other \d+ are still formulas\. Run Snapshot to values again to finish them\./,
    );
    const message = await failed.then(
      () => "",
      (e: Error) => e.message,
    );
    const done = Number(/: (\d+) of 30/.exec(message)![1]);
    expect(done).toBeGreaterThan(0);
    const left = [...Array(30).keys()].filter((r) => sheet.cell(r, 1)?.f !== undefined);
    expect(left).toHaveLength(30 - done);
    model.failAtSync = null;
    const second = await officeSnapshotter({ chunks: small }).snapshot("sheet", AT);
    expect(second.replaced).toHaveLength(30 - done);
    for (let r = 0; r < 30; r++) expect(sheet.cell(r, 1)?.f).toBeUndefined();
  });
});
