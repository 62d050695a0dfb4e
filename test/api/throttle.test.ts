// Flow control on simulated time: the rate is learned from a limited service (AIMD), actions go ahead of polls, an aborted waiter takes nothing.
import { FlowControl, type RateOptions, type Ticket } from "../../src/api/throttle";

/** Simulated time: sleeps are timers that `run` fires in order, letting every promise settle in between. */
class SimTime {
  now = 0;
  private timers: Array<{ at: number; resolve: () => void }> = [];
  readonly sleep = (ms: number) => new Promise<void>((resolve) => this.timers.push({ at: this.now + ms, resolve }));
  readonly clock = () => this.now;

  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  }

  /** Fires timers until `until` (or until nothing is waiting). */
  async run(until: number): Promise<void> {
    await this.settle();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > until) break;
      this.timers.shift();
      this.now = Math.max(this.now, next.at);
      next.resolve();
      await this.settle();
    }
    this.now = until;
  }
}

/** The sandbox's rule: a bucket of one second of `limit`, refilled continuously; a refused request gets 429 and Retry-After 1 s. */
function limitedService(time: SimTime, limit: number) {
  let tokens = limit;
  let last = 0;
  return (): { status: number; retryAfterMs: number | null } => {
    tokens = Math.min(limit, tokens + ((time.now - last) / 1000) * limit);
    last = time.now;
    if (tokens >= 1) {
      tokens -= 1;
      return { status: 200, retryAfterMs: null };
    }
    return { status: 429, retryAfterMs: 1000 };
  };
}

/** `workers` callers sending back to back through the flow control until `end`; every answer is logged with its time. */
function flood(
  flow: FlowControl,
  time: SimTime,
  answer: () => { status: number; retryAfterMs: number | null },
  workers: number,
  end: number,
) {
  const log: Array<{ at: number; status: number }> = [];
  const worker = async () => {
    while (time.now < end) {
      const ticket = await flow.acquire("trade");
      const a = answer();
      log.push({ at: time.now, status: a.status });
      ticket.done(a);
      if (a.status === 429) await time.sleep(a.retryAfterMs ?? 0); // the sender waits out Retry-After before retrying
    }
  };
  for (let i = 0; i < workers; i++) void worker();
  return log;
}

function flow(time: SimTime, options: Partial<RateOptions> = {}, maxConcurrent = 50) {
  return new FlowControl(options, maxConcurrent, time.clock, time.sleep);
}

describe("the learned rate (AIMD)", () => {
  test.each([20, 100])(
    "starting from 5/s, it finds a %i/s limit within seconds and then runs close under it with few 429s",
    async (limit) => {
      const time = new SimTime();
      const f = flow(time);
      expect(f.state().ratePerSecond).toBe(5);
      const log = flood(f, time, limitedService(time, limit), 8, 60_000);
      await time.run(60_000);
      const lastHalf = log.filter((e) => e.at >= 30_000);
      const accepted = lastHalf.filter((e) => e.status === 200).length / 30;
      const refused = lastHalf.filter((e) => e.status === 429).length;
      expect(accepted).toBeGreaterThanOrEqual(0.9 * limit);
      expect(accepted).toBeLessThanOrEqual(limit + 1);
      expect(refused).toBeLessThanOrEqual(0.02 * lastHalf.length);
      expect(f.state().learnedLimitPerSecond).toBeGreaterThan(0.8 * limit);
      expect(f.state().probing).toBe(false);
      // Slow start: the first 10 seconds already deliver most of the limit.
      const first10 = log.filter((e) => e.at < 10_000 && e.status === 200).length / 10;
      expect(first10).toBeGreaterThan(0.6 * limit);
    },
  );

  test("two clients on one key (two workbooks) share the limit: together they run close under it, each gets a fair part", async () => {
    const time = new SimTime();
    const service = limitedService(time, 20);
    const a = flow(time);
    const b = flow(time);
    const logA = flood(a, time, service, 4, 90_000);
    const logB = flood(b, time, service, 4, 90_000);
    await time.run(90_000);
    const last = (log: typeof logA) => log.filter((e) => e.at >= 45_000);
    const ok = (log: typeof logA) => last(log).filter((e) => e.status === 200).length / 45;
    const all = [...last(logA), ...last(logB)];
    expect(ok(logA) + ok(logB)).toBeGreaterThanOrEqual(16);
    expect(ok(logA) + ok(logB)).toBeLessThanOrEqual(21);
    expect(all.filter((e) => e.status === 429).length).toBeLessThanOrEqual(0.05 * all.length);
    expect(Math.min(ok(logA), ok(logB))).toBeGreaterThan(5);
  });

  test("after a run of forced 429s the rate is back near the limit within seconds, not crawling from the floor", async () => {
    const time = new SimTime();
    const f = flow(time);
    const normal = limitedService(time, 20);
    // Six seconds in which the service refuses everything (a burst of 429s with Retry-After 1 s, as a fault or a
    // neighbour's burst gives), between two stretches at its 20/s limit.
    const service = () => (time.now >= 20_000 && time.now < 26_000 ? { status: 429, retryAfterMs: 1000 } : normal());
    const log = flood(f, time, service, 8, 40_000);
    await time.run(40_000);
    const okPerSecond = (from: number, to: number) =>
      log.filter((e) => e.at >= from && e.at < to && e.status === 200).length / ((to - from) / 1000);
    expect(okPerSecond(15_000, 20_000)).toBeGreaterThanOrEqual(16);
    // Within five seconds of the refusals ending, half the limit again (crawling up from the floor at +1/s a second
    // would give about 5/s then).
    expect(okPerSecond(31_000, 33_000)).toBeGreaterThanOrEqual(10);
  });

  test("a 429 cuts the rate once per round trip: the 429s of requests sent before the cut do not cut it again", async () => {
    const time = new SimTime();
    const f = flow(time, { initialPerSecond: 40 });
    const tickets: Ticket[] = [];
    for (let i = 0; i < 10; i++) tickets.push(await f.acquire("trade"));
    for (const t of tickets.slice(0, 5)) t.done({ status: 200, retryAfterMs: null });
    tickets[5].done({ status: 429, retryAfterMs: 1000 });
    const afterCut = f.state().ratePerSecond;
    expect(afterCut).toBeLessThan(40);
    expect(afterCut).toBeGreaterThanOrEqual(20); // at most halved in one step
    for (const t of tickets.slice(6)) t.done({ status: 429, retryAfterMs: 1000 }); // same round trip
    expect(f.state().ratePerSecond).toBe(afterCut);
    expect(f.state().rateLimitedInLastMinute).toBe(5);
    time.now += 61_000;
    expect(f.state().rateLimitedInLastMinute).toBe(0);
  });

  test("a 503 with Retry-After cuts the rate too; a plain 503 or a network error says nothing about it", async () => {
    const time = new SimTime();
    const f = flow(time, { initialPerSecond: 10 });
    (await f.acquire("trade")).done({ status: 503, retryAfterMs: null });
    (await f.acquire("trade")).done(null);
    expect(f.state().ratePerSecond).toBe(10);
    (await f.acquire("trade")).done({ status: 503, retryAfterMs: 2000 });
    expect(f.state().ratePerSecond).toBeLessThan(10);
  });

  test("without requests held back the rate does not grow (an idle client learns nothing)", async () => {
    const time = new SimTime();
    const f = flow(time);
    for (let i = 0; i < 50; i++) {
      (await f.acquire("feed")).done({ status: 200, retryAfterMs: null });
      time.now += 1000; // one request a second, under the rate
    }
    expect(f.state().ratePerSecond).toBe(5);
  });

  test("a fixed rate (ratePerSecond given) never adapts", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 8 });
    const log = flood(f, time, limitedService(time, 4), 4, 10_000);
    await time.run(10_000);
    expect(f.state().ratePerSecond).toBe(8);
    expect(log.some((e) => e.status === 429)).toBe(true);
  });
});

describe("queueing", () => {
  test("an action waiting for the rate goes ahead of every poll that waited longer", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 1, burst: 1 });
    const order: string[] = [];
    const take = (priority: "trade" | "feed", name: string) =>
      f.acquire(priority).then((t) => {
        order.push(name);
        t.done({ status: 200, retryAfterMs: null });
      });
    const all = [take("feed", "poll 1"), take("feed", "poll 2"), take("feed", "poll 3"), take("trade", "open")];
    await time.run(5_000);
    await Promise.all(all);
    expect(order).toEqual(["poll 1", "open", "poll 2", "poll 3"]);
  });

  test("an aborted waiter leaves the queue and takes no token", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 1, burst: 1 });
    (await f.acquire("feed")).done(null);
    const controller = new AbortController();
    const cancelled = f.acquire("feed", controller.signal);
    const next = f.acquire("feed");
    expect(f.state().waiting.feed).toBe(2);
    controller.abort(new Error("cell cancelled"));
    await expect(cancelled).rejects.toThrow("cell cancelled");
    expect(f.state().waiting.feed).toBe(1);
    await time.run(1_000);
    await expect(next).resolves.toBeDefined(); // the one token of the next second went to the waiter still there
    expect(time.now).toBe(1_000);
  });

  test("the concurrency cap holds, and a finished request lets the next waiter in", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 1000, burst: 1000 }, 2);
    const a = await f.acquire("trade");
    await f.acquire("trade");
    let third = false;
    void f.acquire("feed").then(() => (third = true));
    await time.settle();
    expect(third).toBe(false);
    expect(f.state().inFlight).toBe(2);
    a.done({ status: 200, retryAfterMs: null });
    await time.settle();
    expect(third).toBe(true);
  });
});
