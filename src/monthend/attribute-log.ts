// Reconciliation phase 2: each Hedge Log row tied to the service hedge it acted on (its hedge id, else its client reference, else the hedge live on its market side when it was logged).
import type { LogRecord } from "../trading/log/hedge-log";
import { hedgesByReference, type ServiceBook } from "./attribute-records";
import { ms, type ServiceHedge } from "./recon-model";

/** The hedge of each row (null when none can be told). */
export function attributeLogRows(rows: readonly LogRecord[], book: ServiceBook): Map<LogRecord, ServiceHedge | null> {
  const attributed = new Map<LogRecord, ServiceHedge | null>();
  for (const row of rows) {
    let h: ServiceHedge | null = null;
    if (row.hedgeId) h = book.hedges.get(row.hedgeId) ?? null;
    else {
      const candidates = hedgesByReference(book, row.clientReference, row.market, row.side);
      const loggedMs = ms(row.loggedAt);
      if (candidates.length === 1) h = candidates[0];
      else if (candidates.length > 1 && loggedMs !== null) {
        h = candidates.reduce((best, c) =>
          Math.abs((c.openedAtMs ?? 0) - loggedMs) < Math.abs((best.openedAtMs ?? 0) - loggedMs) ? c : best,
        );
      } else if (row.action !== "open") h = liveAt(book, row.market, row.side, loggedMs);
    }
    attributed.set(row, h);
  }
  return attributed;
}

/** The one hedge open on a market side at an instant (null when none, or more than one, was). */
function liveAt(book: ServiceBook, market: string, side: string, at: number | null): ServiceHedge | null {
  if (at === null) return null;
  const live = [...book.hedges.values()].filter(
    (h) =>
      h.market === market &&
      h.side === side &&
      h.openedAtMs !== null &&
      h.openedAtMs <= at &&
      (h.closedAtMs === null || h.closedAtMs >= at),
  );
  return live.length === 1 ? live[0] : null;
}
