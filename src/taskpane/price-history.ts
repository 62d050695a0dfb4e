// The last hour of a market's rate, kept in memory from the prices poll, for the sparkline.
import type { Point } from "./chart-geometry";

export const HISTORY_WINDOW_MS = 60 * 60 * 1000;

export class PriceHistory {
  private points: Point[] = [];

  constructor(private readonly windowMs = HISTORY_WINDOW_MS) {}

  /** Adds a reading; the same timestamp twice is kept once, and readings older than the window are dropped. */
  add(t: number, value: number, now = t): void {
    if (!Number.isFinite(t) || !Number.isFinite(value)) return;
    const last = this.points[this.points.length - 1];
    if (last && last.t === t) {
      last.value = value;
    } else if (!last || t > last.t) {
      this.points.push({ t, value });
    } else {
      const at = this.points.findIndex((p) => p.t >= t);
      if (this.points[at].t === t) this.points[at].value = value;
      else this.points.splice(at, 0, { t, value });
    }
    this.prune(now);
  }

  prune(now: number): void {
    const from = now - this.windowMs;
    const keepFrom = this.points.findIndex((p) => p.t >= from);
    this.points = keepFrom === -1 ? [] : this.points.slice(keepFrom);
  }

  /** Readings within the window ending at `now`, oldest first. */
  window(now: number): { from: number; to: number; points: readonly Point[] } {
    const from = now - this.windowMs;
    return { from, to: now, points: this.points.filter((p) => p.t >= from && p.t <= now) };
  }

  get size(): number {
    return this.points.length;
  }
}
