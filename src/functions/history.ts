// HEDGE.HISTORY([from], [to]): its arguments (Excel dates or ISO text), its topic (every page of GET /hedges/history in the window, refreshed slowly), and its spill.
import { ArgumentError } from "../feeds/feed-error";
import { utcMs } from "../api/time";
import type { TopicSpec } from "../feeds/topic";
import { fetchHistory, type HistoryRead } from "../monthend/month-data";
import { isOmitted } from "./args";
import { table, type Spill } from "./cells";
import { cellErrorOfThrown, outcomeOf, type CellStreams, type Sink } from "./stream";

/** Every field of a Closed-hedge record, in the spec's order, then the two the sandbox adds (empty when the service omits them). */
export const HISTORY_FIELDS = [
  "market",
  "side",
  "size_usd",
  "collateral_usdc",
  "entry_price",
  "exit_price",
  "opened_at",
  "closed_at",
  "exit_type",
  "gross_pnl_usd",
  "net_pnl_usd",
  "carry_usd",
  "fees_usd",
  "hedge_id",
  "client_reference",
] as const;

const MS_PER_DAY = 86_400_000;
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
/** Pages of 500 records one HISTORY cell reads at most per refresh. */
export const HISTORY_MAX_PAGES = 10;

/** A window on closed_at: from (inclusive) and to (exclusive), epoch ms, either open. */
interface HistoryWindow {
  fromMs: number | null;
  toMs: number | null;
}

interface Instant {
  ms: number;
  /** A date without a time of day: as `to`, it includes that whole day. */
  wholeDay: boolean;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([zZ]|[+-]\d{2}:?\d{2})?$/;

function instantOf(value: unknown, name: string): Instant {
  const help = `${name} must be a date: an Excel date such as DATE(2026,11,1), or ISO text such as "2026-11-01" or "2026-11-01T00:00:00Z" (UTC)`;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 1) throw new ArgumentError(name, `${help}; got ${value}.`);
    return { ms: Math.round(EXCEL_EPOCH_MS + value * MS_PER_DAY), wholeDay: Number.isInteger(value) };
  }
  if (typeof value === "string") {
    const text = value.trim();
    if (DATE_ONLY.test(text)) {
      const ms = utcMs(text);
      if (Number.isFinite(ms)) return { ms, wholeDay: true };
    } else if (DATE_TIME.test(text)) {
      const ms = utcMs(text);
      if (Number.isFinite(ms)) return { ms, wholeDay: false };
    }
    throw new ArgumentError(name, `${help}; got "${value}".`);
  }
  throw new ArgumentError(name, `${help}; got ${String(value)}.`);
}

/**
 * The window of HEDGE.HISTORY(from, to) on closed_at. `from` is inclusive. `to` given as a date alone (a whole Excel
 * date or "2026-11-30") includes that whole day; with a time of day the window ends just before that instant.
 */
export function historyWindow(from: unknown, to: unknown): HistoryWindow {
  const f = isOmitted(from) ? null : instantOf(from, "from");
  const t = isOmitted(to) ? null : instantOf(to, "to");
  const toMs = t === null ? null : t.wholeDay ? t.ms + MS_PER_DAY : t.ms;
  if (f !== null && toMs !== null && f.ms >= toMs) {
    throw new ArgumentError(
      "to",
      `to must be after from: the window from ${new Date(f.ms).toISOString()} to ${new Date(toMs).toISOString()} is empty.`,
    );
  }
  return { fromMs: f?.ms ?? null, toMs };
}

/** The topic of one window: every page of history in it, newest first, and whether that is all (endpoint "history": the slow refresh, 60 s by default). */
function historyWindowTopic(closedAt: HistoryWindow): TopicSpec<HistoryRead> {
  const iso = (ms: number | null) => (ms === null ? "" : new Date(ms).toISOString());
  return {
    key: `history-window:${iso(closedAt.fromMs)}|${iso(closedAt.toMs)}`,
    endpoint: "history",
    async fetch(client, context) {
      const data = await fetchHistory(client, closedAt.fromMs ?? 0, closedAt.toMs, {
        signal: context.signal,
        maxHistoryPages: HISTORY_MAX_PAGES,
      });
      return { data, meta: {} };
    },
  };
}

/** How the first cell of the last row of a spill cut short begins ("LIST CUT at 5000 records"); the next cell says why. */
const HISTORY_CUT_MARK = "LIST CUT";

/**
 * The spill: a header row of HISTORY_FIELDS, then one row per record, newest first; times as Excel date serials (UTC).
 * When the read was cut short, a last row says so: "LIST CUT at N records" in its first cell, what is missing and why in the next.
 */
function historySpill(read: HistoryRead): Spill {
  const newestFirst = [...read.records].sort((a, b) => utcMs(b.closed_at) - utcMs(a.closed_at));
  const spill = table(newestFirst, HISTORY_FIELDS);
  if (!read.complete) {
    const why = read.incompleteReason ?? "it was cut short";
    const row: Spill[number] = HISTORY_FIELDS.map(() => "");
    row[0] = `${HISTORY_CUT_MARK} at ${read.records.length} records`;
    row[1] = `Only the newest ${read.records.length} records of the window are listed; older ones are missing: ${why}. Narrow the window with from and to.`;
    spill.push(row);
  }
  return spill;
}

/** HEDGE.HISTORY: checks the arguments (a bad one shows #VALUE! naming it), then streams the window's records. */
export function history(streams: CellStreams, sink: Sink<Spill>, from: unknown, to: unknown): void {
  try {
    const closedAt = historyWindow(from, to);
    streams.open(sink, "history", historyWindowTopic(closedAt), (s) => outcomeOf(s, historySpill));
  } catch (e) {
    streams.fail(sink, cellErrorOfThrown(e));
  }
}
