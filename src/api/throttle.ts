// Flow control for outgoing requests: one adaptive rate (learned from the service's answers, AIMD) and a concurrency cap, trading ahead of feeds.

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Who is asking: a trade (the user's action, the desk's fills) goes ahead of every waiting feed poll. */
export type Priority = "trade" | "feed";

export interface RateOptions {
  /** Learn the service's limit from its answers (additive increase, multiplicative decrease); false: a fixed rate. */
  adaptive: boolean;
  /** The rate before anything is learned (a fixed rate when not adaptive), requests per second. */
  initialPerSecond: number;
  minPerSecond: number;
  maxPerSecond: number;
  /** Congestion avoidance: requests/s added per second while the rate is what holds requests back. */
  increasePerSecond: number;
  /** Near the limit learned at the last 429 (from 95 % of it), the increase is this share of the above, for `ceilingMemoryMs`. */
  nearLimitShare: number;
  ceilingMemoryMs: number;
  /** On a 429 (or an answer with Retry-After) the rate becomes this share of what the service actually accepted in the last second. */
  decrease: number;
  /** …but never less than this share of the rate in one step (a burst of forced 429s does not collapse it to nothing). */
  maxDrop: number;
  /**
   * Below this share of the limit learned (the ceiling), the rate grows as in slow start again (doubling every second
   * it holds requests back), like TCP's slow start up to its threshold: after a run of 429s the rate comes back to the
   * neighbourhood of the limit in seconds, then creeps up additively.
   */
  slowStartBelow: number;
  /** Bucket size: this many seconds of the current rate (at least one request), unless `burst` is given. */
  burstSeconds: number;
  burst: number | null;
}

/**
 * Adaptive by default, from a safe 5 requests/s: slow start (the rate doubles every second it holds requests back) until
 * the first 429; then +1 request/s per second (+0.25 near the limit the last 429 showed, for 30 s after it), and on each
 * 429 back to 90 % of what the service accepted in the last second (at most halving it). Below half the limit learned
 * (after a run of 429s) the rate doubles again every second until it is back there.
 */
const DEFAULT_RATE: RateOptions = {
  adaptive: true,
  initialPerSecond: 5,
  minPerSecond: 0.5,
  maxPerSecond: 1_000,
  increasePerSecond: 1,
  nearLimitShare: 0.25,
  ceilingMemoryMs: 30_000,
  decrease: 0.9,
  maxDrop: 0.5,
  slowStartBelow: 0.5,
  burstSeconds: 1,
  burst: null,
};

/** The service's answer to one request, as flow control needs it; null when no answer came (network error, timeout, abort). */
export interface Answer {
  status: number;
  retryAfterMs: number | null;
}

/** Leave to send one request: report its answer (or null) with `done`, which also frees its concurrency slot. */
export interface Ticket {
  /** The request waited for the rate (not only for a free slot): its success is evidence that more is allowed. */
  readonly limited: boolean;
  done(answer: Answer | null): void;
}

export interface FlowState {
  /** Requests per second allowed now. */
  ratePerSecond: number;
  adaptive: boolean;
  /** No 429 seen yet: the rate still doubles while it holds requests back (slow start). */
  probing: boolean;
  /** What the service accepted per second when it last answered 429 (the limit learned), or null. */
  learnedLimitPerSecond: number | null;
  /** 429 answers in the last 60 seconds. */
  rateLimitedInLastMinute: number;
  waiting: Record<Priority, number>;
  inFlight: number;
}

interface Waiter {
  priority: Priority;
  limited: boolean;
  resolve(ticket: Ticket): void;
  reject(reason: unknown): void;
  detach(): void;
}

/** The window in which the service's acceptance is counted: one second, so a count in it is a rate per second. */
const WINDOW_MS = 1_000;
const MINUTE_MS = 60_000;

/**
 * One gate every request passes: a token bucket whose rate is learned like TCP's congestion window, and a cap on
 * requests in flight. Waiters are served trades first, then feeds, each first come first served; an aborted waiter
 * leaves the queue without taking anything.
 */
export class FlowControl {
  private readonly options: RateOptions;
  private rate: number;
  private tokens: number;
  private last: number;
  private active = 0;
  private readonly queues: Record<Priority, Waiter[]> = { trade: [], feed: [] };
  private waking = false;
  private probing: boolean;
  private lastDecreaseAt = -Infinity;
  /** Tickets handed out so far, and how many had been when the rate was last cut. */
  private issued = 0;
  private issuedAtCut = 0;
  /** The service's limit as the last 429 showed it: what it accepted in the second before. */
  private ceiling: number | null = null;
  /** Times of answers other than 429 in the last second: the rate the service actually accepted. */
  private readonly delivered: number[] = [];
  /** Times of 429 answers (the last minute). */
  private readonly refused: number[] = [];

  constructor(
    options: Partial<RateOptions> = {},
    readonly maxConcurrent = 6,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
  ) {
    this.options = { ...DEFAULT_RATE, ...options };
    const { initialPerSecond, minPerSecond, maxPerSecond } = this.options;
    if (!(initialPerSecond > 0) || !(minPerSecond > 0) || !(maxPerSecond >= minPerSecond)) {
      throw new RangeError("FlowControl needs rates > 0 and maxPerSecond >= minPerSecond");
    }
    if (!(maxConcurrent >= 1)) throw new RangeError("FlowControl needs maxConcurrent >= 1");
    this.rate = this.options.adaptive ? clamp(initialPerSecond, minPerSecond, maxPerSecond) : initialPerSecond;
    this.probing = this.options.adaptive;
    this.tokens = this.capacity();
    this.last = now();
  }

  /** Resolves with a ticket once a token and a slot are free (trades first); rejects with the signal's reason if aborted first. */
  acquire(priority: Priority, signal?: AbortSignal): Promise<Ticket> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { priority, limited: false, resolve, reject, detach: () => undefined };
      if (signal) {
        const onAbort = () => {
          const queue = this.queues[priority];
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        waiter.detach = () => signal.removeEventListener("abort", onAbort);
      }
      this.queues[priority].push(waiter);
      this.pump();
    });
  }

  state(): FlowState {
    this.forget(this.now());
    return {
      ratePerSecond: this.rate,
      adaptive: this.options.adaptive,
      probing: this.probing,
      learnedLimitPerSecond: this.ceiling,
      rateLimitedInLastMinute: this.refused.length,
      waiting: { trade: this.queues.trade.length, feed: this.queues.feed.length },
      inFlight: this.active,
    };
  }

  private capacity(): number {
    return this.options.burst ?? Math.max(1, this.rate * this.options.burstSeconds);
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity(), this.tokens + (Math.max(0, t - this.last) / 1000) * this.rate);
    this.last = t;
  }

  private pump(): void {
    for (;;) {
      const queue = this.queues.trade.length > 0 ? this.queues.trade : this.queues.feed;
      if (queue.length === 0 || this.active >= this.maxConcurrent) return; // a finishing request pumps again
      this.refill();
      if (this.tokens < 1) {
        // The rate is what holds these requests back: their answers may raise it.
        for (const w of this.queues.trade) w.limited = true;
        for (const w of this.queues.feed) w.limited = true;
        this.wakeIn(Math.max(1, Math.ceil(((1 - this.tokens) / this.rate) * 1000)));
        return;
      }
      const waiter = queue.shift()!;
      this.tokens -= 1;
      this.active += 1;
      waiter.detach();
      waiter.resolve(this.ticket(waiter.limited));
    }
  }

  private wakeIn(ms: number): void {
    if (this.waking) return;
    this.waking = true;
    void this.sleep(ms).then(() => {
      this.waking = false;
      this.pump();
    });
  }

  private ticket(limited: boolean): Ticket {
    const number = this.issued++;
    let open = true;
    return {
      limited,
      done: (answer) => {
        if (!open) return;
        open = false;
        this.active -= 1;
        if (answer) this.learn(answer, number, limited);
        this.pump();
      },
    };
  }

  /** AIMD: a 429 (or Retry-After) cuts the rate once per round trip (and at most once a second); an answer to a request the rate held back raises it. */
  private learn(answer: Answer, ticket: number, limited: boolean): void {
    const t = this.now();
    this.forget(t);
    const congested = answer.status === 429 || answer.retryAfterMs !== null;
    if (answer.status === 429) this.refused.push(t);
    else this.delivered.push(t);
    if (!this.options.adaptive) return;
    const { minPerSecond, maxPerSecond, increasePerSecond, decrease, maxDrop, nearLimitShare, ceilingMemoryMs } = this.options;
    if (congested) {
      // Requests sent before the last cut say nothing new about the rate after it, and the service refills by the second:
      // a run of 429s answered within one second is one signal, not one each (else a burst collapses the rate to the floor).
      if (ticket < this.issuedAtCut || t - this.lastDecreaseAt < WINDOW_MS) return;
      const accepted = this.delivered.length; // answers in the last second (see forget)
      this.rate = clamp(Math.max(this.rate * maxDrop, decrease * Math.min(this.rate, accepted)), minPerSecond, maxPerSecond);
      // The limit as the service shows it: what it accepted in the second before. A second in which it accepted nothing
      // (the client was waiting out an earlier Retry-After) shows no limit at all, so the one seen before stands.
      if (accepted > 0 || this.ceiling === null) this.ceiling = Math.max(accepted, minPerSecond);
      this.probing = false;
      this.lastDecreaseAt = t;
      this.issuedAtCut = this.issued;
      this.tokens = Math.min(this.tokens, this.capacity());
    } else if (limited) {
      const recovering = this.ceiling !== null && this.rate < this.options.slowStartBelow * this.ceiling;
      if (this.probing || recovering) {
        this.rate = clamp(this.rate + 1, minPerSecond, maxPerSecond);
      } else {
        const nearLimit = this.ceiling !== null && t - this.lastDecreaseAt < ceilingMemoryMs && this.rate >= 0.95 * this.ceiling;
        const perSecond = nearLimit ? increasePerSecond * nearLimitShare : increasePerSecond;
        this.rate = clamp(this.rate + perSecond / this.rate, minPerSecond, maxPerSecond);
      }
    }
  }

  private forget(t: number): void {
    forgetBefore(this.refused, t - MINUTE_MS);
    forgetBefore(this.delivered, t - WINDOW_MS);
  }
}

/** Drops the times before `since` from a list in time order. */
function forgetBefore(times: number[], since: number): void {
  const first = times.findIndex((time) => time >= since);
  times.splice(0, first === -1 ? times.length : first);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** At most `limit` tasks run at once; the rest wait in order. */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError("ConcurrencyLimit needs limit >= 1");
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A waiter is handed the finishing task's slot directly, so no newcomer can slip in between.
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
