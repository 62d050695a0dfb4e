// Flow control for outgoing requests: a token bucket (requests per second) and a concurrency cap.

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Hands out tokens at `ratePerSecond`, allowing bursts of `burst`; waiters are served first come, first served. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
  ) {
    if (!(ratePerSecond > 0) || !(burst >= 1)) throw new RangeError("TokenBucket needs ratePerSecond > 0 and burst >= 1");
    this.tokens = burst;
    this.last = now();
  }

  /** Resolves when a token is available and has been taken. */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.takeNow());
    this.queue = turn;
    return turn;
  }

  private async takeNow(): Promise<void> {
    for (;;) {
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000));
    }
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.ratePerSecond);
    this.last = t;
  }
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
