// Writes a reconciliation sheet ("Hedge Recon YYYY-MM") as plain values with number formats, bold headers and column widths: through Excel.run, or into memory.
import { uniqueSheetName } from "../monthend/month";
import { checkContent, type CellValue, type SheetContent, type SheetWriter, type WrittenSheet } from "../trading/sheet-content";
import type { MemoryWorkbook } from "./memory-workbook";
import { plainValues, queueSafeCells, safeCellFormats } from "./safe-cells";

/** Rows written per sync: a recon row is at most 15 cells, so 1,000 rows stay far under the 1 MiB a sync may carry. */
const ROWS_PER_WRITE = 1_000;

type Runner = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

/** The Office.js writer. `run` defaults to Excel.run. One sync to read the sheet names, one per block of rows, one to finish. */
export function officeSheetWriter(run: Runner = (batch) => Excel.run(batch)): SheetWriter {
  return {
    async writeSheet(content: SheetContent): Promise<WrittenSheet> {
      checkContent(content);
      return run(async (context) => {
        const sheets = context.workbook.worksheets;
        sheets.load("items/name");
        await context.sync();
        const name = uniqueSheetName(
          content.name,
          sheets.items.map((s) => s.name),
        );
        const sheet = sheets.add(name);
        const rows = content.values.length;
        const columns = content.columnWidths.length;
        try {
          for (let top = 0; top < rows; top += ROWS_PER_WRITE) {
            const count = Math.min(ROWS_PER_WRITE, rows - top);
            // The one safe rule: formats first, every string as text, so "00123", "2026-11" or "=…" stays as written.
            queueSafeCells(sheet, top, 0, content.values.slice(top, top + count), content.formats.slice(top, top + count));
            await context.sync();
          }
          for (const r of content.boldRows) sheet.getRangeByIndexes(r, 0, 1, columns).untrack().format.font.bold = true;
          content.columnWidths.forEach((width, c) => {
            sheet.getRangeByIndexes(0, c, 1, 1).untrack().format.columnWidth = width;
          });
          sheet.activate();
          await context.sync();
        } catch (e) {
          // A write Excel refused part-way: the half-written sheet is taken away, so a failed run leaves the workbook as
          // it was (and the next run gets this name, not "(2)").
          try {
            sheet.delete();
            await context.sync();
          } catch {
            // The sheet's add went with the refused request: there is nothing to take away.
          }
          throw e;
        }
        return { name, rows, columns };
      });
    },
  };
}

interface MemorySheet {
  values: CellValue[][];
  formats: string[][];
  columnWidths: number[];
  boldRows: number[];
}

/**
 * The in-memory writer: keeps what it wrote (values, formats, widths, bold rows) by sheet name. Given a MemoryWorkbook,
 * it also adds the values there as a sheet, so names are unique across the workbook and the sheet shows where the workbook is shown.
 */
export class MemorySheetWriter implements SheetWriter {
  readonly sheets = new Map<string, MemorySheet>();

  constructor(private readonly workbook?: MemoryWorkbook) {}

  async writeSheet(content: SheetContent): Promise<WrittenSheet> {
    checkContent(content);
    const existing = [...this.sheets.keys(), ...(this.workbook?.sheetNames() ?? [])];
    const name = uniqueSheetName(content.name, existing);
    const values = plainValues(content.values) as CellValue[][];
    const formats = safeCellFormats(content.values, content.formats);
    this.sheets.set(name, { values, formats, columnWidths: [...content.columnWidths], boldRows: [...content.boldRows] });
    if (this.workbook) {
      this.workbook.setSheet(name, []);
      this.workbook.writeSafeCells(name, 0, 0, content.values, content.formats);
    }
    return { name, rows: values.length, columns: content.columnWidths.length };
  }
}
