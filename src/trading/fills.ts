// Reading the service about rows: one row at a time (its hedge by id or client reference, and history when closed), and poll rounds over many rows by status-filtered, paged list calls.
import { utcMs } from "../api/time";
import { groupThousands } from "../api/digits";
import type { HedgingClient } from "../api/client";
import { isHedgingApiError } from "../api/errors";
import { LIST_LIMIT_MAX, type ClosedHedge, type Hedge, type HedgeStatus } from "../api/schemas";
import type { Intent } from "./intent";
import { attributeOpen, chained, CLOCK_SKEW_MS, verdict, type Evidence, type Judged } from "./verdict";

/** The desk polls for fills this often while rows wait for theirs: a batch is seen filled within half a second of its last fill (issue 11). */
export const FILL_POLL_MS = 500;
/** The shortest fill poll interval a desk may be given (DeskOptions.pollIntervalMs). */
export const MIN_FILL_POLL_MS = 250;

/** Fill polls spend at most one request per this many ms on average: a round of many pages waits longer before the next. */
export const POLL_MS_PER_REQUEST = 100;

/**
 * The wait before the next poll round: the desk's interval, or longer when the last round took many requests, so that
 * polling 10,000 rows (20 pages a round) stays near 10 requests a second and leaves the rest of the rate to trading.
 */
export function nextPollDelayMs(intervalMs: number, requestsLastRound: number): number {
  return Math.max(intervalMs, requestsLastRound * POLL_MS_PER_REQUEST);
}

/** Hedges per list page (the spec's maximum). */
export const PAGE_SIZE = LIST_LIMIT_MAX;
/** GET /hedges/{id} calls at most per poll round, for rows the pages did not show (their hedge closed, failed or is unknown). */
export const MAX_GETS_PER_ROUND = 10;

const isNotFound = (e: unknown) => isHedgingApiError(e) && e.code === "hedge_not_found";

/** History records from `sinceMs` on (one page of up to 500; enough for the few records a row's hedge has since it was logged). */
async function historySince(client: HedgingClient, sinceMs: number, signal?: AbortSignal): Promise<ClosedHedge[]> {
  return (await client.history({ from: new Date(sinceMs).toISOString(), limit: LIST_LIMIT_MAX }, signal)).data;
}

/**
 * Hedge ids the journal already ties to an Open row, with that row's idempotency key. A deal sent again after its first
 * try failed carries the same client reference: the failed hedge is the first row's, never the second's.
 */
export type OpenedHedges = ReadonlyMap<string, string>;

/** The hedges that can still be this Open's: none another Open row of the journal holds. */
function notOthers(intent: Intent, hedges: Hedge[], taken?: () => OpenedHedges): Hedge[] {
  if (!taken) return hedges;
  const held = taken();
  return hedges.filter((h) => (held.get(h.id) ?? intent.idempotencyKey) === intent.idempotencyKey);
}

/** What the service showed about a row: these hedges (none is "not on the service", not hedge_not_found). */
const shown = (hedges: Hedge[]): Evidence => ({ hedges, notFound: false, records: null });

/**
 * What the service shows about one row: its hedge by id (hedge_not_found noted), else for an Open the hedges carrying its
 * client reference (less those other rows hold: `taken`); and the hedge's closed-hedge records when it is closed. Errors
 * other than hedge_not_found propagate.
 */
export async function observe(client: HedgingClient, intent: Intent, signal?: AbortSignal, taken?: () => OpenedHedges): Promise<Evidence> {
  const evidence: Evidence = { hedges: [], notFound: false, records: null };
  if (intent.hedgeId) {
    try {
      evidence.hedges = [(await client.get(intent.hedgeId, signal)).data];
    } catch (e) {
      if (!isNotFound(e)) throw e;
      evidence.notFound = true;
    }
  } else if (intent.action === "open" && intent.clientReference) {
    evidence.hedges = notOthers(
      intent,
      (await client.list({ client_reference: intent.clientReference, limit: LIST_LIMIT_MAX }, signal)).data,
      taken,
    );
  }
  if (intent.action !== "open" && evidence.hedges.some((h) => h.status === "closed"))
    evidence.records = await historySince(client, utcMs(intent.loggedAt) - CLOCK_SKEW_MS, signal);
  return evidence;
}

/** Reads one row and judges it (with `next`, the next row of its side that found the hedge: see verdict.ts's chain). */
export async function check(
  client: HedgingClient,
  intent: Intent,
  signal?: AbortSignal,
  taken?: () => OpenedHedges,
  next: Intent | null = null,
): Promise<{ evidence: Evidence; verdict: Judged }> {
  const evidence = await observe(client, intent, signal, taken);
  // observe() read the records when a closed hedge needs them (or threw): the verdict is never needs_records.
  return { evidence, verdict: verdict(intent, evidence, next) as Judged };
}

export interface PollRound {
  /** Every row that could be judged this round, with what the service shows. */
  judged: Array<{ intent: Intent; verdict: Judged }>;
  /** Rows whose hedge id the service does not know (hedge_not_found). */
  notFound: Intent[];
  /** Requests made. */
  requests: number;
}

/** A market side's key: one hedge holds a side (market and buy or sell) at a time. */
export const laneOf = (r: { market: string; side: string }) => `${r.market}|${r.side}`;

/** List pages read at most per status when looking for the hedges that hold market sides: 10,000 hedges of each status. */
export const OPEN_LOOKUP_PAGES = 20;
/** Where a lookup that did not reach the lists' end looked, for the messages that say a side's hedge was not found. */
export const OPEN_LOOKUP_SCOPE = `among the newest ${groupThousands(String(OPEN_LOOKUP_PAGES * PAGE_SIZE))} filled and accepted hedges (the service lists more)`;

export interface OpenHedges {
  /** By laneOf: the side's filled hedge, else its accepted (submitted) one. */
  bySide: Map<string, Hedge>;
  /** False when a status had more than OPEN_LOOKUP_PAGES pages: a side missing from bySide may still hold a hedge. */
  complete: boolean;
}

/**
 * The hedges that hold market sides now, from status-filtered list pages (filled, then accepted; newest first), until
 * `enough(bySide)` or the lists end. A service that ignores the cursor repeats its first page, which stops the paging.
 */
export async function openHedges(
  client: HedgingClient,
  signal?: AbortSignal,
  enough: (bySide: Map<string, Hedge>) => boolean = () => false,
): Promise<OpenHedges> {
  const found: OpenHedges = { bySide: new Map(), complete: true };
  for (const status of ["filled", "submitted"] as const) {
    let after: string | undefined;
    for (let page = 0; ; page++) {
      if (page === OPEN_LOOKUP_PAGES) {
        found.complete = false;
        break;
      }
      const { data } = await client.list({ status, limit: PAGE_SIZE, ...(after ? { starting_after: after } : {}) }, signal);
      for (const h of data) if (!found.bySide.has(laneOf(h))) found.bySide.set(laneOf(h), h);
      if (enough(found.bySide)) return found;
      if (data.length < PAGE_SIZE || data[data.length - 1].id === after) break;
      after = data[data.length - 1].id;
    }
  }
  return found;
}

/**
 * Pages of one status, newest first, until every wanted hedge id was seen or the list ends. The cursor is
 * `starting_after` (an assumption; a service that ignores it repeats its first page, which stops the paging).
 */
async function pages(
  client: HedgingClient,
  status: HedgeStatus,
  wanted: (seen: Map<string, Hedge>) => boolean,
  maxPages: number,
  round: PollRound,
  into: Map<string, Hedge>,
  signal?: AbortSignal,
): Promise<void> {
  let after: string | undefined;
  for (let page = 0; page < maxPages && wanted(into); page++) {
    round.requests++;
    const { data } = await client.list({ status, limit: PAGE_SIZE, ...(after ? { starting_after: after } : {}) }, signal);
    const known = into.size;
    for (const h of data) into.set(h.id, h);
    // The last page, or one with nothing new (a service that ignores the cursor repeats its first page).
    if (data.length < PAGE_SIZE || into.size === known) return;
    after = data[data.length - 1].id;
  }
}

/**
 * One poll round over rows the service accepted (`submitted`): Opens are found in `status=submitted` pages (or
 * `status=filled` once filled), Adds / Reduces / Closes in `status=filled` pages (their hedge stays filled until the
 * action shows), about ⌈N/500⌉ list calls for N rows. Rows the pages do not show (hedge closed or failed, or unknown) are
 * read by id, at most MAX_GETS_PER_ROUND a round. A closed hedge's records come from one history call. `chain` gives
 * each row's next row on its side (verdict.ts's chainOf), taken once and only when a row of a chain is judged: a round of
 * Opens never asks for it.
 */
export async function pollOnce(
  client: HedgingClient,
  rows: readonly Intent[],
  signal?: AbortSignal,
  taken?: () => OpenedHedges,
  chain: () => (row: Intent) => Intent | null = () => () => null,
): Promise<PollRound> {
  const round: PollRound = { judged: [], notFound: [], requests: 0 };
  let nextOf: ((row: Intent) => Intent | null) | undefined;
  const next = (r: Intent) => (chained(r) ? (nextOf ??= chain())(r) : null);
  const seen = new Map<string, Hedge>();
  let held: OpenedHedges | undefined;
  const heldOnce = taken && (() => (held ??= taken()));
  const mine = (r: Intent, hedges: Map<string, Hedge>) => attributeOpen(r, notOthers(r, [...hedges.values()], heldOnce));
  const found = (r: Intent, hedges: Map<string, Hedge>) => (r.hedgeId ? hedges.has(r.hedgeId) : mine(r, hedges).length === 1);
  const missingAny = (hedges: Map<string, Hedge>) => rows.some((r) => !found(r, hedges));
  const maxPages = Math.ceil(rows.length / PAGE_SIZE) + 1;
  try {
    if (rows.some((r) => r.action === "open")) await pages(client, "submitted", missingAny, maxPages, round, seen, signal);
    await pages(client, "filled", missingAny, maxPages, round, seen, signal);
  } catch {
    // The pages failed this round: fall back to reads by id below (capped), the rest next round.
  }
  const evidence = new Map<Intent, Evidence>();
  let gets = 0;
  for (const r of rows) {
    if (found(r, seen)) {
      const hedges = r.hedgeId ? [seen.get(r.hedgeId)!] : mine(r, seen);
      evidence.set(r, shown(hedges));
      continue;
    }
    if (gets >= MAX_GETS_PER_ROUND) continue;
    gets++;
    round.requests++;
    try {
      if (r.hedgeId) evidence.set(r, shown([(await client.get(r.hedgeId, signal)).data]));
      else if (r.clientReference)
        evidence.set(
          r,
          shown(notOthers(r, (await client.list({ client_reference: r.clientReference, limit: PAGE_SIZE }, signal)).data, heldOnce)),
        );
    } catch (e) {
      if (isNotFound(e)) round.notFound.push(r);
    }
  }
  // Closed hedges of Adds / Reduces / Closes are judged by their records: one history call from the oldest such row.
  let records: ClosedHedge[] | null = null;
  for (const [r, ev] of evidence) {
    let v = verdict(r, ev, next(r));
    if (v.kind === "needs_records") {
      if (records === null) {
        const since = Math.min(...[...evidence.keys()].filter((x) => x.action !== "open").map((x) => utcMs(x.loggedAt))) - CLOCK_SKEW_MS;
        round.requests++;
        try {
          records = await historySince(client, since, signal);
        } catch {
          continue;
        }
      }
      v = verdict(r, { ...ev, records }, next(r));
    }
    round.judged.push({ intent: r, verdict: v as Judged }); // with records read, never needs_records
  }
  return round;
}
