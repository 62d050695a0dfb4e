// The fill follower: poll rounds over the rows the service accepted (by pages, paced by how many requests a round took), each row judged in its side's chain and moved as the recovery rule says.
import { nextPollDelayMs, pollOnce } from "../fills";
import type { DeskContext } from "./context";
import type { Lanes } from "./lanes";
import type { RowRunner } from "./runner";
import { nextStep } from "./rule";

export class FillFollower {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private polling = false;
  /** Requests the last poll round made (a round of many pages waits longer before the next). */
  private lastRoundRequests = 0;

  constructor(
    private readonly ctx: DeskContext,
    private readonly lanes: Lanes,
    private readonly runner: RowRunner,
    private readonly intervalMs: number,
    /** After each round: the scheduler runs what the round made ready. */
    private readonly afterRound: () => void,
  ) {}

  /**
   * Starts polling (idempotent). The desk calls it with a live signal only (it restarts a stopped desk first), so one
   * chain of rounds runs per desk life: a round still out from a stopped life does nothing more once it returns.
   */
  start(): void {
    if (this.polling) return;
    this.polling = true;
    this.schedule(0);
  }

  stop(): void {
    this.polling = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      const life = this.ctx.life();
      void this.round(life)
        .catch((e: unknown) => this.ctx.report(e))
        .finally(() => {
          // Stopped meanwhile: stop() ended this chain (a restart has started its own).
          if (life.aborted) return;
          if (this.lanes.submitted().length > 0) this.schedule(nextPollDelayMs(this.intervalMs, this.lastRoundRequests));
          else this.polling = false;
          this.afterRound();
        });
    }, delay);
  }

  /** One round (no request when no row waits: pollOnce asks only about the rows it is given). */
  private async round(life: AbortSignal): Promise<void> {
    const rows = this.lanes.submitted();
    const round = await pollOnce(
      this.ctx.client,
      rows.map((t) => t.intent),
      life,
      () => this.ctx.openedHedges(),
      this.ctx.chain(),
    );
    this.lastRoundRequests = round.requests;
    if (life.aborted) return;
    const byIntent = new Map(rows.map((t) => [t.intent, t]));
    for (const intent of round.notFound) {
      const t = byIntent.get(intent)!;
      if (this.runner.countMismatch(t))
        this.runner.park(t, `The service does not know hedge ${intent.hedgeId} (hedge_not_found), asked ${t.doubt!.rounds} times.`);
      else
        this.ctx.move(intent, {
          errorCode: "hedge_not_found",
          message: `The service does not know hedge ${intent.hedgeId} yet: asking again.`,
        });
    }
    for (const { intent, verdict } of round.judged) {
      // Still accepted: only a poll round moves a followed row (a decision is refused for it), one row once a round.
      const t = byIntent.get(intent)!;
      // unclear: counted, and parked once the caps are reached
      const capped = verdict.kind === "unclear" && this.runner.countMismatch(t);
      const step = nextStep(intent, verdict, this.runner.facts(t, !capped));
      if (step.kind === "adopt") {
        // Shown as it should be: any doubt is over, and what a doubt said (error code, message) is taken back. A row still
        // accepted and never in doubt already holds this patch: the move then writes nothing.
        t.doubt = null;
        this.ctx.move(intent, { errorCode: null, ...step.patch });
      } else if (step.kind === "park") this.runner.park(t, step.reason);
      else if (verdict.kind === "absent") t.doubt = null; // not there yet: followed, and not counted as a doubt
    }
    await this.ctx.journal.flush().catch(() => undefined);
  }
}
