// The "Hedge Log" sheet: its records, column layout (headers, formats, widths), status updates and queries, and a record read back from its cells.
import { fromExcelDate, type CellValue } from "../cells";
import { utcMs } from "../../api/time";

/** What the service answered for a row: kept alike by the log record and the intent. */
export interface RowOutcome {
  hedgeId: string | null;
  orderTxHash: string | null;
  fillTxHash: string | null;
  struckRate: number | null;
  filledAt: string | null;
  errorCode: string | null;
  message: string | null;
}

/** What the journal records about a row beyond the service's answer: kept alike by the log record (columns added after its first version, so optional there) and the intent. */
export interface RowJournal {
  /**
   * The account the row was sent for: the account_address of GET /account for the key in use. Idempotency keys are per
   * API key, so a row is only ever resumed or counted as a duplicate by the same account. Empty in logs written before
   * this column existed (such rows count for any account of their environment).
   */
  account: string | null;
  /**
   * Add / Reduce / Close: the hedge's notional (USD) just before this action was sent, read from the service and written
   * here before the request left. With the decrease/close records of history it tells whether the action took effect.
   */
  notionalBefore: number | null;
  /** When the first request of this row left (written before it left); empty: the row was never sent. */
  sentAt: string | null;
  /** The user's decision on a row that needed one: "done" (adopted what the service shows) or "not done". */
  decision: string | null;
  /** When the user decided (ISO 8601 UTC). */
  decidedAt: string | null;
}

/** The approval a row was sent under (empty for a direct trade): written with the row, never changed after. */
export interface RowApproval {
  /** The approval batch's hash (src/trading/approvals/batch-hash.ts). */
  batchHash: string | null;
  /** The preparer's public key fingerprint (never the key). */
  preparedBy: string | null;
  /** The approver's public key fingerprint (never the key). */
  approvedBy: string | null;
}

/** The row's links in the log's hash chain (src/trading/log/log-chain.ts): written by the journal, never by the user. */
export interface RowChain {
  /** The link of the row written before it in this log (CHAIN_START for the first). */
  prevHash: string | null;
  /** This row's link: rowHashOf(prevHash, its body). */
  rowHash: string | null;
  /** Once final: finalHashOf(rowHash, its final state), written with the final status. */
  finalHash: string | null;
}

/**
 * One row of the "Hedge Log" table: one action on one selected row. Times are ISO 8601 UTC strings. The request's
 * fields are those of a TradeRequest (src/trading/types.ts) as read back from cells, so loosely typed: a user may have
 * typed anything there, and readers check them (isIntentStatus, ACTIONS…) before trusting them.
 */
export interface LogRecord extends RowOutcome, Partial<RowJournal>, Partial<RowApproval>, Partial<RowChain> {
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
  /** submitting | submitted | needs_decision | filled | failed | closed | rejected | not_sent */
  status: string;
}

/**
 * A row's body: the fields it is appended with and that never change after (what was journalled and sent, and the
 * approval it was sent under), in sheet order. The row hash covers them in this order (log-chain.ts): never reorder;
 * the journal keeps them over a later edit of the log and names an edited one in this order (journal.ts).
 */
export const LOG_BODY_FIELDS = [
  "loggedAt",
  "environment",
  "action",
  "market",
  "side",
  "notional",
  "tenor",
  "clientReference",
  "idempotencyKey",
  "account",
  "batchHash",
  "preparedBy",
  "approvedBy",
] as const satisfies ReadonlyArray<keyof LogRecord>;

/**
 * The columns of a log row ever updated after it is appended, in column order: the status columns (Status … Message), then
 * the columns added later (the Account, when the user claims a row of an older log; Notional before and Sent at, written
 * before the request leaves; the user's Decision and its time; the Final hash, the chain's seal written with the final status).
 */
export const LOG_STATUS_FIELDS = [
  "status",
  "hedgeId",
  "orderTxHash",
  "fillTxHash",
  "struckRate",
  "filledAt",
  "errorCode",
  "message",
  "account",
  "notionalBefore",
  "sentAt",
  "decision",
  "decidedAt",
  "finalHash",
] as const;
export type LogStatusField = (typeof LOG_STATUS_FIELDS)[number];

/** An update of one log row, found by its idempotency key; absent fields keep their value. */
export type LogUpdate = { idempotencyKey: string } & Partial<Pick<LogRecord, LogStatusField>>;

/**
 * Which log rows to read. A row is returned when it matches any criterion given (an empty query matches nothing; use
 * readLog() without a query for every row).
 */
export interface LogQuery {
  /** Rows with one of these idempotency keys. */
  keys?: readonly string[];
  /** Rows whose Status is not one of these (e.g. the final statuses: the unfinished rows). */
  statusNotIn?: readonly string[];
  /** Rows logged at or after this instant (ISO 8601 UTC). */
  loggedSince?: string;
  /** Rows acting on one of these hedges (Hedge id column). */
  hedgeIds?: readonly string[];
}

/** Whether a record matches a query (the in-memory rule every implementation follows). */
export function matchesLogQuery(record: LogRecord, query: LogQuery): boolean {
  if (query.keys?.includes(record.idempotencyKey)) return true;
  if (query.statusNotIn && !query.statusNotIn.includes(record.status)) return true;
  if (query.loggedSince !== undefined) {
    const at = utcMs(record.loggedAt);
    if (Number.isFinite(at) && at >= utcMs(query.loggedSince)) return true;
  }
  if (query.hedgeIds && record.hedgeId && query.hedgeIds.includes(record.hedgeId)) return true;
  return false;
}

export interface LogUpdateResult {
  /** Idempotency keys of updates that found no log row (nothing was written for them). */
  missing: string[];
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
  { field: "notionalBefore", header: "Notional before (USD)", kind: "usd", numberFormat: "#,##0.00", width: 100 },
  { field: "sentAt", header: "Sent at (UTC)", kind: "date", numberFormat: "yyyy-mm-dd hh:mm:ss", width: 120 },
  { field: "decision", header: "Decision", kind: "text", numberFormat: "@", width: 200 },
  { field: "decidedAt", header: "Decided at (UTC)", kind: "date", numberFormat: "yyyy-mm-dd hh:mm:ss", width: 120 },
  // Issue 24: the approval a row was sent under, and the log's hash chain (log-chain.ts).
  { field: "batchHash", header: "Batch hash", kind: "text", numberFormat: "@", width: 140 },
  { field: "preparedBy", header: "Prepared by", kind: "text", numberFormat: "@", width: 130 },
  { field: "approvedBy", header: "Approved by", kind: "text", numberFormat: "@", width: 130 },
  { field: "prevHash", header: "Prev hash", kind: "text", numberFormat: "@", width: 140 },
  { field: "rowHash", header: "Row hash", kind: "text", numberFormat: "@", width: 140 },
  { field: "finalHash", header: "Final hash", kind: "text", numberFormat: "@", width: 140 },
];

export const LOG_HEADERS: readonly string[] = LOG_COLUMNS.map((c) => c.header);

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

/** The sheet holding one archived year of the log ("Hedge Log 2025"), and its table ("HedgeLog2025"). */
export const archiveSheetName = (year: number): string => `${LOG_SHEET_NAME} ${year}`;
export const archiveTableName = (year: number): string => `${LOG_TABLE_NAME}${year}`;

/** What to move from the log to its year sheets. Only finished rows move; every other row stays in the log. */
export interface LogArchiveRequest {
  /** Rows logged before this instant (ISO 8601 UTC) may move. */
  before: string;
  /** The finished statuses (FINAL_STATUSES): a row with any other status, or an unreadable time, never moves. */
  finalStatuses: readonly string[];
  /** Count what would move; move nothing. */
  dryRun?: boolean;
  /** Called after each chunk moved: rows moved so far, rows to move. */
  onProgress?: (moved: number, total: number) => void;
}

export interface LogArchiveResult {
  /** Rows moved (in a dry run: that would move). */
  total: number;
  /** The same by year logged ("2025" → 1200). */
  byYear: Record<string, number>;
  /** Rows logged before the cut-off that stay in the log: unfinished, or with a time that cannot be read. */
  kept: number;
  /** The year sheets written to (or that would be). */
  sheets: string[];
}
