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
    expect(fake.syncs).toBe(1);
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
