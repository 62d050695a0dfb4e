// The Workbook adapter interface (selection in, "Hedge Log" table out) and the log sheet's column layout, shared by the Office.js and in-memory implementations.

/** A cell value as Excel hands it over. Dates in the log are Excel serial numbers (days since 1899-12-30, UTC). */
export type CellValue = string | number | boolean | null;

/** One data row of the selection, with its 1-based sheet row number (what the user sees in Excel's row header). */
export interface SheetRow {
  rowNumber: number;
  values: CellValue[];
}

/**
 * The rows the user selected. When the selection sits in an Excel table, the whole table (its header and every body row).
 * Otherwise the selected rows across the used range's columns, with the used range's first row as the header row
 * (a selected header row is not returned as data).
 */
export interface SelectedRows {
  sheetName: string;
  /** Address of what was read, e.g. "Exposures!A2:E9". */
  address: string;
  /** The table's name when the selection sat in one, else null. */
  tableName: string | null;
  headers: string[];
  /** Sheet row number of the header row. */
  headerRowNumber: number;
  rows: SheetRow[];
}

/** One row of the "Hedge Log" table: one action on one selected row. Times are ISO 8601 UTC strings. */
export interface LogRecord {
  loggedAt: string;
  /** "sandbox" or "production". */
  environment: string;
  /** "open", "add", "reduce" or "close". */
  action: string;
  market: string;
  side: string;
  /** Open: notional; Add: additional notional; Reduce: reduced notional; Close: null. USD. */
  notional: number | null;
  tenor: number | null;
  clientReference: string | null;
  /** Unique per row: the row's identity in the log and the request's Idempotency-Key. */
  idempotencyKey: string;
  /** submitting | submitted | filled | failed | closed | rejected */
  status: string;
  hedgeId: string | null;
  orderTxHash: string | null;
  fillTxHash: string | null;
  struckRate: number | null;
  filledAt: string | null;
  errorCode: string | null;
  message: string | null;
  /**
   * The account the row was sent for: the account_address of GET /account for the key in use. Idempotency keys are per
   * API key, so a row is only ever resumed or counted as a duplicate by the same account. Empty in logs written before
   * this column existed (such rows count for any account of their environment).
   */
  account?: string | null;
}

/** The status columns of a log row, the only ones ever updated after it is appended. */
export const LOG_STATUS_FIELDS = ["status", "hedgeId", "orderTxHash", "fillTxHash", "struckRate", "filledAt", "errorCode", "message"] as const;
export type LogStatusField = (typeof LOG_STATUS_FIELDS)[number];

/** An update of one log row, found by its idempotency key; absent fields keep their value. */
export type LogUpdate = { idempotencyKey: string } & Partial<Pick<LogRecord, LogStatusField>>;

export interface LogUpdateResult {
  /** Idempotency keys of updates that found no log row (nothing was written for them). */
  missing: string[];
}

/** The workbook as the trading engine sees it. Implementations: office-workbook.ts (Excel.run) and memory-workbook.ts. */
export interface Workbook {
  /** The selected rows, or the whole table when the selection sits in one. Throws a clear error when nothing usable is selected. */
  readSelection(): Promise<SelectedRows>;
  /** Creates the "Hedge Log" sheet and table (headers, number and date formats, column widths) when missing. Safe to call again. */
  ensureLog(): Promise<void>;
  /** Every row of the log, oldest first (empty when there is no log yet). */
  readLog(): Promise<LogRecord[]>;
  /** Appends rows at the end of the log table (creating it when missing). Rows are never inserted elsewhere nor deleted. */
  appendLog(records: LogRecord[]): Promise<void>;
  /**
   * Updates the status columns of existing rows, found by idempotency key. Keys with no row (a deleted row, an edited
   * key) are skipped and returned in `missing`; the other updates are still written.
   */
  updateLog(updates: LogUpdate[]): Promise<LogUpdateResult>;
  /** Brings the log sheet to the front (for the pane's "Show log"). */
  showLog(): Promise<void>;
}

export const LOG_SHEET_NAME = "Hedge Log";
export const LOG_TABLE_NAME = "HedgeLog";

export interface LogColumn {
  field: keyof LogRecord;
  header: string;
  kind: "text" | "date" | "usd" | "int" | "rate";
  /** Excel number format; "@" is text (so hashes and keys are never turned into numbers). */
  numberFormat: string;
  /** Column width in points. */
  width: number;
}

/** The log table's columns in order. */
export const LOG_COLUMNS: readonly LogColumn[] = [
  { field: "loggedAt", header: "Logged at (UTC)", kind: "date", numberFormat: "yyyy-mm-dd hh:mm:ss", width: 120 },
  { field: "environment", header: "Environment", kind: "text", numberFormat: "@", width: 70 },
  { field: "action", header: "Action", kind: "text", numberFormat: "@", width: 50 },
  { field: "market", header: "Market", kind: "text", numberFormat: "@", width: 60 },
  { field: "side", header: "Side", kind: "text", numberFormat: "@", width: 35 },
  { field: "notional", header: "Notional (USD)", kind: "usd", numberFormat: "#,##0.00", width: 90 },
  { field: "tenor", header: "Tenor (days)", kind: "int", numberFormat: "0", width: 60 },
  { field: "clientReference", header: "Client reference", kind: "text", numberFormat: "@", width: 100 },
  { field: "idempotencyKey", header: "Idempotency key", kind: "text", numberFormat: "@", width: 210 },
  { field: "status", header: "Status", kind: "text", numberFormat: "@", width: 65 },
  { field: "hedgeId", header: "Hedge id", kind: "text", numberFormat: "@", width: 110 },
  { field: "orderTxHash", header: "Order tx hash", kind: "text", numberFormat: "@", width: 140 },
  { field: "fillTxHash", header: "Fill tx hash", kind: "text", numberFormat: "@", width: 140 },
  { field: "struckRate", header: "Struck rate", kind: "rate", numberFormat: "#,##0.0000", width: 75 },
  { field: "filledAt", header: "Filled at (UTC)", kind: "date", numberFormat: "yyyy-mm-dd hh:mm:ss", width: 120 },
  { field: "errorCode", header: "Error code", kind: "text", numberFormat: "@", width: 110 },
  { field: "message", header: "Message", kind: "text", numberFormat: "@", width: 300 },
  // Appended after the first release: older logs lack them and get them added at the end (never reordered).
  { field: "account", header: "Account", kind: "text", numberFormat: "@", width: 150 },
];

export const LOG_HEADERS: readonly string[] = LOG_COLUMNS.map((c) => c.header);

const MS_PER_DAY = 86_400_000;
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** ISO 8601 UTC → Excel serial date (a number Excel formats as a date). */
export function toExcelDate(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`Not an ISO 8601 time: ${iso}`);
  return (ms - EXCEL_EPOCH_MS) / MS_PER_DAY;
}

/** Excel serial date → ISO 8601 UTC, to the millisecond. */
export function fromExcelDate(serial: number): string {
  return new Date(Math.round(serial * MS_PER_DAY + EXCEL_EPOCH_MS)).toISOString();
}

/** A log record as the table row's cell values, in LOG_COLUMNS order. */
export function logRecordToCells(record: LogRecord): CellValue[] {
  return LOG_COLUMNS.map((c) => cellOf(c, record[c.field]));
}

/** The cell value of one field. Empty is "" (Excel's empty cell), dates become serials. */
export function cellOf(column: LogColumn, value: LogRecord[keyof LogRecord]): CellValue {
  if (value === null || value === undefined || value === "") return "";
  if (column.kind === "date") return toExcelDate(String(value));
  return value;
}

/** A log table row back into a record; unknown or mangled cells become null rather than failing the whole log. */
export function cellsToLogRecord(cells: readonly CellValue[]): LogRecord {
  const record: Record<string, unknown> = {};
  LOG_COLUMNS.forEach((c, i) => {
    const v = cells[i];
    if (v === null || v === undefined || v === "") record[c.field] = null;
    else if (c.kind === "date") record[c.field] = typeof v === "number" ? fromExcelDate(v) : String(v);
    else if (c.kind === "text") record[c.field] = String(v);
    else record[c.field] = typeof v === "number" ? v : Number(String(v).replace(/,/g, "")) || null;
  });
  for (const required of ["loggedAt", "environment", "action", "market", "side", "idempotencyKey", "status"] as const) {
    if (record[required] === null) record[required] = "";
  }
  return record as unknown as LogRecord;
}
