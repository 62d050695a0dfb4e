// The workbook port of the trading engine: the selected rows in, the "Hedge Log" out. Implemented by src/excel (Office.js and in-memory).
import { newIdempotencyKey } from "../api/client";
import type { CellValue } from "./cells";
import type { LogArchiveRequest, LogArchiveResult, LogQuery, LogRecord, LogUpdate, LogUpdateResult } from "./log/hedge-log";

/** One data row of the selection, with its 1-based sheet row number (what the user sees in Excel's row header). */
export interface SheetRow {
  rowNumber: number;
  values: CellValue[];
}

/**
 * The rows the user selected and sees. When the selection sits in an Excel table, the table's header and the table rows the
 * selection covers (the table is intersected with the selection, not taken whole). Otherwise the selected rows across the
 * used range's columns, with the used range's first row as the header row (a selected header row is not returned as data).
 * Rows hidden by a filter or by the user are left out and counted. A selection of several areas is read area by area
 * when all sit under the same header, and refused otherwise.
 */
export interface SelectedRows {
  sheetName: string;
  /** Address of what was read, e.g. "Exposures!A2:E9" (visible rows only: "Exposures!A2:E4,A7:E9"). */
  address: string;
  /** The table's name when the selection sat in one, else null. */
  tableName: string | null;
  headers: string[];
  /** Sheet row number of the header row. */
  headerRowNumber: number;
  rows: SheetRow[];
  /** Rows inside the selection left out because Excel hides them (filtered out, or hidden by the user); the pane says how many. */
  hiddenRowsSkipped: number;
}

/**
 * Which workbook this is: a random id the add-in writes once into a custom document property (saved in the file; not a
 * secret) and the file's name where Excel knows it. This computer's journal keeps both with every row, so a row is only
 * ever written back into the workbook it came from.
 */
export interface WorkbookIdentity {
  id: string;
  name: string | null;
  /** The id was written in this session: the file had none when it was opened. */
  fresh?: boolean;
}

/** The custom document property holding the workbook's id. */
export const WORKBOOK_ID_PROPERTY = "HedgeWorkbookId";

/** A new workbook id: random, not a secret (it only tells one workbook's rows from another's on this computer). */
export function newWorkbookId(): string {
  return `wb-${newIdempotencyKey()}`;
}

/** A row of the Hedge Log or of one of its year sheets, and where it stands (month end names it in its findings). */
export interface PlacedLogRow {
  sheet: string;
  /** 1-based sheet row, as Excel's row header shows it. */
  rowNumber: number;
  record: LogRecord;
}

/** The journal's rows among rows read with their places: those with a key (what readLog() returns), in the same order. */
export function journalRecords(rows: readonly PlacedLogRow[]): LogRecord[] {
  return rows.filter((r) => r.record.idempotencyKey.trim() !== "").map((r) => r.record);
}

/** The workbook as the trading engine sees it. Implementations: office-workbook.ts (Excel.run) and memory-workbook.ts. */
export interface Workbook {
  /** The selected visible rows (see SelectedRows). Throws a clear error when nothing usable is selected. */
  readSelection(): Promise<SelectedRows>;
  /** Creates the "Hedge Log" sheet and table (headers, number and date formats, column widths) when missing. Safe to call again. */
  ensureLog(): Promise<void>;
  /**
   * Rows of the log in sheet order (oldest first; empty when there is no log yet). Without a query, every row (month end).
   * With one, only the rows matching any of its criteria: implementations read the query's columns first and then only the
   * matching rows, so the work follows the answer, not the log's size.
   */
  readLog(query?: LogQuery): Promise<LogRecord[]>;
  /**
   * Every row month end reads, in chain order ("Hedge Log YYYY" sheets oldest first, then the log), each with its sheet and
   * 1-based sheet row, read in chunks: the rows of readLog() in the same order, plus rows without a key that hold anything.
   */
  readLogRows?(): Promise<PlacedLogRow[]>;
  /**
   * The log's last body row (whatever its content: a row typed in too), or null when the log is missing, empty, or ends in a
   * blank row. One row read, whatever the log's size: the journal takes the link its next row follows from it.
   */
  readLastLogRecord(): Promise<LogRecord | null>;
  /** Appends rows at the end of the log table (creating it when missing). Rows are never inserted elsewhere nor deleted. */
  appendLog(records: LogRecord[]): Promise<void>;
  /**
   * Updates the status columns of existing rows, found by idempotency key. Keys with no row (a deleted row, an edited
   * key) are skipped and returned in `missing`; the other updates are still written.
   */
  updateLog(updates: LogUpdate[]): Promise<LogUpdateResult>;
  /** This workbook's identity, writing its id the first time (see WorkbookIdentity). */
  identity(): Promise<WorkbookIdentity>;
  /** Brings the log sheet to the front (for the pane's "Show log"). */
  showLog(): Promise<void>;
  /**
   * Moves finished rows logged before a cut-off to "Hedge Log YYYY" sheets (by the year logged), in chunks, copying before
   * removing. Unfinished rows never move. readLog() without a query reads those sheets too; queries read the live log only.
   */
  archiveLog?(request: LogArchiveRequest): Promise<LogArchiveResult>;
}
