// The Workbook adapter over Office.js (Excel.run): reads the selection or its table, and keeps the "Hedge Log" table (create with formats, append, update status cells).
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

type ExcelApi = Pick<typeof Excel, "run">;

const KEY_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey");
/** The status columns are contiguous in the log (Status … Message), so one row's update is one range write. */
const STATUS_FIRST = LOG_COLUMNS.findIndex((c) => c.field === LOG_STATUS_FIELDS[0]);
const STATUS_COUNT = LOG_STATUS_FIELDS.length;

const isBlank = (v: unknown) => v === null || v === undefined || v === "";
const headerText = (v: unknown) => (v === null || v === undefined ? "" : String(v).trim());

export class OfficeWorkbook implements Workbook {
  /** `excel` is the global Excel namespace in the add-in; tests pass an office-addin-mock object. */
  constructor(private readonly excel: ExcelApi = Excel) {}

  readSelection(): Promise<SelectedRows> {
    return this.excel.run(async (context) => {
      const selected = context.workbook.getSelectedRange();
      selected.load(["address", "rowIndex", "rowCount"]);
      const sheet = selected.worksheet;
      sheet.load("name");
      const tables = selected.getTables(false);
      const tableCount = tables.getCount();
      await context.sync();

      if (tableCount.value > 0) {
        const table = tables.getFirst();
        table.load("name");
        const range = table.getRange();
        range.load(["address", "rowIndex", "values"]);
        await context.sync();
        const [header, ...body] = range.values as CellValue[][];
        return {
          sheetName: sheet.name,
          address: range.address,
          tableName: table.name,
          headers: header.map(headerText),
          headerRowNumber: range.rowIndex + 1,
          hiddenRowsSkipped: 0,
          rows: body.map((values, i) => ({ rowNumber: range.rowIndex + 2 + i, values })),
        };
      }

      const used = sheet.getUsedRangeOrNullObject(true);
      used.load(["isNullObject", "rowIndex", "columnIndex", "rowCount", "columnCount"]);
      await context.sync();
      if (used.isNullObject) throw new Error(`Sheet ${sheet.name} is empty: select the rows to trade under a header row.`);
      // Outside a table the header row is the used range's first row; a selected header row is not data.
      const top = Math.max(selected.rowIndex, used.rowIndex + 1);
      const bottom = Math.min(selected.rowIndex + selected.rowCount - 1, used.rowIndex + used.rowCount - 1);
      const header = sheet.getRangeByIndexes(used.rowIndex, used.columnIndex, 1, used.columnCount);
      header.load("values");
      const body = bottom >= top ? sheet.getRangeByIndexes(top, used.columnIndex, bottom - top + 1, used.columnCount) : null;
      body?.load(["address", "values"]);
      await context.sync();
      return {
        sheetName: sheet.name,
        address: body ? body.address : selected.address,
        tableName: null,
        headers: (header.values[0] as CellValue[]).map(headerText),
        headerRowNumber: used.rowIndex + 1,
        hiddenRowsSkipped: 0,
        rows: body ? (body.values as CellValue[][]).map((values, i) => ({ rowNumber: top + 1 + i, values })) : [],
      };
    });
  }

  ensureLog(): Promise<void> {
    return this.excel.run(async (context) => {
      await this.logTable(context);
    });
  }

  readLog(query?: LogQuery): Promise<LogRecord[]> {
    return this.excel.run(async (context) => {
      const table = context.workbook.tables.getItemOrNullObject(LOG_TABLE_NAME);
      table.load("isNullObject");
      await context.sync();
      if (table.isNullObject) return [];
      const body = table.getDataBodyRange();
      body.load("values");
      await context.sync();
      const records = (body.values as CellValue[][]).filter((row) => !isBlank(row[KEY_COLUMN])).map(cellsToLogRecord);
      return query ? records.filter((record) => matchesLogQuery(record, query)) : records;
    });
  }

  appendLog(records: LogRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return this.excel.run(async (context) => {
      const table = await this.logTable(context);
      const body = table.getDataBodyRange();
      body.load(["values", "rowCount"]);
      await context.sync();
      const rows = records.map(logRecordToCells) as Array<Array<string | number | boolean>>;
      const formats = rows.map(() => LOG_COLUMNS.map((c) => c.numberFormat));
      // A new table has one empty body row; fill it instead of leaving a gap.
      const bodyValues = body.values as CellValue[][];
      const ghost = body.rowCount === 1 && bodyValues[0].every(isBlank);
      if (ghost) {
        const first = body.getRow(0);
        // Formats before values (see below).
        first.numberFormat = [formats[0]];
        first.values = [rows[0]];
      }
      const rest = ghost ? rows.slice(1) : rows;
      if (rest.length > 0) {
        // Add the rows empty, format them, then write the values: Excel reads text typed into a General cell
        // ("00123" → 123), which would change a client reference and so the body resent on resume.
        table.rows.add(
          undefined,
          rest.map((row) => row.map(() => "")),
        );
        const start = ghost ? 1 : body.rowCount;
        const added = table
          .getDataBodyRange()
          .getRow(start)
          .getResizedRange(rest.length - 1, 0);
        added.numberFormat = formats.slice(0, rest.length);
        added.values = rest;
      }
      await context.sync();
    });
  }

  updateLog(updates: LogUpdate[]): Promise<LogUpdateResult> {
    if (updates.length === 0) return Promise.resolve({ missing: [] });
    return this.excel.run(async (context) => {
      const table = context.workbook.tables.getItemOrNullObject(LOG_TABLE_NAME);
      table.load("isNullObject");
      await context.sync();
      if (table.isNullObject) throw new Error(`The ${LOG_SHEET_NAME} table is missing, so its rows cannot be updated.`);
      const body = table.getDataBodyRange();
      body.load("values");
      await context.sync();
      const values = body.values as CellValue[][];
      const rowOf = new Map<string, number>();
      values.forEach((row, i) => rowOf.set(String(row[KEY_COLUMN] ?? ""), i));
      const missing: string[] = [];
      for (const update of updates) {
        const r = rowOf.get(update.idempotencyKey);
        if (r === undefined) {
          missing.push(update.idempotencyKey); // a deleted row or an edited key: skip it, write the others
          continue;
        }
        const block = values[r].slice(STATUS_FIRST, STATUS_FIRST + STATUS_COUNT);
        LOG_STATUS_FIELDS.forEach((field, i) => {
          if (field in update) block[i] = cellOf(LOG_COLUMNS[STATUS_FIRST + i], update[field] ?? null);
        });
        body.getCell(r, STATUS_FIRST).getResizedRange(0, STATUS_COUNT - 1).values = [block];
      }
      await context.sync();
      return { missing };
    });
  }

  showLog(): Promise<void> {
    return this.excel.run(async (context) => {
      const table = await this.logTable(context);
      table.worksheet.activate();
      await context.sync();
    });
  }

  /**
   * A log written by an older version has fewer columns: the new ones (always appended at the end of LOG_COLUMNS) are
   * added at the table's right end with their header, width and number format. Existing columns are never moved.
   */
  private async addMissingColumns(context: Excel.RequestContext, table: Excel.Table): Promise<void> {
    const count = table.columns.getCount();
    await context.sync();
    if (count.value >= LOG_COLUMNS.length) return;
    const header = table.getHeaderRowRange();
    header.load(["rowIndex", "columnIndex"]);
    await context.sync();
    const sheet = table.worksheet;
    for (let i = count.value; i < LOG_COLUMNS.length; i++) {
      const column = LOG_COLUMNS[i];
      table.columns.add(undefined, undefined, column.header);
      const c = header.columnIndex + i;
      sheet.getRangeByIndexes(0, c, 1, 1).getEntireColumn().format.columnWidth = column.width;
      sheet.getRangeByIndexes(header.rowIndex + 1, c, 1, 1).numberFormat = [[column.numberFormat]];
    }
    await context.sync();
  }

  /** The log table, created (sheet, headers, formats, widths, frozen header) when missing. */
  private async logTable(context: Excel.RequestContext): Promise<Excel.Table> {
    const existing = context.workbook.tables.getItemOrNullObject(LOG_TABLE_NAME);
    existing.load("isNullObject");
    const sheetOrNull = context.workbook.worksheets.getItemOrNullObject(LOG_SHEET_NAME);
    sheetOrNull.load("isNullObject");
    await context.sync();
    if (!existing.isNullObject) {
      await this.addMissingColumns(context, existing);
      return existing;
    }

    const sheet = sheetOrNull.isNullObject ? context.workbook.worksheets.add(LOG_SHEET_NAME) : sheetOrNull;
    const header = sheet.getRangeByIndexes(0, 0, 1, LOG_COLUMNS.length);
    header.values = [[...LOG_HEADERS]];
    const table = sheet.tables.add(header, true);
    table.name = LOG_TABLE_NAME;
    LOG_COLUMNS.forEach((column, i) => {
      const whole = sheet.getRangeByIndexes(0, i, 1, 1).getEntireColumn();
      whole.format.columnWidth = column.width;
      // Body cells of the column: text columns stay text so keys and hashes are never read as numbers.
      sheet.getRangeByIndexes(1, i, 1, 1).numberFormat = [[column.numberFormat]];
    });
    sheet.freezePanes.freezeRows(1);
    await context.sync();
    return table;
  }
}
