// An in-memory Workbook (sheets of cells, tables, a selection, document settings) behind the same interface as the Office.js adapter: for tests, benches and the browser e2e page.
import { type CellValue } from "../trading/cells";
import { type SelectedRows, type Workbook } from "../trading/workbook";
import {
  LOG_COLUMNS,
  LOG_HEADERS,
  LOG_SHEET_NAME,
  LOG_STATUS_FIELDS,
  LOG_TABLE_NAME,
  cellOf,
  cellsToLogRecord,
  logRecordToCells,
  matchesLogQuery,
  type LogQuery,
  type LogRecord,
  type LogUpdate,
  type LogUpdateResult,
} from "../trading/hedge-log";

/** A rectangle of cells, 0-based and inclusive. */
export interface CellRect {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export interface MemoryTable {
  name: string;
  sheet: string;
  /** Header row included. */
  rect: CellRect;
}

interface MemorySheet {
  cells: CellValue[][];
  /** Number format per column index (the log sets them per column). */
  columnFormats: Map<number, string>;
  columnWidths: Map<number, number>;
}

export interface MemoryWorkbookInit {
  /** Sheets by name, each a grid of values starting at A1. */
  sheets?: Record<string, CellValue[][]>;
}

/** Column letters → 0-based index ("A" → 0, "AA" → 26). */
export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** 0-based index → column letters. */
export function columnLetters(index: number): string {
  let s = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
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

const isEmpty = (v: CellValue | undefined) => v === null || v === undefined || v === "";
const quoteSheet = (name: string) => (/^[A-Za-z0-9_]+$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`);

export class MemoryWorkbook implements Workbook {
  private readonly sheets = new Map<string, MemorySheet>();
  private readonly tables = new Map<string, MemoryTable>();
  private selection: { sheet: string; rect: CellRect } | null = null;
  private active: string | null = null;
  private readonly listeners = new Set<() => void>();
  /** Document settings (Office.context.document.settings): saved inside the .xlsx. The engine never writes here; tests scan it. */
  readonly documentSettings = new Map<string, string>();
  /** Custom document properties, saved inside the .xlsx too. Same rule. */
  readonly customProperties = new Map<string, string>();
  /** Excel calls made (for tests and benches that count round trips). */
  calls = 0;

  constructor(init: MemoryWorkbookInit = {}) {
    for (const [name, grid] of Object.entries(init.sheets ?? {})) this.setSheet(name, grid);
  }

  // ---- building and inspecting (not part of Workbook) ----

  /** Replaces a sheet's cells with a grid starting at A1. */
  setSheet(name: string, grid: CellValue[][]): this {
    this.sheets.set(name, { cells: grid.map((r) => [...r]), columnFormats: new Map(), columnWidths: new Map() });
    this.active ??= name;
    this.changed();
    return this;
  }

  /** Makes an Excel table over `address` (header row included) of a sheet. */
  addTable(name: string, sheet: string, address: string): this {
    this.sheetOf(sheet);
    if ([...this.tables.keys()].some((n) => n.toLowerCase() === name.toLowerCase()))
      throw new Error(`A table named ${name} already exists.`);
    this.tables.set(name, { name, sheet, rect: parseAddress(address) });
    return this;
  }

  /** Selects cells, as the user would by dragging ("A3:E7", "3:7" for whole rows). */
  select(sheet: string, address: string): this {
    this.sheetOf(sheet);
    this.selection = { sheet, rect: parseAddress(address) };
    this.active = sheet;
    return this;
  }

  sheetNames(): string[] {
    return [...this.sheets.keys()];
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  get activeSheet(): string | null {
    return this.active;
  }

  /** A copy of a sheet's cells. */
  cells(sheet: string): CellValue[][] {
    return this.sheetOf(sheet).cells.map((r) => [...r]);
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

  /** Called after every change (the e2e page re-renders the sheets with it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- Workbook ----

  async readSelection(): Promise<SelectedRows> {
    this.calls++;
    if (!this.selection) throw new Error("Nothing is selected: select the rows to trade (or a cell of their table).");
    const { sheet: sheetName, rect: sel } = this.selection;
    const sheet = this.sheetOf(sheetName);
    const table = [...this.tables.values()].find((t) => t.sheet === sheetName && intersects(t.rect, sel));
    if (table) {
      const { rect } = table;
      return {
        sheetName,
        address: `${quoteSheet(sheetName)}!${formatAddress(rect)}`,
        tableName: table.name,
        headers: this.rowValues(sheet, rect.top, rect.left, rect.right).map(headerText),
        headerRowNumber: rect.top + 1,
        hiddenRowsSkipped: 0,
        rows: range(rect.top + 1, rect.bottom).map((r) => ({ rowNumber: r + 1, values: this.rowValues(sheet, r, rect.left, rect.right) })),
      };
    }
    const used = usedRect(sheet.cells);
    if (!used) throw new Error(`Sheet ${sheetName} is empty: select the rows to trade under a header row.`);
    const top = Math.max(sel.top, used.top + 1);
    const bottom = Math.min(sel.bottom, used.bottom);
    const read: CellRect = { top, bottom: Math.max(top - 1, bottom), left: used.left, right: used.right };
    return {
      sheetName,
      address: `${quoteSheet(sheetName)}!${bottom >= top ? formatAddress(read) : formatAddress({ ...read, bottom: top })}`,
      tableName: null,
      headers: this.rowValues(sheet, used.top, used.left, used.right).map(headerText),
      headerRowNumber: used.top + 1,
      hiddenRowsSkipped: 0,
      rows:
        bottom >= top ? range(top, bottom).map((r) => ({ rowNumber: r + 1, values: this.rowValues(sheet, r, used.left, used.right) })) : [],
    };
  }

  async ensureLog(): Promise<void> {
    this.calls++;
    this.ensureLogNow();
  }

  async readLog(query?: LogQuery): Promise<LogRecord[]> {
    this.calls++;
    const table = this.tables.get(LOG_TABLE_NAME);
    if (!table) return [];
    const sheet = this.sheetOf(table.sheet);
    const records = range(table.rect.top + 1, table.rect.bottom).map((r) =>
      cellsToLogRecord(this.rowValues(sheet, r, table.rect.left, table.rect.right)),
    );
    return query ? records.filter((record) => matchesLogQuery(record, query)) : records;
  }

  async appendLog(records: LogRecord[]): Promise<void> {
    this.calls++;
    if (records.length === 0) return;
    const table = this.ensureLogNow();
    const sheet = this.sheetOf(table.sheet);
    for (const record of records) {
      const r = table.rect.bottom + 1;
      logRecordToCells(record).forEach((v, i) => setCell(sheet.cells, r, table.rect.left + i, v));
      table.rect = { ...table.rect, bottom: r };
    }
    this.changed();
  }

  async updateLog(updates: LogUpdate[]): Promise<LogUpdateResult> {
    this.calls++;
    if (updates.length === 0) return { missing: [] };
    const table = this.tables.get(LOG_TABLE_NAME);
    if (!table) throw new Error(`The ${LOG_SHEET_NAME} table is missing, so its rows cannot be updated.`);
    const sheet = this.sheetOf(table.sheet);
    const keyCol = table.rect.left + LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey");
    const rowOf = new Map<string, number>();
    for (let r = table.rect.top + 1; r <= table.rect.bottom; r++) rowOf.set(String(sheet.cells[r]?.[keyCol] ?? ""), r);
    const missing: string[] = [];
    for (const update of updates) {
      const r = rowOf.get(update.idempotencyKey);
      if (r === undefined) {
        missing.push(update.idempotencyKey);
        continue;
      }
      for (const field of LOG_STATUS_FIELDS) {
        if (!(field in update)) continue;
        const i = LOG_COLUMNS.findIndex((c) => c.field === field);
        setCell(sheet.cells, r, table.rect.left + i, cellOf(LOG_COLUMNS[i], update[field] ?? null));
      }
    }
    this.changed();
    return { missing };
  }

  async showLog(): Promise<void> {
    this.calls++;
    this.ensureLogNow();
    this.active = LOG_SHEET_NAME;
    this.changed();
  }

  // ---- internals ----

  private ensureLogNow(): MemoryTable {
    const existing = this.tables.get(LOG_TABLE_NAME);
    if (existing) {
      // An older log with fewer columns: add the new ones (always at the end) with header, format and width.
      const sheet = this.sheetOf(existing.sheet);
      for (let i = existing.rect.right - existing.rect.left + 1; i < LOG_COLUMNS.length; i++) {
        const c = existing.rect.left + i;
        setCell(sheet.cells, existing.rect.top, c, LOG_COLUMNS[i].header);
        sheet.columnFormats.set(c, LOG_COLUMNS[i].numberFormat);
        sheet.columnWidths.set(c, LOG_COLUMNS[i].width);
        existing.rect = { ...existing.rect, right: c };
      }
      return existing;
    }
    if (!this.sheets.has(LOG_SHEET_NAME)) this.sheets.set(LOG_SHEET_NAME, { cells: [], columnFormats: new Map(), columnWidths: new Map() });
    const sheet = this.sheetOf(LOG_SHEET_NAME);
    LOG_HEADERS.forEach((h, i) => setCell(sheet.cells, 0, i, h));
    LOG_COLUMNS.forEach((c, i) => {
      sheet.columnFormats.set(i, c.numberFormat);
      sheet.columnWidths.set(i, c.width);
    });
    const table: MemoryTable = {
      name: LOG_TABLE_NAME,
      sheet: LOG_SHEET_NAME,
      rect: { top: 0, left: 0, bottom: 0, right: LOG_COLUMNS.length - 1 },
    };
    this.tables.set(LOG_TABLE_NAME, table);
    this.changed();
    return table;
  }

  private sheetOf(name: string): MemorySheet {
    const sheet = this.sheets.get(name);
    if (!sheet) throw new Error(`No sheet named ${name}.`);
    return sheet;
  }

  private rowValues(sheet: MemorySheet, row: number, left: number, right: number): CellValue[] {
    return range(left, right).map((c) => {
      const v = sheet.cells[row]?.[c];
      return v === undefined || v === null ? "" : v;
    });
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function headerText(v: CellValue): string {
  return v === null ? "" : String(v).trim();
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i <= to; i++) out.push(i);
  return out;
}

function intersects(a: CellRect, b: CellRect): boolean {
  return a.left <= b.right && b.left <= a.right && a.top <= b.bottom && b.top <= a.bottom;
}

function setCell(cells: CellValue[][], r: number, c: number, v: CellValue): void {
  while (cells.length <= r) cells.push([]);
  const row = cells[r];
  while (row.length <= c) row.push("");
  row[c] = v;
}

/** The smallest rectangle holding every non-empty cell, like Excel's getUsedRange(true). */
function usedRect(cells: CellValue[][]): CellRect | null {
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
