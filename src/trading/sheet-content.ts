// A sheet as plain content (values, a number format per cell, column widths, bold rows) and the SheetWriter port that puts it into a workbook: month end writes its recon and the pane its Hedge Proposal through it (src/excel/recon-sheet.ts implements it).
import type { CellValue } from "./cells";

export type { CellValue };

export const FORMATS = {
  text: "@",
  usd: "#,##0.00",
  rate: "#,##0.0000",
  date: "yyyy-mm-dd hh:mm:ss",
  count: "0",
  general: "General",
} as const;

export interface SheetSection {
  title: string;
  /** 0-based rows, inclusive: the title row to the section's last row. */
  firstRow: number;
  lastRow: number;
}

/** What to write: every array has the same shape (rows × columns), values are plain (never formulas). */
export interface SheetContent {
  /** The wanted sheet name; the writer adds " (2)" and so on when it is taken. */
  name: string;
  values: CellValue[][];
  formats: string[][];
  /** Width per column in points. */
  columnWidths: number[];
  /** 0-based rows shown bold (section titles and column headers). */
  boldRows: number[];
  sections: SheetSection[];
}

export interface WrittenSheet {
  /** The name the sheet got. */
  name: string;
  rows: number;
  columns: number;
}

/** Writes a new sheet from plain content. Implementations: officeSheetWriter (Excel.run) and MemorySheetWriter, in src/excel/recon-sheet.ts. */
export interface SheetWriter {
  /** Adds a new sheet (never replacing one: a taken name gets " (2)"), writes the content as values, activates it. */
  writeSheet(content: SheetContent): Promise<WrittenSheet>;
}

/** Checks the content is rectangular (values, formats and widths agree), before anything is written. */
export function checkContent(content: SheetContent): void {
  const columns = content.columnWidths.length;
  if (content.values.length !== content.formats.length)
    throw new RangeError(`Sheet ${content.name}: ${content.values.length} rows of values but ${content.formats.length} rows of formats.`);
  content.values.forEach((row, r) => {
    if (row.length !== columns || content.formats[r].length !== columns) {
      throw new RangeError(
        `Sheet ${content.name}: row ${r + 1} has ${row.length} values and ${content.formats[r].length} formats; every row needs ${columns}.`,
      );
    }
  });
}
