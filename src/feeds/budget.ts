// The feeds' request budget: each endpoint's poll interval, and how much every interval is stretched so that all topics shown together stay within the requests per second the client has learned (or a fixed budget).
import { MIN_INTERVAL_MS } from "./retry";
import { DEFAULT_INTERVALS_MS, ENDPOINTS, type Endpoint, type FeedClient, type Topic } from "./topic";

/** The feeds' budget when the client does not say what rate it has learned (requests per second). */
export const DEFAULT_BUDGET_PER_SECOND = 5;

export class PollBudget {
  private readonly intervals: Record<Endpoint, number> = { ...DEFAULT_INTERVALS_MS };
  /** Requests per second all subscribed topics want at their configured intervals (null: to be recomputed). */
  private load: number | null = null;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly topics: ReadonlyMap<string, Topic<any>>,
    private readonly client: () => FeedClient | null,
    /** A fixed budget for all feeds together (requests per second), or null for the client's learned rate. */
    private readonly fixed: number | null,
  ) {}

  /** Sets an endpoint's poll interval (at least MIN_INTERVAL_MS); it applies from each topic's next poll. */
  setInterval(endpoint: Endpoint, ms: number): void {
    if (!ENDPOINTS.includes(endpoint)) throw new RangeError(`Unknown endpoint "${endpoint}"; use one of ${ENDPOINTS.join(", ")}.`);
    if (!Number.isFinite(ms)) throw new RangeError(`Poll interval of ${endpoint} must be a number of milliseconds.`);
    this.intervals[endpoint] = Math.max(MIN_INTERVAL_MS, ms);
    this.load = null;
  }

  /** Configured intervals per endpoint (before any stretching to stay within the budget). */
  intervalsMs(): Readonly<Record<Endpoint, number>> {
    return { ...this.intervals };
  }

  /** The interval a topic of this endpoint polls at now: the configured one, stretched when all pollers together would exceed the budget. */
  effectiveIntervalMs(endpoint: Endpoint): number {
    return Math.round(this.intervals[endpoint] * this.stretch());
  }

  /**
   * Requests per second all feeds together may send: the client's learned rate (shared with trading, which goes
   * first in the client's queue), or the fixed budget given to the hub.
   */
  perSecond(): number {
    if (this.fixed !== null) return this.fixed;
    const rate = this.client()?.flowState().ratePerSecond;
    return rate !== undefined && rate > 0 ? rate : DEFAULT_BUDGET_PER_SECOND;
  }

  /** The set of topics that poll changed (one subscribed or left, one became final): the load is worked out again. */
  invalidate(): void {
    this.load = null;
  }

  /** How much every interval is stretched so that all subscribed topics together stay within the budget (at least 1). */
  private stretch(): number {
    if (this.load === null) {
      let load = 0;
      for (const topic of this.topics.values()) {
        if (topic.listeners.size > 0 && !topic.final) load += 1000 / this.intervals[topic.spec.endpoint];
      }
      this.load = load;
    }
    return Math.max(1, this.load / this.perSecond());
  }
}
