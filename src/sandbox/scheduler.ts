// When orders fill and hedges mature: the engine's events in sandbox-clock order, the real timer that fires them, and the two conditions that hold fills back (fills stalled, the price feed down).
import type { SandboxClock } from "./clock";
import type { HedgeState } from "./state";

const MAX_TIMER_MS = 2 ** 31 - 1;

type EventKind = "order" | "maturity";

/** What the scheduler runs when an event's time comes, and whom it tells after. */
interface SchedulerPorts {
  /** Fills (or fails) a hedge's first queued order. */
  fill(h: HedgeState, time: number): void;
  /** Settles a filled hedge at its maturity. */
  mature(h: HedgeState, time: number): void;
  changed(): void;
}

export class Scheduler {
  private stalled = false;
  private outageSince: number | null = null;
  private blockedUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pumping = false;

  constructor(
    private readonly clock: SandboxClock,
    /** The hedges with something still to happen (HedgeBooks.active). */
    private readonly active: ReadonlySet<HedgeState>,
    private readonly ports: SchedulerPorts,
  ) {}

  /** Starts the real timer that fires fills and maturities when their clock time comes. */
  start(): void {
    this.running = true;
    this.pump();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get fillsStalled(): boolean {
    return this.stalled;
  }

  get priceUnavailable(): boolean {
    return this.outageSince !== null;
  }

  /** Clock time the price feed went down at (marks freeze there), or null while it is up. */
  get priceDownSince(): number | null {
    return this.outageSince;
  }

  /** Pauses fills (orders stay `submitted`); on resume, overdue fills happen at the resume time. */
  setFillsStalled(stalled: boolean): void {
    if (stalled === this.stalled) return;
    const wasBlocked = this.blocked();
    this.stalled = stalled;
    this.afterConditionChange(wasBlocked);
  }

  /** Takes the price feed down: prices, quotes and trades answer 503 price_unavailable, marks freeze, fills wait. */
  setPriceUnavailable(down: boolean): void {
    if (down === this.priceUnavailable) return;
    const wasBlocked = this.blocked();
    this.outageSince = down ? this.clock.now() : null;
    this.afterConditionChange(wasBlocked);
  }

  /** Back to no conditions (reset); the timer is armed again for what is left. */
  clearConditions(): void {
    this.stalled = false;
    this.outageSince = null;
    this.blockedUntil = 0;
  }

  private blocked(): boolean {
    return this.stalled || this.outageSince !== null;
  }

  private afterConditionChange(wasBlocked: boolean): void {
    if (wasBlocked && !this.blocked()) this.blockedUntil = this.clock.now();
    this.pump();
  }

  /** Processes every event due by now, in clock order, then arms the timer for the next one. */
  pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    let processed = 0;
    try {
      const now = this.clock.now();
      for (;;) {
        const next = this.nextEvent();
        if (!next || next.time > now) break;
        if (next.kind === "order") this.ports.fill(next.hedge, next.time);
        else this.ports.mature(next.hedge, next.time);
        processed++;
      }
    } finally {
      this.pumping = false;
    }
    if (processed > 0) this.ports.changed();
    this.arm();
  }

  private nextEvent(): { time: number; hedge: HedgeState; kind: EventKind } | null {
    let best: { time: number; hedge: HedgeState; kind: EventKind } | null = null;
    const blocked = this.blocked();
    for (const h of this.active) {
      let candidate: { time: number; kind: EventKind } | null = null;
      if (h.status !== "submitting" && h.orders.length > 0 && !blocked) {
        candidate = { time: Math.max(h.orders[0].dueAt, this.blockedUntil, h.lastEventAt), kind: "order" };
      }
      if (h.status === "filled") {
        const t = Math.max(h.maturityAt, h.lastEventAt);
        if (!candidate || t < candidate.time) candidate = { time: t, kind: "maturity" };
      }
      if (candidate && (!best || candidate.time < best.time || (candidate.time === best.time && h.seq < best.hedge.seq))) {
        best = { ...candidate, hedge: h };
      }
    }
    return best;
  }

  /** Sets the real timer for the next event (none when stopped or nothing is due). */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return;
    const next = this.nextEvent();
    if (!next) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, next.time - this.clock.now()));
    this.timer = setTimeout(() => this.pump(), delay);
    this.timer.unref();
  }
}
