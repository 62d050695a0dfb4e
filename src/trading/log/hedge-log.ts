// The "Hedge Log" sheet: the field lists derived from its columns (body, status, headers), status updates and queries, a record read back from its cells, and the archive's names and request.
import { fromExcelDate, type CellValue } from "../cells";
import { utcMs } from "../../api/time";
import { LOG_COLUMNS, type LogBodyField, type LogRecord, type LogStatusField } from "./log-columns";

// The schema's one door: the columns and the record live in log-columns.ts (a list apart, so that a test can add a column).
export { LOG_COLUMNS, type LogColumn, type LogField, type LogRecord, type LogStatusField } from "./log-columns";
export type { RowApproval, RowChain, RowJournal, RowOutcome } from "./log-columns";

/**
 * A row's body: the fields it is appended with and that never change after (what was journalled and sent, and the
 * approval it was sent under), in sheet order. The journal keeps them over a later edit of the log and names an edited
 * one in this order (journal-merge.ts). The chain does not read this list: it hashes the fields of its own numbered
 * forms (log-chain.ts's CHAIN_FORMS, made from the columns' `chain` versions).
 */
export const LOG_BODY_FIELDS: readonly LogBodyField[] = LOG_COLUMNS.filter((c) => c.part === "body").map((c) => c.field as LogBodyField);

/**
 * The fields of a log row ever updated after it is appended, in column order: the status columns (Status … Message), then
 * the columns added later (the Account, when the user claims a row of an older log; Notional before and Sent at, written
 * before the request leaves; the user's Decision and its time; the Final hash, the chain's seal written with the final status).
 */
export const LOG_STATUS_FIELDS: readonly LogStatusField[] = LOG_COLUMNS.filter((c) => c.part === "outcome" || "updatable" in c).map(
  (c) => c.field as LogStatusField,
);

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

/** Oldest first by when logged (ISO 8601 UTC texts of one form order as the times do); ties keep their order (sort is stable). */
export function byLoggedAt(a: { loggedAt: string }, b: { loggedAt: string }): number {
  return a.loggedAt < b.loggedAt ? -1 : a.loggedAt > b.loggedAt ? 1 : 0;
}

/** Midnight UTC of the day of `now` (the start of today's rows, as queries read them). */
export function utcDayStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
}

export const LOG_SHEET_NAME = "Hedge Log";
export const LOG_TABLE_NAME = "HedgeLog";

/** The log table's headers, in column order. */
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
