// The scheduler: runs each market side's head that can act now (under the desk's concurrency), arms one timer for the next head that waits, and tells a send that rows parked behind a decision will not go.
import { ConcurrencyLimit } from "../../api/throttle";
import type { DeskContext, Tracking } from "./context";
import type { Lanes } from "./lanes";

export class Scheduler {
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private wakeAtMs = Infinity;
  private readonly limit: ConcurrencyLimit;

  constructor(
    private readonly ctx: DeskContext,
    private readonly lanes: Lanes,
    private readonly step: (t: Tracking) => Promise<void>,
  ) {
    this.limit = new ConcurrencyLimit(ctx.concurrency);
  }

  /** Runs every market side's head that can act now; arms a timer for the next one that waits. */
  kick(): void {
    if (this.ctx.state.life().aborted) return;
    const now = this.ctx.now().getTime();
    let next = Infinity;
    for (const t of this.lanes.heads()) {
      const status = t.intent.status;
      if (t.signal?.aborted) continue;
      // Waiting for the user's word (a row of a send parks itself: park() answers it), or followed by the fill follower.
      if (status === "needs_decision" || status === "submitted") continue;
      if (t.busy) continue;
      if (t.wakeAt > now) {
        next = Math.min(next, t.wakeAt);
        continue;
      }
      t.busy = true;
      void this.limit
        .run(() => (this.ctx.state.life().aborted ? Promise.resolve() : this.step(t)))
        .catch((e: unknown) => this.ctx.report(e))
        .finally(() => {
          t.busy = false;
          this.ctx.state.changed();
          this.kick();
        });
    }
    // Rows behind a row that waits for a decision are parked: send() does not wait for them (and is told at once).
    const parked = this.lanes.all().filter((t) => !t.answered && this.lanes.blockedByDecision(t));
    for (const t of parked) t.answered = true;
    if (parked.length > 0) this.ctx.state.changed();
    if (next < this.wakeAtMs) {
      if (this.wakeTimer) clearTimeout(this.wakeTimer);
      this.wakeAtMs = next;
      this.wakeTimer = setTimeout(
        () => {
          this.wakeTimer = null;
          this.wakeAtMs = Infinity;
          this.kick();
        },
        Math.max(0, next - now),
      );
    }
  }

  stop(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAtMs = Infinity;
  }
}
