// A sheet's content is checked rectangular before anything is written: the refusal names the sheet, the row and the counts.
import { checkContent, type SheetContent } from "../../src/trading/sheet-content";

const content = (over: Partial<SheetContent>): SheetContent => ({
  name: "Recon 2026-11",
  values: [
    ["a", 1],
    ["b", 2],
  ],
  formats: [
    ["@", "0.00"],
    ["@", "0.00"],
  ],
  columnWidths: [80, 60],
  boldRows: [],
  sections: [],
  ...over,
});

describe("checkContent", () => {
  it("takes rectangular content", () => {
    expect(() => checkContent(content({}))).not.toThrow();
  });
  it("refuses values and formats of different row counts", () => {
    expect(() => checkContent(content({ formats: [["@", "0.00"]] }))).toThrow(
      new RangeError("Sheet Recon 2026-11: 2 rows of values but 1 rows of formats."),
    );
  });
  it("refuses a row of values or of formats not as wide as the columns", () => {
    expect(() => checkContent(content({ values: [["a", 1], ["b"]] }))).toThrow(
      /^Sheet Recon 2026-11: row 2 has 1 values and 2 formats; every row needs 2\.$/,
    );
    expect(() => checkContent(content({ formats: [["@", "0.00"], ["@"]] }))).toThrow(
      /row 2 has 2 values and 1 formats; every row needs 2\./,
    );
  });
});
