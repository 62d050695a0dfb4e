// One safe cell writer: every string the add-in writes lands in a text-formatted cell ("@", set before the value), so nothing it writes is read as a formula, a number or a date.
import type { CellValue } from "../trading/cells";

/** Excel's Text number format: a cell so formatted keeps what is written as typed (no formula, no number, no date). */
const TEXT_FORMAT = "@";

/** A number format over a block of cells; rows and columns are 0-based and relative to the block's top-left cell. */
interface FormatRun {
  row: number;
  column: number;
  rows: number;
  columns: number;
  format: string;
}

const isText = (v: CellValue | undefined): boolean => typeof v === "string" && v !== "";

/**
 * The one rule, as number formats to set before the values. Each column gets its format once (`formats[c]`; null leaves
 * the cells' own formats, e.g. a user's sheet). Every non-empty string is text: a column holding only strings gets "@" as
 * its format, otherwise each run of string cells gets "@" on top of the column's format. So `=`, `+`, `-`, `@`, a tab or a
 * CR at the start is never evaluated, and "00123" or "2026-11" stays text; numbers, booleans and dates keep the column's format.
 */
export function formatRuns(values: readonly (readonly CellValue[])[], formats: readonly (string | null)[]): FormatRun[] {
  const rows = values.length;
  const runs: FormatRun[] = [];
  if (rows === 0) return runs;
  for (let c = 0; c < formats.length; c++) {
    const format = formats[c];
    let strings = 0;
    let others = 0;
    for (let r = 0; r < rows; r++) {
      const v = values[r][c];
      if (isText(v)) strings++;
      else if (v !== "" && v !== null && v !== undefined) others++;
    }
    if (strings > 0 && others === 0 && (format !== null || strings === rows)) {
      runs.push({ row: 0, column: c, rows, columns: 1, format: TEXT_FORMAT });
      continue;
    }
    if (format !== null) runs.push({ row: 0, column: c, rows, columns: 1, format });
    if (strings === 0 || format === TEXT_FORMAT) continue;
    for (let r = 0; r < rows;) {
      if (!isText(values[r][c])) {
        r++;
        continue;
      }
      const start = r;
      while (r < rows && isText(values[r][c])) r++;
      runs.push({ row: start, column: c, rows: r - start, columns: 1, format: TEXT_FORMAT });
    }
  }
  return runs;
}

/** Values as Office.js takes them: an empty cell is "" (null would mean "leave this cell as it is"). */
export function plainValues(values: readonly (readonly CellValue[])[]): Array<Array<string | number | boolean>> {
  return values.map((row) => row.map((v) => (v === null || v === undefined ? "" : v)));
}

/**
 * Queues a safe write of a block at (`top`, `left`) of a sheet: the formats of the rule first, then the values, in one
 * batch (Office.js applies them in order at the next sync). A single format is assigned to a whole column range at once
 * (Office.js applies a single value to every cell of the range), so formats cost one assignment per column, not per cell.
 */
export function queueSafeWrite(
  sheet: Excel.Worksheet,
  top: number,
  left: number,
  values: readonly (readonly CellValue[])[],
  formats: readonly (string | null)[],
): void {
  const rows = values.length;
  const columns = values[0]?.length ?? 0;
  if (rows === 0 || columns === 0) return;
  // Write-only proxies: untracked at once, so Excel keeps no reference to any of them.
  for (const run of formatRuns(values, formats)) {
    const range = sheet.getRangeByIndexes(top + run.row, left + run.column, run.rows, run.columns).untrack();
    range.numberFormat = (run.rows === 1 && run.columns === 1 ? [[run.format]] : run.format) as unknown as string[][];
  }
  sheet.getRangeByIndexes(top, left, rows, columns).untrack().values = plainValues(values);
}

/** The rule over formats given per cell: each non-empty string's cell is text ("@"); every other cell keeps the format given. */
export function safeCellFormats(values: readonly (readonly CellValue[])[], formats: readonly (readonly string[])[]): string[][] {
  return values.map((row, r) => row.map((v, c) => (isText(v) ? TEXT_FORMAT : formats[r][c])));
}

/** Queues a safe write of a block whose formats are given per cell (a sheet of several sections): formats first, then values. */
export function queueSafeCells(
  sheet: Excel.Worksheet,
  top: number,
  left: number,
  values: readonly (readonly CellValue[])[],
  formats: readonly (readonly string[])[],
): void {
  const rows = values.length;
  const columns = values[0]?.length ?? 0;
  if (rows === 0 || columns === 0) return;
  const range = sheet.getRangeByIndexes(top, left, rows, columns).untrack();
  range.numberFormat = safeCellFormats(values, formats);
  range.values = plainValues(values);
}
