// The Excel grid model of the memory workbook: sheets of cells with number formats, column widths, the formulas Excel would make of typed text, hidden rows and table filters, tables, a selection of one or more areas, document settings; what a test or the harness builds, changes and inspects.
import { toExcelDate, type CellValue } from "../trading/cells";
import { formatRuns, safeCellFormats } from "./safe-cells";
import { columnLetters, type CellRect } from "./selection-plan";

export interface MemoryTable {
  name: string;
  sheet: string;
  /** Header row included (and the totals row, when shown). */
  rect: CellRect;
  /** The table shows a totals row: its last row. */
  totalsRow?: boolean;
}

interface MemorySheet {
  cells: CellValue[][];
  /** Number format per column index (the log sets them per column). */
  columnFormats: Map<number, string>;
  /** Number formats set on single cells ("r,c"), over the column's. */
  cellFormats: Map<string, string>;
  columnWidths: Map<number, number>;
  /** Formulas Excel made of text written into a cell not formatted as text ("r,c" → the text): never the add-in's intent. */
  formulas: Map<string, string>;
  /** Rows hidden by the user (0-based). */
  hiddenRows: Set<number>;
  /** Rows a table filter hides, by table name. */
  filtered: Map<string, Set<number>>;
}

interface MemoryWorkbookInit {
  /** Sheets by name, each a grid of values starting at A1. */
  sheets?: Record<string, CellValue[][]>;
  /** Custom document properties as saved in the file (e.g. the workbook id of an earlier session). */
  customProperties?: Record<string, string>;
  /** The file's name, as Excel shows it (none: a new, never saved workbook). */
  name?: string;
}

/** Column letters → 0-based index ("A" → 0, "AA" → 26). */
export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** "B2:E9", "B2", "2:9" (whole rows) or "A:E" (whole columns) → a rectangle; whole rows/columns are clipped later. */
export function parseAddress(address: string): CellRect {
  const local = address.includes("!") ? address.slice(address.lastIndexOf("!") + 1) : address;
  const [a, b = a] = local.replace(/\$/g, "").toUpperCase().split(":");
  const corner = (ref: string) => {
    const m = /^([A-Z]*)(\d*)$/.exec(ref);
    if (!m || (m[1] === "" && m[2] === "")) throw new RangeError(`Not a cell address: ${address}`);
    return { col: m[1] === "" ? null : columnIndex(m[1]), row: m[2] === "" ? null : Number(m[2]) - 1 };
  };
  const p = corner(a);
  const q = corner(b);
  const MAX = 1_048_575;
  return {
    top: Math.min(p.row ?? 0, q.row ?? 0),
    bottom: Math.max(p.row ?? MAX, q.row ?? MAX),
    left: Math.min(p.col ?? 0, q.col ?? 0),
    right: Math.max(p.col ?? 16_383, q.col ?? 16_383),
  };
}

export function formatAddress(rect: CellRect): string {
  const tl = `${columnLetters(rect.left)}${rect.top + 1}`;
  const br = `${columnLetters(rect.right)}${rect.bottom + 1}`;
  return tl === br ? tl : `${tl}:${br}`;
}

/** What Excel keeps of a value written into a cell (a model of Excel reading typed text, used by this workbook and tests). */
interface StoredCell {
  value: CellValue;
  /** Set when Excel would have made a formula of it (the value is then the formula's result, here "#NAME?"). */
  formula?: string;
}

const NUMBER = /^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][+-]?\d+)?%?$/;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** A date Excel would see in typed text ("2026-11", "2026-11-30", "11/30/2026", "30-Nov", "1-2"), as a serial. */
function typedDate(text: string): number | null {
  const serial = (y: number, m: number, d: number) =>
    m >= 1 && m <= 12 && d >= 1 && d <= 31 ? toExcelDate(new Date(Date.UTC(y, m - 1, d)).toISOString()) : null;
  const year = new Date().getUTCFullYear();
  let m = /^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?$/.exec(text);
  if (m) return serial(Number(m[1]), Number(m[2]), Number(m[3] ?? 1));
  m = /^(\d{1,2})\/(\d{1,2})(?:\/(\d{2,4}))?$/.exec(text);
  if (m) return serial(m[3] ? Number(m[3].length === 2 ? `20${m[3]}` : m[3]) : year, Number(m[1]), Number(m[2]));
  m = /^(\d{1,2})-([a-z]{3})(?:-(\d{2,4}))?$/i.exec(text);
  if (m && MONTHS.includes(m[2].toLowerCase()))
    return serial(m[3] ? Number(m[3]) : year, MONTHS.indexOf(m[2].toLowerCase()) + 1, Number(m[1]));
  m = /^(\d{1,2})-(\d{1,2})$/.exec(text);
  if (m) return serial(year, Number(m[1]), Number(m[2]));
  return null;
}

/**
 * How Excel stores a value written into a cell with this number format. In a text cell ("@") everything stays as written.
 * Elsewhere text is read as the user's typing would be: "=…", "+…", "-…", "@…" (also after a leading tab or CR) become
 * formulas, "00123" or "1,234" a number, "2026-11" a date, "TRUE" a boolean.
 */
export function excelStores(value: CellValue, format: string | undefined): StoredCell {
  if (typeof value !== "string" || value === "" || format === "@") return { value };
  const lead = value.replace(/^[\t\r\n]+/, "");
  const trimmed = lead.trim();
  if (trimmed !== "" && NUMBER.test(trimmed) && /\d/.test(trimmed)) {
    const n = Number(trimmed.replace(/,/g, "").replace(/%$/, ""));
    if (Number.isFinite(n)) return { value: trimmed.endsWith("%") ? n / 100 : n };
  }
  if (/^[=+\-@]/.test(lead) && lead.length > 1) return { value: "#NAME?", formula: value };
  const date = typedDate(trimmed);
  if (date !== null) return { value: date };
  if (/^(true|false)$/i.test(trimmed)) return { value: trimmed.toLowerCase() === "true" };
  return { value };
}

const isEmpty = (v: CellValue | undefined) => v === null || v === undefined || v === "";
export const newSheet = (cells: CellValue[][] = []): MemorySheet => ({
  cells,
  columnFormats: new Map(),
  cellFormats: new Map(),
  columnWidths: new Map(),
  formulas: new Map(),
  hiddenRows: new Set(),
  filtered: new Map(),
});

/** The grid: what Excel keeps, with no Hedge Log rule (the Workbook adapter over it, `MemoryWorkbook`, adds those). */
export class MemoryGrid {
  protected readonly sheets = new Map<string, MemorySheet>();
  protected readonly tables = new Map<string, MemoryTable>();
  protected selection: { sheet: string; areas: CellRect[] } | null = null;
  protected active: string | null = null;
  private readonly listeners = new Set<() => void>();
  /** Document settings (Office.context.document.settings): saved inside the .xlsx. Only the workbook's rules go here (document-settings.ts), never a key; tests scan it. */
  readonly documentSettings = new Map<string, string>();
  /** Custom document properties, saved inside the .xlsx too. The engine writes one: the workbook's random id (not a secret). */
  readonly customProperties = new Map<string, string>();
  /** The file's name (null: never saved). */
  readonly name: string | null;

  constructor(init: MemoryWorkbookInit = {}) {
    for (const [name, grid] of Object.entries(init.sheets ?? {})) this.setSheet(name, grid);
    for (const [k, v] of Object.entries(init.customProperties ?? {})) this.customProperties.set(k, v);
    this.name = init.name ?? null;
  }

  // ---- building and inspecting ----

  /** Replaces a sheet's cells with a grid starting at A1 (values as given, as a paste of values would leave them). */
  setSheet(name: string, grid: CellValue[][]): this {
    this.sheets.set(name, newSheet(grid.map((r) => [...r])));
    this.active ??= name;
    this.changed();
    return this;
  }

  /** Makes an Excel table over `address` (header row included, and the totals row as its last row when `totalsRow`) of a sheet. */
  addTable(name: string, sheet: string, address: string, options: { totalsRow?: boolean } = {}): this {
    this.sheetOf(sheet);
    if ([...this.tables.keys()].some((n) => n.toLowerCase() === name.toLowerCase()))
      throw new Error(`A table named ${name} already exists.`);
    this.tables.set(name, { name, sheet, rect: parseAddress(address), totalsRow: options.totalsRow === true });
    return this;
  }

  /** Deletes a table's body rows as the user would (select them, Delete › Table Rows): 1-based sheet row numbers. */
  deleteRowsOf(tableName: string, rowNumbers: readonly number[]): this {
    const table = this.tables.get(tableName);
    if (!table) throw new Error(`No table named ${tableName}.`);
    this.deleteTableRows(
      table,
      rowNumbers.map((n) => n - 1),
    );
    return this;
  }

  /** Selects cells as the user would by dragging ("A3:E7", "3:7" for whole rows), or by Ctrl-clicking several areas ("A2:E3,A6:E6"). */
  select(sheet: string, address: string): this {
    this.sheetOf(sheet);
    this.selection = { sheet, areas: address.split(",").map((a) => parseAddress(a.trim())) };
    this.active = sheet;
    return this;
  }

  /** Hides rows as the user would (Home › Format › Hide rows): "5:7", "5" or 0-based indexes. */
  hideRows(sheet: string, rows: string | number[], hidden = true): this {
    const s = this.sheetOf(sheet);
    const list = typeof rows === "string" ? rowList(rows) : rows;
    for (const r of list) {
      if (hidden) s.hiddenRows.add(r);
      else s.hiddenRows.delete(r);
    }
    this.changed();
    return this;
  }

  /** Filters a table as its header's filter button does: body rows whose cell under `header` fails `keep` are hidden; null clears the filter. */
  filterTable(tableName: string, header: string, keep: ((value: CellValue) => boolean) | null): this {
    const table = this.tables.get(tableName);
    if (!table) throw new Error(`No table named ${tableName}.`);
    const sheet = this.sheetOf(table.sheet);
    const column = this.rowValues(sheet, table.rect.top, table.rect.left, table.rect.right).findIndex((h) => String(h).trim() === header);
    if (keep === null) sheet.filtered.delete(tableName);
    else {
      if (column < 0) throw new Error(`Table ${tableName} has no column ${header}.`);
      const hidden = new Set<number>();
      for (let r = table.rect.top + 1; r <= table.rect.bottom; r++)
        if (!keep(sheet.cells[r]?.[table.rect.left + column] ?? "")) hidden.add(r);
      sheet.filtered.set(tableName, hidden);
    }
    this.changed();
    return this;
  }

  /** Inserts empty columns before `column` (0-based), as the user would: cells move right, tables spanning it widen. */
  insertColumns(sheet: string, column: number, count = 1, headers: string[] = []): this {
    const s = this.sheetOf(sheet);
    for (const row of s.cells) if (row.length > column) row.splice(column, 0, ...Array.from({ length: count }, () => ""));
    const shift = <T>(map: Map<number, T>) => {
      const moved = [...map].map(([c, v]) => [c >= column ? c + count : c, v] as const);
      map.clear();
      for (const [c, v] of moved) map.set(c, v);
    };
    shift(s.columnFormats);
    shift(s.columnWidths);
    for (const t of this.tables.values()) {
      if (t.sheet !== sheet) continue;
      if (t.rect.left >= column) t.rect = { ...t.rect, left: t.rect.left + count, right: t.rect.right + count };
      else if (t.rect.right >= column) {
        t.rect = { ...t.rect, right: t.rect.right + count };
        headers.forEach((h, i) => setCell(s.cells, t.rect.top, column + i, h));
      }
    }
    this.changed();
    return this;
  }

  sheetNames(): string[] {
    return [...this.sheets.keys()];
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  table(name: string): MemoryTable | undefined {
    const t = this.tables.get(name);
    return t ? { ...t, rect: { ...t.rect } } : undefined;
  }

  get activeSheet(): string | null {
    return this.active;
  }

  /** A copy of a sheet's cells. */
  cells(sheet: string): CellValue[][] {
    return this.sheetOf(sheet).cells.map((r) => [...r]);
  }

  /** The formula Excel would have made of a cell's text (the add-in's rule means never: tests check it). */
  formulaAt(sheet: string, row: number, column: number): string | undefined {
    return this.sheetOf(sheet).formulas.get(`${row},${column}`);
  }

  /** A cell's number format ("General" when none). */
  formatAt(sheet: string, row: number, column: number): string {
    const s = this.sheetOf(sheet);
    return s.cellFormats.get(`${row},${column}`) ?? s.columnFormats.get(column) ?? "General";
  }

  /** Each cell's number format as this workbook keeps it (the cell's own, else its column's, else "General"), in the shape of `cells(sheet)`. */
  formats(sheet: string): string[][] {
    return this.cells(sheet).map((row, r) => row.map((_, c) => this.formatAt(sheet, r, c)));
  }

  /** Each cell's formula (what Excel made of text written into a cell not formatted as text), or null, in the shape of `cells(sheet)`. */
  formulas(sheet: string): Array<Array<string | null>> {
    return this.cells(sheet).map((row, r) => row.map((_, c) => this.formulaAt(sheet, r, c) ?? null));
  }

  /** Every non-empty cell of every sheet, plus document settings and custom properties: what a saved .xlsx would hold. */
  everything(): Array<{ where: string; value: string }> {
    const out: Array<{ where: string; value: string }> = [];
    for (const [name, sheet] of this.sheets) {
      sheet.cells.forEach((row, r) =>
        row.forEach((v, c) => {
          if (!isEmpty(v)) out.push({ where: `${name}!${columnLetters(c)}${r + 1}`, value: String(v) });
        }),
      );
      for (const [c, f] of sheet.columnFormats) out.push({ where: `${name} column ${columnLetters(c)} format`, value: f });
    }
    for (const t of this.tables.values()) out.push({ where: `table ${t.name}`, value: t.name });
    for (const [k, v] of this.documentSettings) out.push({ where: `document setting ${k}`, value: `${k}=${v}` });
    for (const [k, v] of this.customProperties) out.push({ where: `custom property ${k}`, value: `${k}=${v}` });
    return out;
  }

  columnFormat(sheet: string, column: number): string | undefined {
    return this.sheetOf(sheet).columnFormats.get(column);
  }

  columnWidth(sheet: string, column: number): number | undefined {
    return this.sheetOf(sheet).columnWidths.get(column);
  }

  /**
   * Writes values through the add-in's one safe rule (formats first, every string as text), then as Excel would store
   * them. `formats[c]` is column c's format, or null to leave the cells' own. For the recon sheet and tests.
   */
  writeSafe(sheet: string, top: number, left: number, values: CellValue[][], formats: readonly (string | null)[]): void {
    const s = this.sheetOf(sheet);
    for (const run of formatRuns(values, formats)) {
      for (let r = 0; r < run.rows; r++)
        for (let c = 0; c < run.columns; c++) s.cellFormats.set(`${top + run.row + r},${left + run.column + c}`, run.format);
    }
    this.writeAsExcel(s, top, left, values);
    this.changed();
  }

  /** writeSafe with formats given per cell (a sheet of several sections, such as the recon sheet). */
  writeSafeCells(sheet: string, top: number, left: number, values: CellValue[][], formats: readonly (readonly string[])[]): void {
    const s = this.sheetOf(sheet);
    safeCellFormats(values, formats).forEach((row, r) => row.forEach((f, c) => s.cellFormats.set(`${top + r},${left + c}`, f)));
    this.writeAsExcel(s, top, left, values);
    this.changed();
  }

  /** Writes values as Excel stores them, with no rule (what a careless writer would do): for tests showing what the rule prevents. */
  writeRaw(sheet: string, top: number, left: number, values: CellValue[][]): void {
    this.writeAsExcel(this.sheetOf(sheet), top, left, values);
    this.changed();
  }

  /** Called after every change (the e2e page re-renders the sheets with it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- for the adapter ----

  protected isHidden(sheet: MemorySheet, row: number): boolean {
    if (sheet.hiddenRows.has(row)) return true;
    for (const rows of sheet.filtered.values()) if (rows.has(row)) return true;
    return false;
  }

  private writeAsExcel(sheet: MemorySheet, top: number, left: number, values: CellValue[][]): void {
    values.forEach((row, i) =>
      row.forEach((v, j) => {
        const r = top + i;
        const c = left + j;
        const format = sheet.cellFormats.get(`${r},${c}`) ?? sheet.columnFormats.get(c);
        const stored = excelStores(v === null ? "" : v, format);
        setCell(sheet.cells, r, c, stored.value);
        if (stored.formula !== undefined) sheet.formulas.set(`${r},${c}`, stored.formula);
        else sheet.formulas.delete(`${r},${c}`);
      }),
    );
  }

  /** Deletes table rows (sheet rows) as Excel's delete Up does: the cells below, within the table's columns, move up with their formats and formulas. */
  protected deleteTableRows(table: MemoryTable, rows: readonly number[]): void {
    const sheet = this.sheetOf(table.sheet);
    const gone = new Set(rows);
    if (gone.size === 0) return;
    const first = Math.min(...gone);
    const inside = (c: number) => c >= table.rect.left && c <= table.rect.right;
    // Where each row from the first deleted one lands (null: deleted).
    const target: Array<number | null> = [];
    for (let r = first, removed = 0; r < sheet.cells.length; r++) {
      if (gone.has(r)) {
        removed++;
        target[r] = null;
      } else target[r] = r - removed;
    }
    const land = (r: number) => (r < first ? r : (target[r] ?? null));
    for (let c = table.rect.left; c <= table.rect.right; c++) {
      const column = sheet.cells.map((row) => row[c]);
      for (let r = first; r < sheet.cells.length; r++) if (sheet.cells[r] && sheet.cells[r].length > c) sheet.cells[r][c] = "";
      column.forEach((v, r) => {
        const to = r >= first ? land(r) : null;
        if (to !== null && v !== undefined) setCell(sheet.cells, to, c, v);
      });
    }
    for (const map of [sheet.cellFormats, sheet.formulas]) {
      const moved = [...map].map(([key, v]) => {
        const [r, c] = key.split(",").map(Number);
        return { key: inside(c) && r >= first ? (land(r) === null ? null : `${land(r)},${c}`) : key, v };
      });
      map.clear();
      for (const { key, v } of moved) if (key !== null) map.set(key, v);
    }
    table.rect = { ...table.rect, bottom: table.rect.bottom - gone.size };
  }

  protected sheetOf(name: string): MemorySheet {
    const sheet = this.sheets.get(name);
    if (!sheet) throw new Error(`No sheet named ${name}.`);
    return sheet;
  }

  protected rowValues(sheet: MemorySheet, row: number, left: number, right: number): CellValue[] {
    const out: CellValue[] = [];
    for (let c = left; c <= right; c++) {
      const v = sheet.cells[row]?.[c];
      out.push(v === undefined || v === null ? "" : v);
    }
    return out;
  }

  protected changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** "5:7" or "5" (1-based sheet rows) → 0-based indexes. */
function rowList(rows: string): number[] {
  const [a, b = a] = rows.split(":").map((x) => Number(x.trim()));
  const out: number[] = [];
  for (let r = Math.min(a, b); r <= Math.max(a, b); r++) out.push(r - 1);
  return out;
}

export function setCell(cells: CellValue[][], r: number, c: number, v: CellValue): void {
  while (cells.length <= r) cells.push([]);
  const row = cells[r];
  while (row.length <= c) row.push("");
  row[c] = v;
}

/** The smallest rectangle holding every non-empty cell, like Excel's getUsedRange(true). */
export function usedRect(cells: CellValue[][]): CellRect | null {
  let rect: CellRect | null = null;
  cells.forEach((row, r) =>
    row.forEach((v, c) => {
      if (isEmpty(v)) return;
      rect = rect
        ? { top: Math.min(rect.top, r), bottom: Math.max(rect.bottom, r), left: Math.min(rect.left, c), right: Math.max(rect.right, c) }
        : { top: r, bottom: r, left: c, right: c };
    }),
  );
  return rect;
}
