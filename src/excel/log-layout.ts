// The Hedge Log as found on the sheet: each add-in column located by its header name (columns the user inserts or moves are tolerated), and records to and from table rows, one bad field never failing a row.
import { utcMs } from "../api/time";
import { fromExcelDate, toExcelDate, type CellValue } from "../trading/cells";
import { LOG_COLUMNS, cellsToLogRecord, type LogColumn, type LogRecord } from "../trading/log/hedge-log";

type Field = keyof LogRecord;

/** Header text as compared: trimmed, case and inner spacing ignored ("logged at  (utc)" is "Logged at (UTC)"). */
function headerKey(v: unknown): string {
  return (v === null || v === undefined ? "" : String(v)).trim().replace(/\s+/g, " ").toLowerCase();
}

/** Where the add-in's columns are in the table, by header name. */
export interface LogLayout {
  /** Table column (0-based) of each add-in field found. */
  index: ReadonlyMap<Field, number>;
  /** Add-in columns the table lacks, in LOG_COLUMNS order: they are appended at the table's end, by name. */
  missing: readonly LogColumn[];
  /** Columns of the table (the user's own included). */
  width: number;
}

/** Finds each LOG_COLUMNS header in a table's header row; other columns (the user's) are left alone. */
export function layoutOf(headers: readonly unknown[]): LogLayout {
  const at = new Map<string, number>();
  headers.forEach((h, i) => {
    const key = headerKey(h);
    if (key !== "" && !at.has(key)) at.set(key, i);
  });
  const index = new Map<Field, number>();
  const missing: LogColumn[] = [];
  for (const column of LOG_COLUMNS) {
    const i = at.get(headerKey(column.header));
    if (i === undefined) missing.push(column);
    else index.set(column.field, i);
  }
  return { index, missing, width: headers.length };
}

/** The layout once the missing columns are appended at the end of the table, in order. */
export function withAppended(layout: LogLayout): LogLayout {
  const index = new Map(layout.index);
  layout.missing.forEach((c, i) => index.set(c.field, layout.width + i));
  return { index, missing: [], width: layout.width + layout.missing.length };
}

export function columnOf(field: Field): LogColumn {
  const column = LOG_COLUMNS.find((c) => c.field === field);
  if (!column) throw new Error(`No Hedge Log column for ${String(field)}.`);
  return column;
}

/** The first and last table columns holding add-in fields (what a read of whole records covers). */
export function fieldSpan(
  layout: LogLayout,
  fields: readonly Field[] = LOG_COLUMNS.map((c) => c.field),
): { left: number; right: number } | null {
  const found = fields.map((f) => layout.index.get(f)).filter((i): i is number => i !== undefined);
  if (found.length === 0) return null;
  return { left: Math.min(...found), right: Math.max(...found) };
}

/** A table row (cells from table column `offset` on) back into a record; missing columns read as empty. */
export function recordFromRow(row: readonly CellValue[], layout: LogLayout, offset = 0): LogRecord {
  const cells = LOG_COLUMNS.map((c) => {
    const i = layout.index.get(c.field);
    return i === undefined ? "" : (row[i - offset] ?? "");
  });
  return cellsToLogRecord(cells);
}

/** The idempotency key in a row's key cell ("" when blank: such rows are not journal rows). */
export function keyText(v: CellValue | undefined): string {
  return v === null || v === undefined ? "" : String(v).trim() === "" ? "" : String(v);
}

/** A date cell as ISO 8601 (serials converted; text kept as written). */
export function dateText(v: CellValue | undefined): string | null {
  if (v === null || v === undefined || v === "") return null;
  return typeof v === "number" ? fromExcelDate(v) : String(v);
}

interface LogCell {
  value: CellValue;
  /** Set when the value could not be written as its column's type: it is written as text, and the row's Message says so. */
  problem: string | null;
}

/**
 * One field's cell. Dates become Excel serials, amounts and rates numbers. A value that cannot be (an unparsable
 * timestamp, a number that is not finite, text in a number column) is written as text as it came, with a problem naming
 * the column, so the rest of the row and every other row are still written.
 */
function logCell(column: LogColumn, value: unknown): LogCell {
  if (value === null || value === undefined || value === "") return { value: "", problem: null };
  switch (column.kind) {
    case "date": {
      const text = String(value);
      if (Number.isFinite(utcMs(text))) return { value: toExcelDate(text), problem: null };
      return { value: text, problem: `${column.header} "${clip(text)}" is not an ISO 8601 time; written as text.` };
    }
    case "usd":
    case "int":
    case "rate":
      if (typeof value === "number" && Number.isFinite(value)) return { value, problem: null };
      return { value: String(value), problem: `${column.header} "${clip(String(value))}" is not a number; written as text.` };
    default:
      return { value: typeof value === "string" ? value : String(value), problem: null };
  }
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 60)}…` : s);

/** The cells of the given fields of a record or update, with the problems folded into the Message cell. */
export function fieldCells(source: Partial<LogRecord>, fields: readonly Field[]): Map<Field, CellValue> {
  const cells = new Map<Field, CellValue>();
  const problems: string[] = [];
  for (const field of fields) {
    const cell = logCell(columnOf(field), source[field]);
    cells.set(field, cell.value);
    if (cell.problem) problems.push(cell.problem);
  }
  if (problems.length > 0) {
    const said = source.message ? `${source.message} ` : "";
    cells.set("message", `${said}(${problems.join(" ")})`);
  }
  return cells;
}

/** The add-in fields an update sets (every key naming a log column, the idempotency key excepted). */
export function updatedFields(update: Partial<LogRecord>): Field[] {
  return LOG_COLUMNS.map((c) => c.field).filter((f) => f !== "idempotencyKey" && f in update);
}

/** Table columns of the given fields as runs of adjacent columns, each with its fields in column order. */
export function columnRuns(layout: LogLayout, fields: readonly Field[]): Array<{ left: number; fields: Field[] }> {
  const placed = fields
    .map((f) => ({ f, i: layout.index.get(f) }))
    .filter((p): p is { f: Field; i: number } => p.i !== undefined)
    .sort((a, b) => a.i - b.i);
  const runs: Array<{ left: number; fields: Field[] }> = [];
  for (const p of placed) {
    const last = runs[runs.length - 1];
    if (last && last.left + last.fields.length === p.i) last.fields.push(p.f);
    else runs.push({ left: p.i, fields: [p.f] });
  }
  return runs;
}
