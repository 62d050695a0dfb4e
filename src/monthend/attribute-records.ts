// Reconciliation phase 1: the service's hedges by id, and each history record tied to its hedge (by id, else by client reference, market, side and opening time).
import type { ClosedHedge, Hedge } from "../api/schemas";
import { CENT, NEVER_OPEN_SERVICE, SAME_OPENING_MS, ms, type ServiceHedge } from "./recon-model";

/** The service's side of the month: every hedge it listed or its history names, and the hedge of each record. */
export interface ServiceBook {
  /** By id. Hedges known only from history records have `fromHistoryOnly` set. */
  hedges: Map<string, ServiceHedge>;
  /** The hedge id each history record belongs to (null when it cannot be told). */
  hedgeOfRecord: Map<ClosedHedge, string | null>;
}

/** Hedges with this client reference, on this market and side when given. */
export function hedgesByReference(book: ServiceBook, ref: string | null | undefined, market?: string, side?: string): ServiceHedge[] {
  return ref
    ? [...book.hedges.values()].filter((h) => h.clientReference === ref && (!market || h.market === market) && (!side || h.side === side))
    : [];
}

/**
 * Ties history records to hedges and learns when each hedge closed. A record names its hedge by id, or is tied to one
 * by `hedgeOfUnnamedRecord`; a hedge the list did not return is known from its records.
 */
export function attributeRecords(listed: readonly Hedge[], history: readonly ClosedHedge[]): ServiceBook {
  const book: ServiceBook = { hedges: new Map(), hedgeOfRecord: new Map() };
  for (const h of listed) {
    book.hedges.set(h.id, {
      id: h.id,
      clientReference: h.client_reference ?? null,
      market: h.market,
      side: h.side,
      status: String(h.status),
      notional: h.notional_usd,
      openedAtMs: ms(h.opened_at) ?? ms(h.filled_at),
      filledAtMs: ms(h.filled_at),
      tenorDays: h.tenor_days,
      closedAtMs: null,
      exitType: null,
      fromHistoryOnly: false,
    });
  }
  const openings = new Map<string, number[]>();
  for (const h of listed)
    openings.set(
      h.id,
      [ms(h.opened_at), ms(h.filled_at)].filter((t): t is number => t !== null),
    );

  const lastDecreaseOf = new Map<ServiceHedge, { atMs: number; exitType: string }>();
  for (const record of history) {
    const id = record.hedge_id ?? hedgeOfUnnamedRecord(book, openings, record);
    book.hedgeOfRecord.set(record, id);
    if (!id) continue;
    let h = book.hedges.get(id);
    if (!h) {
      h = {
        id,
        clientReference: record.client_reference ?? null,
        market: record.market,
        side: record.side,
        status: "closed",
        notional: null,
        openedAtMs: ms(record.opened_at),
        closedAtMs: null,
        exitType: null,
        fromHistoryOnly: true,
      };
      book.hedges.set(id, h);
    }
    const closed = ms(record.closed_at);
    if (closed === null) continue;
    if (record.exit_type !== "decrease") {
      if (h.closedAtMs === null || closed > h.closedAtMs) {
        h.closedAtMs = closed;
        h.exitType = String(record.exit_type);
      }
    } else {
      const last = lastDecreaseOf.get(h);
      if (!last || closed > last.atMs) lastDecreaseOf.set(h, { atMs: closed, exitType: String(record.exit_type) });
    }
  }
  // A reduction that takes the whole hedge closes it with a `decrease` record (the sandbox does so): for a hedge the
  // service lists as closed with no other closing record, its last decrease is its close.
  for (const [h, last] of lastDecreaseOf) {
    if (h.closedAtMs === null && h.status === "closed" && !h.fromHistoryOnly) {
      h.closedAtMs = last.atMs;
      h.exitType = last.exitType;
    }
  }
  return book;
}

/**
 * The spec's Closed-hedge record names no hedge (only the sandbox adds hedge_id and client_reference). Without an id, a
 * record is tied to the listed hedge of its market and side opened at the same time: its client reference when it has
 * one narrows the choice; then the same instant, then (for a close or maturity) the same size, break ties.
 */
function hedgeOfUnnamedRecord(book: ServiceBook, openings: ReadonlyMap<string, number[]>, record: ClosedHedge): string | null {
  const ref = record.client_reference ?? null;
  const pool = ref
    ? hedgesByReference(book, ref, record.market, record.side)
    : [...book.hedges.values()].filter((h) => h.market === record.market && h.side === record.side);
  if (ref && pool.length === 1) return pool[0].id;
  const opened = ms(record.opened_at);
  if (opened === null) return null;
  const gap = (h: ServiceHedge) => Math.min(...(openings.get(h.id) ?? []).map((t) => Math.abs(t - opened)));
  let candidates = pool.filter((h) => !NEVER_OPEN_SERVICE.has(h.status) && gap(h) <= SAME_OPENING_MS);
  if (candidates.some((h) => gap(h) === 0)) candidates = candidates.filter((h) => gap(h) === 0);
  if (candidates.length > 1 && record.exit_type !== "decrease") {
    // No candidate of the same size leaves none, as two or more left would: either way the record is tied to no hedge.
    candidates = candidates.filter((h) => h.notional !== null && Math.abs(h.notional - record.size_usd) < CENT);
  }
  return candidates.length === 1 ? candidates[0].id : null;
}
