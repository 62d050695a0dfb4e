// Whether the service fully explains a market side's crash window: every unfinished row's effect readable from the hedge's notional now and the rows' Notional before and amounts (the chain rule of issue 22, written independently of the desk's).
import type { LogRecord } from "../../../src/trading/log/hedge-log";
import { FINAL_STATUSES } from "../../../src/trading/types";
import type { Service } from "./service";

/** A market side's rows as the crash left them in the Hedge Log, in the order they were made. */
export interface CrashWindow {
  market: string;
  side: string;
  rows: LogRecord[];
  /** This computer's journal holds the window's rows (false: they are the log's alone, as another computer's). */
  journal?: boolean;
}

/** The final states (the project's list), as a set of the log's status text. */
export const FINAL: ReadonlySet<string> = new Set<string>(FINAL_STATUSES);
const near = (a: number, b: number) => Math.abs(a - b) < 0.005;

/** A row's effect as the chain reads it: took effect, did not (sent, not on the service), never sent, or final already. */
export type Effect = "took" | "not" | "unsent" | "final";

/**
 * The rows of a side go one at a time, so each sent row's notional after is the next sent row's Notional before, and the
 * last one's is the hedge now (0 once no hedge is open on the side). A row took effect when that after is its before
 * plus (Add) or minus (Reduce) its amount, or 0 (Close); it did not when the after equals its before. Anything else
 * (another workbook or person moved the hedge) leaves the window unexplained: null. A row never sent did not take
 * effect; an Open is read by its hedge (the service shows the hedge of its client reference, or none).
 */
export function judgeChain(window: CrashWindow, service: Service): Map<string, Effect> | null {
  const open = service.sideHedge(window.market, window.side);
  const now = open ? open.notional / 1_000_000 : 0;
  const effects = new Map<string, Effect>();
  const sent = window.rows.filter((r) => r.sentAt);
  for (const r of window.rows) effects.set(r.idempotencyKey, FINAL.has(r.status) ? "final" : r.sentAt ? "took" : "unsent");
  for (const [i, r] of sent.entries()) {
    if (FINAL.has(r.status)) continue;
    if (r.action === "open") {
      const hedge = service.hedges().find((h) => h.clientReference === r.clientReference && h.market === r.market && h.side === r.side);
      effects.set(r.idempotencyKey, hedge ? "took" : "not");
      continue;
    }
    const before = r.notionalBefore ?? null;
    const after = i + 1 < sent.length ? (sent[i + 1].notionalBefore ?? null) : now;
    if (before === null || after === null) return null;
    const amount = r.notional ?? 0;
    const took = r.action === "add" ? before + amount : r.action === "reduce" ? before - amount : 0;
    if (near(after, Math.max(0, took))) continue;
    if (!near(after, before)) return null;
    effects.set(r.idempotencyKey, "not");
  }
  return effects;
}
