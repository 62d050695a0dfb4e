// Which rows a selection trades, as plain logic over what Excel reports (the selected areas, the tables they touch, the used range): the header row and the rows to read, or a clear refusal.
import type { RowSpan } from "./chunks";

/** A rectangle of cells, 0-based and inclusive. */
export interface CellRect {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export interface TableFacts {
  name: string;
  /** The whole table, header row included (and its totals row, when shown). */
  rect: CellRect;
  /** The table shows a totals row (its last row): sums, not a row to trade, so never read as one. */
  totalsRow?: boolean;
}

interface SelectionPlan {
  /** The table the rows come from, or null for rows under the used range's first row. */
  tableName: string | null;
  /** 0-based sheet row of the header. */
  headerRow: number;
  left: number;
  right: number;
  /** The data rows the selection holds (0-based sheet rows, sorted, merged); hidden ones are dropped later. */
  spans: RowSpan[];
}

function intersects(a: CellRect, b: CellRect): boolean {
  return a.left <= b.right && b.left <= a.right && a.top <= b.bottom && b.top <= a.bottom;
}

/** Column letters of a 0-based index ("A", "AA"). */
export function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A sheet name as Excel writes it in an address: quoted when it holds anything but letters, digits and underscores. */
export function quoteSheet(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;
}

/** "Sheet!A2:E4,A7:E9" for the given rows of a column range ("Sheet!A2" for one cell). */
export function spansAddress(sheetName: string, spans: readonly RowSpan[], left: number, right: number): string {
  const cell = (r: number, c: number) => `${columnLetters(c)}${r + 1}`;
  const parts = spans.map((s) => {
    const a = cell(s.start, left);
    const b = cell(s.start + s.count - 1, right);
    return a === b ? a : `${a}:${b}`;
  });
  return `${quoteSheet(sheetName)}!${parts.join(",")}`;
}

/**
 * The plan. Inside a table, the table's header and only the table rows the selection covers (the table is intersected,
 * never taken whole; its totals row is not a row). Outside tables, the used range's first row is the header and the selected rows under it across the
 * used range's columns. A selection of several areas (Ctrl-click) is read area by area when every area sits under the same
 * header (the same table, or all outside tables); areas under different headers are refused, since their columns need not
 * mean the same.
 */
export function planSelection(
  sheetName: string,
  areas: readonly CellRect[],
  tables: readonly TableFacts[],
  used: CellRect | null,
): SelectionPlan {
  if (areas.length === 0) throw new Error("Nothing is selected: select the rows to trade (or cells of them).");
  const touched = areas.map((area) => tables.filter((t) => intersects(t.rect, area)));
  const twoTables = touched.find((ts) => ts.length > 1);
  if (twoTables) {
    throw new Error(`The selection spans the tables ${twoTables.map((t) => t.name).join(" and ")}: select rows of one table at a time.`);
  }
  const homes = new Set(touched.map((ts) => ts[0]?.name ?? null));
  if (homes.size > 1) {
    const names = [...homes].map((h) => (h === null ? "cells outside any table" : `table ${h}`));
    throw new Error(
      `The selection has ${areas.length} areas under different headers (${names.join(", ")}): select rows under one header at a time, ` +
        "or Ctrl-click rows of the same table (or of the same list) only.",
    );
  }
  const table = touched[0][0] ?? null;
  let headerRow: number;
  let left: number;
  let right: number;
  let bodyBottom: number;
  if (table) {
    ({ left, right } = table.rect);
    headerRow = table.rect.top;
    bodyBottom = table.rect.bottom - (table.totalsRow ? 1 : 0);
  } else {
    if (!used) throw new Error(`Sheet ${sheetName} is empty: select the rows to trade under a header row.`);
    ({ left, right } = used);
    headerRow = used.top;
    bodyBottom = used.bottom;
  }
  const rows: RowSpan[] = [];
  for (const area of areas) {
    const top = Math.max(area.top, headerRow + 1);
    const bottom = Math.min(area.bottom, bodyBottom);
    if (bottom >= top) rows.push({ start: top, count: bottom - top + 1 });
  }
  return { tableName: table?.name ?? null, headerRow, left, right, spans: mergeSpans(rows) };
}

/** Overlapping or touching spans merged, in row order. */
export function mergeSpans(spans: readonly RowSpan[]): RowSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: RowSpan[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.start + last.count) {
      last.count = Math.max(last.count, s.start + s.count - last.start);
    } else out.push({ ...s });
  }
  return out;
}

/** Rows the spans cover. */
export function spanRows(spans: readonly RowSpan[]): number {
  return spans.reduce((n, s) => n + s.count, 0);
}
