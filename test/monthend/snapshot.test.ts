// Snapshot to values through the Office.js adapter (office-addin-mock): HEDGE.* formulas become values with a note, spills whole, and nothing else changes.
import { officeSnapshotter } from "../../src/excel/snapshot";
import { FakeExcel, FakeSheet } from "./fake-excel";

const g = globalThis as unknown as { Excel: unknown; Office: unknown };
const AT = new Date("2026-11-30T17:00:00Z");

function desk(): FakeSheet {
  return new FakeSheet("Desk")
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

function install(fake: FakeExcel) {
  g.Excel = fake.excel;
  g.Office = fake.office;
}

describe("officeSnapshotter on the whole active sheet", () => {
  it("replaces each HEDGE.* formula by its value and a spill by its block, adds a note, and leaves everything else", async () => {
    const sheet = desk();
    sheet.notes.set("A2", "checked by AB");
    const fake = new FakeExcel({ sheets: [sheet] });
    install(fake);
    const before = new Map([...sheet.cells].map(([k, c]) => [k, { ...c }]));

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
    expect(sheet.cell(0, 4).formula).toMatch(/^=HEDGE.QUOTE/);

    // Values now, no formulas, no spill.
    expect([sheet.cell(0, 1).value, sheet.cell(0, 1).formula]).toEqual([1502.35, undefined]);
    expect([sheet.cell(1, 0).value, sheet.cell(1, 0).formula]).toEqual([7, undefined]);
    expect(sheet.spills.size).toBe(0);
    expect(
      sheet
        .grid()
        .slice(3, 6)
        .map((r) => r.slice(0, 3)),
    ).toEqual([
      ["market", "side", "size_usd"],
      ["USDTNGN", "buy", 100000],
      ["USDTNGN", "sell", 50000],
    ]);
    for (let r = 3; r <= 5; r++) for (let c = 0; c <= 2; c++) expect(sheet.cell(r, c).formula).toBeUndefined();

    // Notes say what and when; an existing note keeps its text.
    expect(sheet.notes.get("B1")).toBe('HEDGE.PRICE("USDTNGN") snapshot at 2026-11-30 17:00 UTC');
    expect(sheet.notes.get("A4")).toBe("HEDGE.POSITIONS() snapshot at 2026-11-30 17:00 UTC");
    expect(sheet.notes.get("A2")).toBe('checked by AB\nSUM(HEDGE.CAPACITY("USDTNGN","buy"),0) snapshot at 2026-11-30 17:00 UTC');

    // Everything else is as it was.
    for (const key of ["0,0", "0,2", "0,3", "0,4"]) expect(sheet.cells.get(key)).toEqual(before.get(key));
  });

  it("falls back to comments on Excel without notes (ExcelApi 1.10), replying under an existing comment", async () => {
    const sheet = desk();
    sheet.comments.set("B1", { content: "source: desk", replies: [] });
    const fake = new FakeExcel({ sheets: [sheet], apiSets: ["1.10", "1.12"] });
    install(fake);
    const result = await officeSnapshotter().snapshot("sheet", AT);
    expect(result.marker).toBe("comment");
    expect(sheet.comments.get("B1")).toEqual({
      content: "source: desk",
      replies: ['HEDGE.PRICE("USDTNGN") snapshot at 2026-11-30 17:00 UTC'],
    });
    expect(sheet.comments.get("A4")?.content).toBe("HEDGE.POSITIONS() snapshot at 2026-11-30 17:00 UTC");
    expect(sheet.notes.size).toBe(0);
  });

  it("does nothing on a sheet without HEDGE formulas", async () => {
    const sheet = new FakeSheet("Plain").set("A1", 1).set("A2", 2, "=A1+1");
    const fake = new FakeExcel({ sheets: [sheet] });
    install(fake);
    const result = await officeSnapshotter().snapshot("sheet", AT);
    expect(result).toMatchObject({ replaced: [], skipped: [], cells: 0 });
    expect(sheet.cell(1, 0).formula).toBe("=A1+1");
    // Only the formula cell was read, never the whole used range.
    expect(fake.formulaLoads).toEqual([{ rows: 1, columns: 1 }]);
  });
});

describe("officeSnapshotter on the selection", () => {
  it("replaces only the formulas inside it; a spill whose formula is inside is replaced whole", async () => {
    const sheet = desk();
    const fake = new FakeExcel({ sheets: [sheet], selection: "A2:A4" });
    install(fake);
    const result = await officeSnapshotter().snapshot("selection", AT);
    expect(result.replaced.map((r) => r.address)).toEqual(["Desk!A2", "Desk!A4"]);
    expect(sheet.cell(0, 1).formula).toBe('=HEDGE.PRICE("USDTNGN")'); // outside the selection
    expect([sheet.cell(5, 2).value, sheet.cell(5, 2).formula]).toEqual([50000, undefined]); // the spill's far corner, outside the selection
  });

  it("looks only at the used part of a selection of whole columns", async () => {
    const sheet = desk();
    const fake = new FakeExcel({ sheets: [sheet], selection: "B1:B1048576" });
    install(fake);
    const result = await officeSnapshotter().snapshot("selection", AT);
    expect(result.address).toBe("Desk!B1:B6");
    expect(result.replaced.map((r) => r.address)).toEqual(["Desk!B1"]);
  });

  it("asks for one block when the selection has several areas", async () => {
    const fake = new FakeExcel({ sheets: [desk()], selection: "multi" });
    install(fake);
    await expect(officeSnapshotter().snapshot("selection", AT)).rejects.toThrow(/one block of cells/);
  });
});

describe("officeSnapshotter at scale and with text", () => {
  /** A column of HEDGE.PRICE formulas (rows 1…n of column B), values beside them, and nothing else. */
  function prices(n: number): FakeSheet {
    const sheet = new FakeSheet("Prices");
    for (let r = 1; r <= n; r++) sheet.set(`A${r}`, `deal ${r}`).set(`B${r}`, 1500 + r, '=HEDGE.PRICE("USDTNGN")');
    return sheet;
  }

  it("keeps text as text: references that look like numbers, dates or formulas stay exactly as the service sent them", async () => {
    const refs = ["00123", "2026-11", "1-2", '=HYPERLINK("http://x")', "+1+1", "-1+1", "@SUM(1)", "\t=1+1", "TRUE", "12%"];
    const sheet = new FakeSheet("Hedges").spill("A1", "=HEDGE.HEDGES()", [
      ["client_reference", "notional_usd"],
      ...refs.map((r, i) => [r, 1000 * (i + 1)]),
    ]);
    sheet.cells.set("1,1", { ...sheet.cells.get("1,1")!, format: "#,##0.00" });
    const fake = new FakeExcel({ sheets: [sheet] });
    install(fake);
    const result = await officeSnapshotter().snapshot("sheet", AT);
    expect(result.cells).toBe(22);
    refs.forEach((ref, i) => {
      expect(sheet.cell(i + 1, 0)).toEqual({ value: ref, formula: undefined, format: "@" });
    });
    expect(sheet.cell(1, 1)).toEqual({ value: 1000, formula: undefined, format: "#,##0.00" }); // a number keeps the cell's format
    expect(sheet.cell(0, 0).value).toBe("client_reference");
  });

  it("reads only the formula cells, in chunks, and writes in chunks", async () => {
    const sheet = prices(40);
    const fake = new FakeExcel({ sheets: [sheet] });
    install(fake);
    const result = await officeSnapshotter({ chunks: { budgetBytes: 2_000, maxRows: 10, maxCells: 100 } }).snapshot("sheet", AT);
    expect(result.replaced).toHaveLength(40);
    expect(fake.specialCellReads).toBe(1);
    expect(fake.formulaLoads.every((l) => l.columns === 1)).toBe(true); // never column A's values
    expect(fake.formulaLoads.reduce((n, l) => n + l.rows, 0)).toBe(40);
    expect(fake.syncs).toBeGreaterThan(6); // the writes went in several syncs
    for (let r = 0; r < 40; r++) expect([sheet.cell(r, 1).value, sheet.cell(r, 1).formula]).toEqual([1501 + r, undefined]);
  });

  it("refuses a scope too large before changing anything, and says how to split it", async () => {
    const sheet = prices(5);
    const fake = new FakeExcel({ sheets: [sheet] });
    install(fake);
    await expect(officeSnapshotter({ limits: { hedgeFormulas: 4 } }).snapshot("sheet", AT)).rejects.toThrow(
      "Prices is too large to snapshot in one go: it holds 5 HEDGE formulas, more than the 4 one snapshot replaces. Nothing was changed. " +
        "Select a part of the sheet and snapshot the selection, then the next part.",
    );
    for (let r = 0; r < 5; r++) expect(sheet.cell(r, 1).formula).toBe('=HEDGE.PRICE("USDTNGN")');
    expect(sheet.notes.size).toBe(0);
  });

  it("says how far it got when Excel refuses a write part-way, and a second run finishes the rest", async () => {
    const small = { budgetBytes: 1_500, maxRows: 10, maxCells: 100 };
    // A first run on a copy counts the syncs; the real one fails at the one before last (a write).
    const probe = new FakeExcel({ sheets: [prices(30)] });
    install(probe);
    await officeSnapshotter({ chunks: small }).snapshot("sheet", AT);
    const sheet = prices(30);
    const fake = new FakeExcel({ sheets: [sheet] });
    install(fake);
    fake.failAtSync = probe.syncs - 1;
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
    const left = [...Array(30).keys()].filter((r) => sheet.cell(r, 1).formula !== undefined);
    expect(left).toHaveLength(30 - done);
    fake.failAtSync = null;
    const second = await officeSnapshotter({ chunks: small }).snapshot("sheet", AT);
    expect(second.replaced).toHaveLength(30 - done);
    for (let r = 0; r < 30; r++) expect(sheet.cell(r, 1).formula).toBeUndefined();
  });
});
