// Archiving the Hedge Log, as plain logic: which rows may move to "Hedge Log YYYY" (finished, older than the cut-off, never an unfinished one, chains whole), and merging the archive back for month end.
import { utcMs } from "../api/time";
import type { CellValue } from "../trading/cells";
import { archiveSheetName, type LogArchiveRequest, type LogArchiveResult, type LogRecord } from "../trading/log/hedge-log";
import { dateText } from "./log-layout";

export interface ArchiveCandidate {
  /** 0-based body row in the log. */
  row: number;
  /** Its idempotency key ("" for a row that is not a journal row: it stays). */
  key: string;
  status: string;
  /** The Logged at cell as read (a serial, or text). */
  loggedAt: CellValue;
}

export interface ArchiveMove {
  row: number;
  key: string;
  year: number;
}

/** The instant a Logged at value stands for, or NaN when it cannot be read. */
function loggedMs(loggedAt: CellValue | string | null): number {
  const text = typeof loggedAt === "number" ? dateText(loggedAt) : loggedAt;
  return text === null || text === "" ? NaN : utcMs(String(text));
}

/** Whether a row may move: a finished status and a readable time before the cut-off. */
export function isArchivable(
  row: Pick<LogRecord, "status" | "loggedAt">,
  request: Pick<LogArchiveRequest, "before" | "finalStatuses">,
): boolean {
  const at = loggedMs(row.loggedAt);
  return request.finalStatuses.includes(row.status.trim()) && Number.isFinite(at) && at < utcMs(request.before);
}

/**
 * The rows to move (in log order, with the year each goes to) and the counts the pane shows before and after. Chains move
 * whole: the year sheets (oldest first) then the log must still read in the order the rows were written, so only the
 * longest run of movable rows from the top of the log moves, in years that never go back (nor before `newestYear`, the
 * newest year sheet already there); it stops at the first row that must stay (unfinished, unreadable time, not yet
 * before the cut-off), and the rows after it stay too (counted in `kept` when logged before the cut-off).
 */
export function planArchive(
  candidates: readonly ArchiveCandidate[],
  request: LogArchiveRequest,
  newestYear: number | null = null,
): { moves: ArchiveMove[]; result: LogArchiveResult } {
  const cutoff = utcMs(request.before);
  if (!Number.isFinite(cutoff)) throw new Error(`Archive cut-off "${request.before}" is not an ISO 8601 time.`);
  const moves: ArchiveMove[] = [];
  let kept = 0;
  let moving = true;
  let lastYear = newestYear ?? -Infinity;
  for (const c of candidates) {
    if (c.key === "") continue; // not a journal row (blank, or typed in without a key): no link of the chain, it stays where it is
    const at = loggedMs(c.loggedAt);
    const year = new Date(at).getUTCFullYear();
    if (moving && isArchivable({ status: c.status, loggedAt: dateText(c.loggedAt) ?? "" }, request) && year >= lastYear) {
      moves.push({ row: c.row, key: c.key, year });
      lastYear = year;
      continue;
    }
    moving = false;
    if (!Number.isFinite(at) || at < cutoff) kept++;
  }
  const byYear: Record<string, number> = {};
  for (const m of moves) byYear[m.year] = (byYear[m.year] ?? 0) + 1;
  const years = archiveYears(moves);
  return { moves, result: { total: moves.length, byYear, kept, sheets: years.map(archiveSheetName) } };
}

/** The years the moves go to, oldest first. */
export function archiveYears(moves: readonly ArchiveMove[]): number[] {
  return [...new Set(moves.map((m) => m.year))].sort((a, b) => a - b);
}

/**
 * The archive's rows then the log's, each key once: a row found in both (an archive stopped between copying and removing)
 * counts once, as the log's. Rows without a key (typed in by hand) are no journal rows: each is kept where it stands.
 */
export function dedupeByKey<T = LogRecord>(
  archived: readonly T[],
  live: readonly T[],
  keyOf: (row: T) => string = (r) => (r as LogRecord).idempotencyKey,
): T[] {
  const liveKeys = new Set(live.map(keyOf));
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of archived) {
    const key = keyOf(r);
    if (key.trim() !== "" && (liveKeys.has(key) || seen.has(key))) continue;
    seen.add(key);
    out.push(r);
  }
  return [...out, ...live];
}

/** Whether a log row read back holds anything in the add-in's columns (a blank row is no row of the log). */
export function holdsAnything(record: LogRecord): boolean {
  return Object.values(record).some((v) => v !== null && v !== undefined && v !== "");
}
