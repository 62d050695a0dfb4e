// The per-user intent journal port: every row's intent kept beside the API key (per environment and account) until it is final and a while after, so a workbook closed without saving loses nothing. Implemented in src/excel/intent-store.ts.
import { utcMs } from "../api/time";
import { LOG_COLUMNS, type LogRecord } from "./log/hedge-log";
import { canMove, isIntentStatus } from "./intent";

/** One intent as the per-user journal keeps it: its log record plus what only this computer knows. */
export interface StoredIntent {
  record: LogRecord;
  /** Fingerprint of the API key that sent it (idempotency keys are per API key): a re-send is only ever made under the same key. */
  keyId: string | null;
  /** Idempotency key of a row that was already in the same Hedge Log when this one was appended (null: the log was empty). */
  anchor: string | null;
  /** When it became final (ISO 8601 UTC); null while unfinished. Final entries are pruned after a while. */
  finalAt: string | null;
  /** The id of the workbook whose Hedge Log it was appended to (see WorkbookIdentity); null: journalled before ids were kept. */
  workbookId?: string | null;
  /** That workbook's file name when it was appended, where Excel knew it (shown in other workbooks; never used to decide). */
  workbookName?: string | null;
  /** Ids of the workbooks where the user dismissed it as another workbook's row (it is not listed there again). */
  dismissedIn?: string[];
  /** Why it waits for the user's decision (RowStatus.parkedFor); null or absent: it does not, or an older version parked it. */
  parkedFor?: string | null;
}

/**
 * Per-user storage of intents, one entry per idempotency key within a scope (environment and account). Writes are
 * durable when the promise resolves: the desk writes here before a request leaves.
 */
export interface IntentStore {
  load(scope: string): Promise<StoredIntent[]>;
  /** Adds or replaces these entries (by idempotency key), never taking a stored entry back (see `laterOf`). */
  put(scope: string, intents: readonly StoredIntent[]): Promise<void>;
  remove(scope: string, idempotencyKeys: readonly string[]): Promise<void>;
  /** The newest link this computer wrote into a workbook's Hedge Log (see chain-head.ts); null when it wrote none. */
  loadHead(workbookId: string): Promise<ChainHead | null>;
  /** Keeps `head` as that workbook's newest link (replacing the one kept). Durable when the promise resolves. */
  putHead(head: ChainHead): Promise<void>;
}

/**
 * This computer's newest link in one workbook's Hedge Log: the Row hash of the last row it appended there, and when it
 * appended it (to tell it from a row another computer appended after it). One per workbook id, across environments and
 * accounts (the log's chain is one for the whole log).
 */
export interface ChainHead {
  workbookId: string;
  rowHash: string;
  /** When this computer appended that row (ISO 8601 UTC). */
  writtenAt: string;
}

/** A head back from its stored text (JSON); null for text this version cannot read. */
export function decodeChainHead(text: string | null | undefined): ChainHead | null {
  let h: Partial<ChainHead> | null = null;
  try {
    h = JSON.parse(text ?? "") as Partial<ChainHead> | null;
  } catch {
    // Not JSON: refused below like any other text this version did not write.
  }
  if (!h || typeof h.workbookId !== "string" || typeof h.rowHash !== "string" || typeof h.writtenAt !== "string") return null;
  return { workbookId: h.workbookId, rowHash: h.rowHash, writtenAt: h.writtenAt };
}

/** Final entries are kept this long (for the duplicate check and to restore rows a workbook closed without saving lost)… */
export const FINAL_KEEP_MS = 7 * 86_400_000;
/** …and at most this many of them (the newest); unfinished entries are never pruned. */
export const FINAL_KEEP_COUNT = 2_000;

/** The scope of a desk: its environment and account ("-" for a key whose account has no address). */
export function intentScope(environment: string, account: string | null): string {
  return `${environment}:${(account ?? "-").toLowerCase()}`;
}

/** Entries to drop: final ones older than FINAL_KEEP_MS, and beyond the newest FINAL_KEEP_COUNT. */
export function prunable(entries: readonly StoredIntent[], nowMs: number): string[] {
  const finals = entries
    .filter((e) => e.finalAt !== null)
    .sort((a, b) => utcMs(b.finalAt!) - utcMs(a.finalAt!) || (a.record.idempotencyKey < b.record.idempotencyKey ? -1 : 1));
  return finals.filter((e, i) => i >= FINAL_KEEP_COUNT || nowMs - utcMs(e.finalAt!) > FINAL_KEEP_MS).map((e) => e.record.idempotencyKey);
}

/**
 * What to store when `next` is written over `stored` (same idempotency key). Two panes (two workbooks open at once)
 * share this journal, and a slower one may write an older copy of a row: a write that would take the row to a state
 * its state machine cannot reach from the stored one (filled → submitting, submitted → submitting) keeps the stored
 * entry (a write in the same state is taken), and the facts written before a request left (Sent at, Notional before, the sending key) are never lost.
 */
function laterOf(stored: StoredIntent | null, next: StoredIntent): StoredIntent {
  if (stored === null) return next;
  const from = stored.record.status;
  const to = next.record.status;
  if (from !== to && isIntentStatus(from) && isIntentStatus(to) && !canMove(from, to)) return stored;
  return {
    ...next,
    record: {
      ...next.record,
      sentAt: next.record.sentAt ?? stored.record.sentAt ?? null,
      notionalBefore: next.record.notionalBefore ?? stored.record.notionalBefore ?? null,
    },
    keyId: next.keyId ?? stored.keyId,
    workbookId: next.workbookId ?? stored.workbookId,
    workbookName: next.workbookName ?? stored.workbookName,
    dismissedIn: [...new Set([...(stored.dismissedIn ?? []), ...(next.dismissedIn ?? [])])],
  };
}

/** The text to store for `next` where the store holds `previous` under its key (none: null): see laterOf. */
export function storedText(previous: string | null | undefined, next: StoredIntent): string {
  return encodeStoredIntent(laterOf(previous ? decodeStoredIntent(previous) : null, next));
}

/** The log columns the first text form (version 1) held: LOG_COLUMNS up to "Decided at (UTC)". */
const V1_COLUMNS = 22;

/**
 * A compact text form (an array: version 2, the number of LOG_COLUMNS held, their values in LOG_COLUMNS order, then the
 * extras): ~40 % of the JSON of the object. Columns are only ever appended to LOG_COLUMNS, so a count tells which they are.
 * Every column is held but the chain's cells (part "link": the log's own, since a row written back from the journal is a
 * new link, and this computer's newest link is kept apart, ChainHead), whose places hold null. (Until issue 38 the form
 * held the columns up to the first link one, so a column appended after the chain's was not kept: such entries read the
 * same, their count telling which columns they hold.)
 */
export function encodeStoredIntent(entry: StoredIntent): string {
  const record = entry.record as unknown as Record<string, unknown>;
  return JSON.stringify([
    2,
    LOG_COLUMNS.length,
    ...LOG_COLUMNS.map((c) => (c.part === "link" ? null : (record[c.field] ?? null))),
    entry.keyId,
    entry.anchor,
    entry.finalAt,
    entry.workbookId ?? null,
    entry.workbookName ?? null,
    entry.dismissedIn ?? [],
    entry.parkedFor ?? null,
  ]);
}

/** Back from encodeStoredIntent (or its version 1, without the count); null for text this version cannot read (it is then left alone). */
export function decodeStoredIntent(text: string): StoredIntent | null {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: refused below like any other text this version did not write.
  }
  if (!Array.isArray(parsed)) return null;
  // Where the column values start, and how many there are (a newer version's extra columns are skipped, not misread).
  const [from, count] =
    parsed[0] === 1 ? [1, V1_COLUMNS] : parsed[0] === 2 && Number.isInteger(parsed[1]) ? [2, parsed[1] as number] : [0, -1];
  if (count < V1_COLUMNS || parsed.length < from + count + 3) return null;
  const record: Record<string, unknown> = {};
  LOG_COLUMNS.forEach((c, i) => (record[c.field] = i < count && c.part !== "link" ? parsed[from + i] : null));
  if (typeof record.idempotencyKey !== "string" || record.idempotencyKey === "") return null;
  const extras = parsed.slice(from + count);
  const [keyId, anchor, finalAt, workbookId, workbookName] = extras as Array<string | null | undefined>;
  const dismissed: unknown = extras[5];
  const parkedFor: unknown = extras[6];
  return {
    record: record as unknown as LogRecord,
    keyId: keyId ?? null,
    anchor: anchor ?? null,
    finalAt: finalAt ?? null,
    // Entries written before workbook ids were kept end here: they read as of no known workbook.
    workbookId: typeof workbookId === "string" ? workbookId : null,
    workbookName: typeof workbookName === "string" ? workbookName : null,
    dismissedIn: Array.isArray(dismissed) ? dismissed.filter((d): d is string => typeof d === "string") : [],
    parkedFor: typeof parkedFor === "string" ? parkedFor : null,
  };
}
