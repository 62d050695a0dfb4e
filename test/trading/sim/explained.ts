// Whether the service fully explains a market side's crash window: every unfinished row's effect readable from the hedge's notional now and the rows' Notional before and amounts (the chain rule of issue 22, written independently of the desk's).
import type { LogRecord } from "../../../src/trading/hedge-log";
import type { Service } from "./service";

/** A market side's rows as the crash left them in the Hedge Log, in the order they were made. */
export interface CrashWindow {
  market: string;
  side: string;
  rows: LogRecord[];
}

const FINAL = new Set(["filled", "failed", "closed", "rejected", "not_sent"]);
const near = (a: number, b: number) => Math.abs(a - b) < 0.005;

/**
 * The rows of a side go one at a time, so each sent row's notional after is the next sent row's Notional before, and the
 * last one's is the hedge now (0 once no hedge is open on the side). A row took effect when that after is its before
 * plus (Add) or minus (Reduce) its amount, or 0 (Close); it did not when the after equals its before. Anything else
 * (another workbook or person moved the hedge) leaves the window unexplained. A row never sent did not take effect; an
 * Open is read by its hedge (id or client reference), which the service always shows.
 */
export function chainExplained(window: CrashWindow, service: Service): boolean {
  const open = service.sideHedge(window.market, window.side);
  const now = open ? open.notional / 1_000_000 : 0;
  const sent = window.rows.filter((r) => r.sentAt);
  for (const [i, r] of sent.entries()) {
    if (FINAL.has(r.status) || r.action === "open") continue;
    const before = r.notionalBefore ?? null;
    if (before === null) return false;
    const after = i + 1 < sent.length ? (sent[i + 1].notionalBefore ?? null) : now;
    if (after === null) return false;
    const amount = r.notional ?? 0;
    const took = r.action === "add" ? before + amount : r.action === "reduce" ? before - amount : 0;
    if (!near(after, Math.max(0, took)) && !near(after, before)) return false;
  }
  return true;
}
