// A Hedge Log table (the live log or an archive year's) within one Excel.run batch: found or created by name, its add-in columns found by header (missing ones appended), its rows read and its cells queued in chunks bounded by bytes.
import type { CellValue } from "../trading/cells";
import type { PlacedLogRow } from "../trading/workbook";
import {
  LOG_COLUMNS,
  LOG_HEADERS,
  LOG_SHEET_NAME,
  LOG_TABLE_NAME,
  archiveSheetName,
  archiveTableName,
  type LogRecord,
} from "../trading/log/hedge-log";
import { ReadSizer, jsonBytes, readBlocks, readSpans, spansOf, type Block, type ChunkLimits } from "./chunks";
import { columnOf, columnRuns, fieldSpan, keyText, layoutOf, recordFromRow, withAppended, type LogLayout } from "./log-layout";
import { holdsAnything } from "./log-archive";
import { queueSafeWrite } from "./safe-cells";

export type Field = keyof LogRecord;

/** Every field of the log, in column order (an appended row writes them all). */
export const ALL_FIELDS: readonly Field[] = LOG_COLUMNS.map((c) => c.field);

/** A log table as found in this batch: where its body starts, how many rows, and where each add-in column is (by header name). */
export interface LogTable {
  table: Excel.Table;
  sheet: Excel.Worksheet;
  name: string;
  /** 0-based sheet row of the first body row, and sheet column of the table's first column. */
  top: number;
  left: number;
  /** Body rows (a new table's one empty row included). */
  rows: number;
  layout: LogLayout;
}

/**
 * The log table (or an archive year's), its body's place and size and its layout by header name. "read" never writes;
 * "columns" appends the add-in columns the table lacks; "create" also creates the table when missing.
 */
export async function openLogTable(
  context: Excel.RequestContext,
  mode: "read" | "columns" | "create",
  year?: number,
): Promise<LogTable | null> {
  const tableName = year === undefined ? LOG_TABLE_NAME : archiveTableName(year);
  const sheetName = year === undefined ? LOG_SHEET_NAME : archiveSheetName(year);
  let table = context.workbook.tables.getItemOrNullObject(tableName).load("isNullObject");
  const sheetOrNull = context.workbook.worksheets.getItemOrNullObject(sheetName).load("isNullObject");
  await context.sync();
  if (table.isNullObject) {
    if (mode !== "create") return null;
    createTable(sheetOrNull.isNullObject ? context.workbook.worksheets.add(sheetName) : sheetOrNull, tableName);
    await context.sync();
    // Found again by name: an object made by add() is only good within the sync that made it.
    table = context.workbook.tables.getItem(tableName);
  }
  const sheet = table.worksheet;
  const header = table.getHeaderRowRange().load("values,rowIndex,columnIndex");
  const body = table.getDataBodyRange().load("rowCount");
  await context.sync();
  let layout = layoutOf(header.values[0]);
  if (layout.missing.length > 0 && mode !== "read") {
    // Added at the table's end by name, with width and format; the user's columns and order are left as they are.
    const first = layout.width;
    layout.missing.forEach((column, i) => {
      table.columns.add(undefined, undefined, column.header);
      sheet.getRangeByIndexes(0, header.columnIndex + first + i, 1, 1).getEntireColumn().format.columnWidth = column.width;
      sheet.getRangeByIndexes(header.rowIndex + 1, header.columnIndex + first + i, body.rowCount, 1).numberFormat =
        column.numberFormat as unknown as string[][];
    });
    await context.sync();
    layout = withAppended(layout);
  }
  return { table, sheet, name: tableName, top: header.rowIndex + 1, left: header.columnIndex, rows: body.rowCount, layout };
}

/** A new log table: headers by name, widths, per-column number formats, the header row frozen. */
function createTable(sheet: Excel.Worksheet, name: string): void {
  queueSafeWrite(
    sheet,
    0,
    0,
    [[...LOG_HEADERS]],
    LOG_HEADERS.map(() => "@"),
  );
  const table = sheet.tables.add(sheet.getRangeByIndexes(0, 0, 1, LOG_COLUMNS.length), true);
  table.name = name;
  LOG_COLUMNS.forEach((column, i) => {
    sheet.getRangeByIndexes(0, i, 1, 1).untrack().getEntireColumn().untrack().format.columnWidth = column.width;
    // The new table's one body row: the column's format, which Excel carries to the rows added under it.
    sheet.getRangeByIndexes(1, i, 1, 1).untrack().numberFormat = [[column.numberFormat]];
  });
  sheet.freezePanes.freezeRows(1);
}

/** Whether a body row holds nothing in the add-in's columns (read by the same byte-sized rule: the row may hold long text). */
export async function isBlankRow(context: Excel.RequestContext, log: LogTable, row: number, limits: ChunkLimits): Promise<boolean> {
  const span = fieldSpan(log.layout);
  if (!span) return true;
  const width = span.right - span.left + 1;
  const sizer = new ReadSizer(limits);
  for await (const chunk of readSpans(
    context,
    log.sheet,
    [{ start: row, count: 1 }],
    log.left + span.left,
    width,
    sizer,
    (s) => log.top + s,
  )) {
    return chunk[0].values[0].every((v) => v === "" || v === null);
  }
  return true;
}

/** Queues the cells of some fields for consecutive body rows from `row`: one safe write per run of adjacent columns. */
export function queueRows(log: LogTable, row: number, rows: ReadonlyArray<ReadonlyMap<Field, CellValue>>, fields: readonly Field[]): void {
  const written = new Set<Field>(fields);
  for (const r of rows) for (const f of r.keys()) written.add(f); // a problem adds the Message cell
  for (const run of columnRuns(log.layout, [...written])) {
    const values = rows.map((r) => run.fields.map((f) => (r.has(f) ? r.get(f)! : "")));
    const formats = run.fields.map((f) => columnOf(f).numberFormat);
    queueSafeWrite(log.sheet, log.top + row, log.left + run.left, values, formats);
  }
}

/** Some columns of every body row, read in chunks (keys as text; a column the table lacks reads as empty). */
export async function readFields(
  context: Excel.RequestContext,
  log: LogTable,
  fields: readonly Field[],
  limits: ChunkLimits,
): Promise<Map<Field, CellValue[]>> {
  // A column the table lacks reads as empty.
  const out = new Map<Field, CellValue[]>(fields.map((f) => [f, Array.from({ length: log.rows }, (): CellValue => "")]));
  const columns = fields
    .filter((f) => log.layout.index.has(f))
    .map((field) => ({ field, row: 0, column: log.layout.index.get(field)!, rows: log.rows, columns: 1 }));
  const place = (b: Block) => ({ row: log.top + b.row, column: log.left + b.column });
  const chunks = log.rows > 0 ? readBlocks(context, log.sheet, columns, ["values"], new ReadSizer(limits), place) : [];
  for await (const reads of chunks) {
    for (const { block, range } of reads) {
      const list = out.get(block.field)!;
      (range.values as CellValue[][]).forEach(([v], i) => (list[block.row + i] = block.field === "idempotencyKey" ? keyText(v) : v));
    }
  }
  return out;
}

/**
 * The records of the given body rows, consecutive rows read together, in chunks. Rows without a key are not journal rows:
 * left out unless `keyless` (then only those with a status) or `chained` (then those with a Row hash too).
 */
export async function readRecords(
  context: Excel.RequestContext,
  log: LogTable,
  rows: readonly number[],
  limits: ChunkLimits,
  options: { keyless?: boolean; chained?: boolean } = {},
): Promise<LogRecord[]> {
  const placed = await readPlaced(
    context,
    log,
    rows,
    limits,
    (r) => r.idempotencyKey.trim() !== "" || (!!options.keyless && r.status.trim() !== "") || (!!options.chained && !!r.rowHash),
  );
  return placed.map((p) => p.record);
}

/** The given body rows that `keep`, each with its sheet and 1-based sheet row; consecutive rows read together, in chunks. */
async function readPlaced(
  context: Excel.RequestContext,
  log: LogTable,
  rows: readonly number[],
  limits: ChunkLimits,
  keep: (record: LogRecord) => boolean,
): Promise<Array<{ bodyRow: number; record: LogRecord }>> {
  const span = fieldSpan(log.layout);
  if (!span || rows.length === 0) return [];
  const width = span.right - span.left + 1;
  const placed: Array<{ bodyRow: number; record: LogRecord }> = [];
  const chunks = readSpans(
    context,
    log.sheet,
    spansOf(rows),
    log.left + span.left,
    width,
    new ReadSizer(limits),
    (start) => log.top + start,
  );
  for await (const chunk of chunks) {
    for (const { span: s, values } of chunk) {
      values.forEach((row, i) => {
        const record = recordFromRow(row, log.layout, span.left);
        if (keep(record)) placed.push({ bodyRow: s.start + i, record });
      });
    }
  }
  return placed;
}

/** Every row of a log table that holds anything, with its sheet and 1-based sheet row (month end's chain). */
export async function readLogTableRows(
  context: Excel.RequestContext,
  log: LogTable,
  sheet: string,
  limits: ChunkLimits,
): Promise<PlacedLogRow[]> {
  const every = Array.from({ length: log.rows }, (_, i) => i);
  const placed = await readPlaced(context, log, every, limits, holdsAnything);
  return placed.map(({ bodyRow, record }) => ({ sheet, rowNumber: log.top + bodyRow + 1, record }));
}

/** The years of the "Hedge Log YYYY" sheets there, oldest first. */
export async function archiveYearsPresent(context: Excel.RequestContext): Promise<number[]> {
  const sheets = context.workbook.worksheets.load("items/name");
  await context.sync();
  return sheets.items
    .map((s) => /^Hedge Log (\d{4})$/.exec(s.name))
    .filter((m): m is RegExpExecArray => m !== null && archiveSheetName(Number(m[1])) === m[0])
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** Every row of the "Hedge Log YYYY" sheets that holds anything, oldest year first, where it stands. */
export async function readArchives(context: Excel.RequestContext, limits: ChunkLimits): Promise<PlacedLogRow[]> {
  const out: PlacedLogRow[] = [];
  for (const year of await archiveYearsPresent(context)) {
    const log = await openLogTable(context, "read", year);
    if (log) out.push(...(await readLogTableRows(context, log, archiveSheetName(year), limits)));
  }
  return out;
}

/** A row's JSON weight as written. */
export function rowBytes(cells: ReadonlyMap<Field, CellValue>): number {
  return jsonBytes([...cells.values()]);
}
