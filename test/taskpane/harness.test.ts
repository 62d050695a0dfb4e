// window.hedgeHarness tells text from formula: formats(sheet) and formulas(sheet) show what the memory workbook keeps of each cell, so a black-box test sees that a log or recon cell holding "=1+1" is text.
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { FORMATS } from "../../src/trading/sheet-content";
import { LOG_HEADERS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import { createHarness } from "../../src/taskpane/harness";
import { journalled } from "../support/builders";

const FORMULA_TEXT = "=1+1";

describe("window.hedgeHarness: formats and formulas", () => {
  it("a log row's client reference of =1+1 stays text: a text format and no formula", async () => {
    const { api } = createHarness();
    await api.appendLog([journalled("k-formula", { clientReference: FORMULA_TEXT })]);
    const cells = api.cells(LOG_SHEET_NAME);
    const column = LOG_HEADERS.indexOf("Client reference" as (typeof LOG_HEADERS)[number]);
    expect(column).toBeGreaterThanOrEqual(0);
    expect(cells[1][column]).toBe(FORMULA_TEXT);
    expect(api.formats(LOG_SHEET_NAME)[1][column]).toBe("@");
    expect(
      api
        .formulas(LOG_SHEET_NAME)
        .flat()
        .filter((f) => f !== null),
    ).toEqual([]);
    // The same shape as cells(), so a test can look at a cell by the same indexes.
    expect(api.formats(LOG_SHEET_NAME).map((r) => r.length)).toEqual(cells.map((r) => r.length));
  });

  it("a recon sheet cell of =1+1 stays text", async () => {
    const { api, workbook } = createHarness();
    const written = await new MemorySheetWriter(workbook).writeSheet({
      name: "Hedge Recon 2026-11",
      values: [
        ["Client reference", "Net P&L (USD)"],
        [FORMULA_TEXT, 12.5],
      ],
      formats: [
        [FORMATS.text, FORMATS.text],
        [FORMATS.text, FORMATS.usd],
      ],
      columnWidths: [90, 90],
      boldRows: [0],
      sections: [],
    });
    expect(api.cells(written.name)[1][0]).toBe(FORMULA_TEXT);
    expect(api.formulas(written.name)[1]).toEqual([null, null]);
    expect(api.formats(written.name)[1]).toEqual(["@", FORMATS.usd]);
  });

  it("shows the formula Excel makes of =1+1 written into a General cell, and General where nothing was set", () => {
    const { api, workbook } = createHarness();
    api.setSheet("Scratch", [["a", "b"]]);
    workbook.writeRaw("Scratch", 1, 0, [[FORMULA_TEXT, "plain"]]);
    expect(api.formulas("Scratch")).toEqual([
      [null, null],
      [FORMULA_TEXT, null],
    ]);
    expect(api.formats("Scratch")[1]).toEqual(["General", "General"]);
  });
});
