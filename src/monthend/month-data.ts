// Reads what a month's reconciliation needs from the service: account, history since the month began (paged), positions, the hedges opened since shortly before the month (paged), and a hedge the log names that those pages could not show.
import { sameAccount } from "../trading/duplicates";
import type { HedgingClient } from "../api/client";
import { isHedgingApiError } from "../api/errors";
import { LIST_LIMIT_MAX, type ClosedHedge, type Hedge } from "../api/schemas";
import { utcMs } from "../api/time";
import type { LogRecord } from "../trading/log/hedge-log";
import { isControlRecord } from "../trading/log/control-row";
import type { MonthWindow } from "./month";
import { PENDING, type MonthData } from "./recon-model";

/** The client calls the month-end uses. */
/** What month end asks of the service; `quote` prices the rolls (absent: their exit impacts and ROLLCOST's figure are not known). */
export type MonthEndClient = Pick<HedgingClient, "environment" | "account" | "positions" | "list" | "get" | "history"> &
  Partial<Pick<HedgingClient, "quote">>;

export interface FetchOptions {
  /** Epoch ms of "now" (the time generated). */
  now?: () => number;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
  /** Most history pages to read (500 records each). Default 40. */
  maxHistoryPages?: number;
  /** Most pages of hedges to read (500 each). Default 40. */
  maxHedgePages?: number;
}

/** The longest tenor (7 days) and a day: a hedge acted on in the month was opened at most this long before it. */
export const HEDGES_BEFORE_MS = 8 * 86_400_000;

/** What a read of the hedge list brought. */
export interface HedgesRead {
  /** Newest first. */
  hedges: Hedge[];
  /** True when the pages reached back before `sinceMs` (or the list's end): every hedge opened since is among them. */
  complete: boolean;
}

/**
 * Every hedge opened at or after `sinceMs`, newest first, in pages of 500 (`GET /hedges?limit=500&starting_after=…`: the
 * cursor is an assumption, README "Service assumptions"): about one request per 500 hedges of the period, whatever the
 * log's size. Stops at a short page, at a page whose oldest hedge opened before `sinceMs`, at the page limit, or at a page
 * with nothing new (a service that ignores the cursor repeats its first page): the last two leave the read incomplete.
 */
export async function fetchHedges(
  client: Pick<HedgingClient, "list">,
  sinceMs: number,
  options: Pick<FetchOptions, "signal" | "maxHedgePages"> = {},
): Promise<HedgesRead> {
  const seen = new Map<string, Hedge>();
  let after: string | undefined;
  for (let page = 0; page < (options.maxHedgePages ?? 40); page++) {
    const { data } = await client.list({ limit: LIST_LIMIT_MAX, ...(after ? { starting_after: after } : {}) }, options.signal);
    const known = seen.size;
    for (const h of data) seen.set(h.id, h); // a hedge listed again keeps its place: only new ids count as new
    if (data.length < LIST_LIMIT_MAX) return { hedges: [...seen.values()], complete: true };
    if (data.some((h) => utcMs(h.opened_at ?? "") < sinceMs)) return { hedges: [...seen.values()], complete: true };
    if (seen.size === known) break;
    after = data[data.length - 1].id;
  }
  return { hedges: [...seen.values()], complete: false };
}

/** What a history read brought: the records, and whether they are all of the window's. */
export interface HistoryRead {
  /** Newest first. */
  records: ClosedHedge[];
  /** False when the read stopped before reaching the window's start: older records of the window are missing. */
  complete: boolean;
  /** Why it stopped short, in words for the user (null when complete). */
  incompleteReason: string | null;
}

/**
 * Closed-hedge records closed at or after `fromMs` (and before `toMs` when given), newest first, every page.
 * Pages go back in time by moving `to` (exclusive) to the oldest record of the page plus 1 ms, dropping the records
 * already seen at that instant; the window is applied again here, so a service that ignores it gives the same result.
 * The read is complete when a page comes back short or reaches back past `fromMs`. It is cut short, and says so,
 * when the page limit is reached or a full page brings nothing new (a service that ignores `to` answers the same
 * newest page every time; so does one holding more than a page of records at one instant).
 */
export async function fetchHistory(
  client: Pick<HedgingClient, "history">,
  fromMs: number,
  toMs: number | null,
  options: Pick<FetchOptions, "signal" | "maxHistoryPages"> = {},
): Promise<HistoryRead> {
  const from = new Date(fromMs).toISOString();
  const out: ClosedHedge[] = [];
  let to: number | null = toMs;
  const maxPages = options.maxHistoryPages ?? 40;
  let incompleteReason: string | null = `it stopped at the limit of ${maxPages} pages of ${LIST_LIMIT_MAX} records`;
  for (let page = 0; page < maxPages; page++) {
    const query = { from, limit: LIST_LIMIT_MAX, ...(to !== null ? { to: new Date(to).toISOString() } : {}) };
    const { data } = await client.history(query, options.signal);
    const boundary = to;
    // Records at the page boundary were returned by the previous page already: skip as many as it had (none before the first page).
    const seenAtBoundary = new Map<string, number>();
    if (boundary !== null) {
      for (const r of out)
        if (utcMs(r.closed_at) === boundary - 1) seenAtBoundary.set(JSON.stringify(r), (seenAtBoundary.get(JSON.stringify(r)) ?? 0) + 1);
    }
    let fresh = 0;
    for (const r of data) {
      const t = utcMs(r.closed_at);
      // Outside the window, or at or after this page's own `to` (the window's end on the first page, then each page's:
      // a service that ignores `to` sends the newest again).
      if (!(t >= fromMs) || (boundary !== null && t >= boundary)) continue;
      const key = JSON.stringify(r);
      const seen = seenAtBoundary.get(key) ?? 0;
      if (seen > 0) {
        seenAtBoundary.set(key, seen - 1);
        continue;
      }
      out.push(r);
      fresh++;
    }
    if (data.length < LIST_LIMIT_MAX) {
      incompleteReason = null;
      break;
    }
    const oldest = Math.min(...data.map((r) => utcMs(r.closed_at)).filter(Number.isFinite));
    if (oldest < fromMs) {
      incompleteReason = null; // this page reached back past the window's start
      break;
    }
    if (fresh === 0) {
      incompleteReason = `a full page of ${LIST_LIMIT_MAX} brought no record not already read (the service may ignore the from/to filters)`;
      break;
    }
    to = oldest + 1;
  }
  return {
    records: out.sort((a, b) => utcMs(b.closed_at) - utcMs(a.closed_at)),
    complete: incompleteReason === null,
    incompleteReason,
  };
}

/** Everything reconcile() needs for one month, read from the service now; the log rows are passed in. */
export async function fetchMonthData(
  client: MonthEndClient,
  month: MonthWindow,
  log: LogRecord[],
  options: FetchOptions = {},
): Promise<MonthData & { hedgesComplete: boolean }> {
  const now = options.now ?? Date.now;
  const progress = options.onProgress ?? (() => undefined);
  const signal = options.signal;

  progress("Reading the account…");
  const account = (await client.account(signal)).data;

  progress("Reading the hedge history…");
  // From the month's start with no end: hedges closed after the month tell that they were still open at its end.
  const read = await fetchHistory(client, month.startMs, null, options);
  const history = read.records;

  progress("Reading positions and hedges…");
  const rows = accountRows(log, client.environment, account.account_address);
  const sinceMs = hedgesSinceMs(month, rows);
  const [positions, listed, filled, submitted] = await Promise.all([
    client.positions(signal),
    fetchHedges(client, sinceMs, options),
    client.list({ status: "filled", limit: LIST_LIMIT_MAX }, signal),
    client.list({ status: "submitted", limit: LIST_LIMIT_MAX }, signal),
  ]);
  const hedges = new Map<string, Hedge>();
  for (const h of [...listed.hedges, ...filled.data, ...submitted.data]) hedges.set(h.id, h);

  // Hedge ids and client references of this environment's log rows that the lists did not return: asked for one by one
  // only when the pages stopped short (ids), and only for rows since then (an older row's hedge was reconciled in its month).
  const recent = rows.filter((r) => !(utcMs(r.loggedAt) < sinceMs));
  const lookup = { client, hedges, progress, signal };
  if (!listed.complete) await lookUpHedgeIds(lookup, recent, history);
  await lookUpReferences(lookup, recent, history);

  return {
    environment: client.environment,
    accountAddress: account.account_address,
    window: month,
    generatedAtMs: now(),
    history,
    historyComplete: read.complete,
    historyIncompleteReason: read.incompleteReason,
    positions: positions.data,
    hedges: [...hedges.values()],
    hedgesComplete: listed.complete,
    log,
  };
}

/** The log rows of this environment and account; control rows (a change of a control) name no hedge and are left out. */
function accountRows(log: LogRecord[], environment: string, accountAddress: string | null): LogRecord[] {
  const env = environment.toLowerCase();
  return log.filter((r) => !isControlRecord(r) && String(r.environment).toLowerCase() === env && sameAccount(r.account, accountAddress));
}

/** Where the hedge list reaches back to: every hedge opened since shortly before the month, or before the oldest row still pending. */
function hedgesSinceMs(month: MonthWindow, rows: LogRecord[]): number {
  const pendingSince = Math.min(
    ...rows
      .filter((r) => PENDING.has(r.status))
      .map((r) => utcMs(r.loggedAt))
      .filter(Number.isFinite),
  );
  return Math.min(month.startMs, pendingSince) - HEDGES_BEFORE_MS;
}

/** What a look-up of hedges the lists missed adds to: the hedges read so far, by id. */
interface Lookup {
  client: MonthEndClient;
  hedges: Map<string, Hedge>;
  progress: (message: string) => void;
  signal?: AbortSignal;
}

/** Asks for each hedge id of `rows` that neither the lists nor the history showed; not found is an answer. */
async function lookUpHedgeIds({ client, hedges, progress, signal }: Lookup, rows: LogRecord[], history: ClosedHedge[]): Promise<void> {
  const inHistory = new Set(history.map((r) => r.hedge_id).filter(Boolean));
  const missing = [...new Set(rows.map((r) => r.hedgeId).filter((id): id is string => !!id && !hedges.has(id) && !inHistory.has(id)))];
  if (missing.length > 0) progress(`Looking up ${missing.length} hedges named in the log…`);
  await Promise.all(
    missing.map(async (id) => {
      try {
        const { data } = await client.get(id, signal);
        hedges.set(data.id, data);
      } catch (e) {
        // Not found is an answer (the reconciliation flags the row); anything else stops the run rather than flag wrongly.
        if (!(isHedgingApiError(e) && e.code === "hedge_not_found")) throw e;
      }
    }),
  );
}

/** Asks for the hedges under each client reference of `rows` without a hedge id that no hedge read and no history record holds. */
async function lookUpReferences({ client, hedges, progress, signal }: Lookup, rows: LogRecord[], history: ClosedHedge[]): Promise<void> {
  const known = new Set([...hedges.values()].map((h) => h.client_reference).concat(history.map((r) => r.client_reference)));
  const missing = [
    ...new Set(
      rows.filter((r) => !r.hedgeId && r.clientReference && !known.has(r.clientReference)).map((r) => r.clientReference as string),
    ),
  ];
  if (missing.length > 0) progress(`Looking up ${missing.length} client references named in the log…`);
  await Promise.all(
    missing.map(async (ref) => {
      const { data } = await client.list({ client_reference: ref, limit: LIST_LIMIT_MAX }, signal);
      for (const h of data) hedges.set(h.id, h);
    }),
  );
}
