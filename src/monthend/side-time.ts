// Month end's view of time per market side: each hedge that ended in the month, and what followed on its side (a roll: the next hedge opened; or nothing), with the unhedged time between.
import type { MonthWindow } from "./month";
import { NEVER_OPEN_SERVICE, type ServiceHedge, type SideEvent } from "./recon-model";

/** When a hedge started covering its side: its fill, else its opening. Null for a hedge that never held anything. */
function coveredFrom(h: ServiceHedge): number | null {
  if (NEVER_OPEN_SERVICE.has(h.status)) return null;
  return h.filledAtMs ?? h.openedAtMs;
}

/**
 * Every hedge that ended inside the month (a close, a maturity, or a reduction that took it whole), market and side A
 * to Z, then by the time it ended; each with the next hedge opened on its side (the one covering next after it) and the
 * unhedged time between. Pure. A hedge that ended before the month began is not seen (month end reads the history from
 * the month's start), so a side flat since before the month shows no line. `hedges` holds each hedge once (the book's, by id).
 */
export function sideTimeline(hedges: Iterable<ServiceHedge>, month: MonthWindow, generatedAtMs: number): SideEvent[] {
  const bySide = new Map<string, Array<{ h: ServiceHedge; from: number }>>();
  for (const h of hedges) {
    const from = coveredFrom(h);
    if (from === null) continue;
    const key = `${h.market}\u0000${h.side}`;
    bySide.set(key, [...(bySide.get(key) ?? []), { h, from }]);
  }
  const horizon = Math.min(month.endMs, Math.max(generatedAtMs, month.startMs));
  const events: SideEvent[] = [];
  for (const list of bySide.values()) {
    list.sort((a, b) => a.from - b.from || a.h.id.localeCompare(b.h.id));
    list.forEach(({ h, from }, i) => {
      const end = h.closedAtMs;
      if (end === null || end < month.startMs || end >= month.endMs) return;
      const after = list[i + 1];
      const next = after && after.from < month.endMs ? after : null;
      const gapEnd = next ? Math.max(next.from, end) : Math.max(horizon, end);
      events.push({
        market: h.market,
        side: h.side,
        hedgeId: h.id,
        clientReference: h.clientReference,
        endedAtMs: end,
        endedBy: h.exitType ?? "close",
        next: next ? { hedgeId: next.h.id, clientReference: next.h.clientReference, coveredFromMs: next.from } : null,
        kind: next ? "roll" : "unhedged",
        stillUnhedged: !next && generatedAtMs < month.endMs,
        gapMs: gapEnd - end,
        coveredFromMs: from,
        tenorDays: h.tenorDays ?? null,
      });
    });
  }
  return events.sort((a, b) => a.market.localeCompare(b.market) || a.side.localeCompare(b.side) || a.endedAtMs - b.endedAtMs);
}

/** A length of time in words for the sheet: "2 s", "4 min 05 s", "3 h 05 min", "2 d 03 h". */
export function durationText(ms: number): string {
  const s = Math.round(Math.max(0, ms) / 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
  return `${Math.floor(s / 86_400)} d ${pad(Math.floor((s % 86_400) / 3600))} h`;
}
