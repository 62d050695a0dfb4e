// Reads what a month's reconciliation needs from the service: account, history since the month began (paged), positions, hedges, and each hedge the log names.
import { sameAccount } from "../trading/duplicates";
import type { HedgingClient } from "../api/client";
import { isHedgingApiError } from "../api/errors";
import { LIST_LIMIT_MAX, type ClosedHedge, type Hedge } from "../api/schemas";
import { utcMs } from "../api/time";
import type { LogRecord } from "../trading/log/hedge-log";
import type { MonthWindow } from "./month";
import type { MonthData } from "./recon-model";

/** The client calls the month-end uses. */
export type MonthEndClient = Pick<HedgingClient, "environment" | "account" | "positions" | "list" | "get" | "history">;

export interface FetchOptions {
  /** Epoch ms of "now" (the time generated). */
  now?: () => number;
  onProgress?: (message: string) => void;
  signal?: AbortSignal;
  /** Most history pages to read (500 records each). Default 40. */
  maxHistoryPages?: number;
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
    // Records at the page boundary were returned by the previous page already: skip as many as it had.
    const seenAtBoundary = new Map<string, number>();
    if (page > 0 && boundary !== null) {
      for (const r of out)
        if (utcMs(r.closed_at) === boundary - 1) seenAtBoundary.set(JSON.stringify(r), (seenAtBoundary.get(JSON.stringify(r)) ?? 0) + 1);
    }
    let fresh = 0;
    for (const r of data) {
      const t = utcMs(r.closed_at);
      // Outside the window, or at or after this page's own `to` (a service that ignores `to` sends the newest again).
      if (!(t >= fromMs) || (toMs !== null && t >= toMs) || (boundary !== null && t >= boundary)) continue;
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
    if (Number.isFinite(oldest) && oldest < fromMs) {
      incompleteReason = null; // this page reached back past the window's start
      break;
    }
    if (fresh === 0 || !Number.isFinite(oldest)) {
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
): Promise<MonthData> {
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
  const [positions, newest, filled, submitted] = await Promise.all([
    client.positions(signal),
    client.list({ limit: LIST_LIMIT_MAX }, signal),
    client.list({ status: "filled", limit: LIST_LIMIT_MAX }, signal),
    client.list({ status: "submitted", limit: LIST_LIMIT_MAX }, signal),
  ]);
  const hedges = new Map<string, Hedge>();
  for (const h of [...newest.data, ...filled.data, ...submitted.data]) hedges.set(h.id, h);

  // Hedge ids and client references of this environment's log rows that the lists did not return: ask for each one.
  const env = client.environment.toLowerCase();
  const envLog = log.filter((r) => String(r.environment).toLowerCase() === env && sameAccount(r.account, account.account_address));
  const inHistory = new Set(history.map((r) => r.hedge_id).filter(Boolean));
  const missingIds = [...new Set(envLog.map((r) => r.hedgeId).filter((id): id is string => !!id && !hedges.has(id) && !inHistory.has(id)))];
  if (missingIds.length > 0) progress(`Looking up ${missingIds.length} hedges named in the log…`);
  await Promise.all(
    missingIds.map(async (id) => {
      try {
        const { data } = await client.get(id, signal);
        hedges.set(data.id, data);
      } catch (e) {
        // Not found is an answer (the reconciliation flags the row); anything else stops the run rather than flag wrongly.
        if (!(isHedgingApiError(e) && e.code === "hedge_not_found")) throw e;
      }
    }),
  );
  const knownRefs = new Set([...hedges.values()].map((h) => h.client_reference).concat(history.map((r) => r.client_reference)));
  const missingRefs = [
    ...new Set(
      envLog.filter((r) => !r.hedgeId && r.clientReference && !knownRefs.has(r.clientReference)).map((r) => r.clientReference as string),
    ),
  ];
  if (missingRefs.length > 0) progress(`Looking up ${missingRefs.length} client references named in the log…`);
  await Promise.all(
    missingRefs.map(async (ref) => {
      const { data } = await client.list({ client_reference: ref, limit: LIST_LIMIT_MAX }, signal);
      for (const h of data) hedges.set(h.id, h);
    }),
  );

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
    log,
  };
}
