// The fill follower: poll rounds over the rows the service accepted (by pages, paced by how many requests a round took), each row judged in its side's chain and handed to the row runner, which applies the recovery rule's step.
import { nextPollDelayMs, pollOnce } from "../fills";
import type { DeskContext } from "./context";
import type { Lanes } from "./lanes";
import type { RowRunner } from "./runner";

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
      const life = this.ctx.state.life();
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
      () => this.ctx.state.chain(),
    );
    this.lastRoundRequests = round.requests;
    if (life.aborted) return;
    const byIntent = new Map(rows.map((t) => [t.intent, t]));
    // Still accepted: only a poll round moves a followed row (a decision is refused for it), one row once a round; the
    // runner applies the rule's step (adopt, park or follow: taken at once, nothing is sent).
    for (const intent of round.notFound) void this.runner.judge(byIntent.get(intent)!, { kind: "not_found", hedgeId: intent.hedgeId });
    for (const { intent, verdict } of round.judged) void this.runner.judge(byIntent.get(intent)!, verdict);
    await this.ctx.journal.flush().catch(() => undefined);
  }
}
