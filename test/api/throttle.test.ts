// Flow control on simulated time: the rate is learned from a limited service (AIMD), actions go ahead of polls, an aborted waiter takes nothing.
import { getEventListeners } from "node:events";
import { ConcurrencyLimit, FlowControl, type RateOptions, type Ticket } from "../../src/api/throttle";

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
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0); // nothing left behind on the caller's signal
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

describe("the desk's concurrency limit", () => {
  test("at most `limit` tasks run at once, the others start in the order they came, and a failed task frees its place", async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (n: number, fails = false) =>
      limit.run(async () => {
        started.push(n);
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (fails) throw new Error(`task ${n} failed`);
        return n;
      });
    const results = await Promise.allSettled([task(1), task(2, true), task(3), task(4, true), task(5), task(6)]);
    expect(peak).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5, 6]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      1,
      "task 2 failed",
      3,
      "task 4 failed",
      5,
      6,
    ]);
    // Everything finished: the full limit is free again.
    running = 0;
    peak = 0;
    await Promise.all([task(7), task(8)]);
    expect(peak).toBe(2);
  });

  test("a limit below one is refused", () => {
    expect(() => new ConcurrencyLimit(0)).toThrow(new RangeError("ConcurrencyLimit needs limit >= 1"));
    expect(new ConcurrencyLimit(1).limit).toBe(1);
  });
});

describe("settings", () => {
  test("rates that cannot work are refused when the flow control is made, naming the rule", () => {
    const time = new SimTime();
    for (const bad of [
      { initialPerSecond: 0 },
      { minPerSecond: 0 },
      { minPerSecond: 5, maxPerSecond: 4 },
      { initialPerSecond: Number.NaN },
    ]) {
      expect(() => flow(time, bad)).toThrow("FlowControl needs rates > 0 and maxPerSecond >= minPerSecond");
    }
    expect(() => flow(time, {}, 0)).toThrow("FlowControl needs maxConcurrent >= 1");
    expect(flow(time, { minPerSecond: 4, maxPerSecond: 4, initialPerSecond: 4 }, 1).state().ratePerSecond).toBe(4);
  });

  test("a learned rate starts within its bounds; a fixed rate is taken as given", () => {
    const time = new SimTime();
    expect(flow(time, { initialPerSecond: 5_000 }).state().ratePerSecond).toBe(1_000);
    expect(flow(time, { initialPerSecond: 0.1 }).state().ratePerSecond).toBe(0.5);
    expect(flow(time, { adaptive: false, initialPerSecond: 5_000 }).state()).toMatchObject({
      ratePerSecond: 5_000,
      adaptive: false,
      probing: false,
    });
  });
});

describe("the learning rules, step by step", () => {
  const OK = { status: 200, retryAfterMs: null };
  const LIMITED = { status: 429, retryAfterMs: 1000 };

  /** `n` tickets that each waited for the rate (the ones that did not wait are answered at once and left out). */
  async function heldBack(f: FlowControl, time: SimTime, n: number, priority: "trade" | "feed" = "trade"): Promise<Ticket[]> {
    let granted = 0;
    const pending = Array.from({ length: n + 20 }, () => f.acquire(priority).finally(() => granted++));
    while (granted < pending.length) await time.run(time.now + 50);
    const tickets = await Promise.all(pending);
    const waited = tickets.filter((t) => t.limited);
    for (const t of tickets.filter((t) => !t.limited)) t.done(null);
    for (const t of waited.slice(n)) t.done(null);
    expect(waited.length).toBeGreaterThanOrEqual(n);
    return waited.slice(0, n);
  }

  /** A flow at 20/s that saw 10 requests accepted and then a 429 (at t = 0): rate and limit learned are both 10/s. */
  async function cutAtTen(time: SimTime) {
    const f = flow(time, { initialPerSecond: 20 });
    const tickets: Ticket[] = [];
    for (let i = 0; i < 11; i++) tickets.push(await f.acquire("trade"));
    for (const t of tickets.slice(0, 10)) t.done(OK);
    tickets[10].done(LIMITED);
    expect(f.state()).toMatchObject({ ratePerSecond: 10, learnedLimitPerSecond: 10, probing: false });
    return f;
  }

  test("near the limit the last 429 showed, the rate grows by a quarter request/s per second of held-back requests; after 30 s by one", async () => {
    const time = new SimTime();
    const f = await cutAtTen(time);
    for (const t of await heldBack(f, time, 10)) t.done(OK); // one second's worth at 10/s
    const near = f.state().ratePerSecond;
    expect(near).toBeGreaterThan(10.2);
    expect(near).toBeLessThan(10.3);
    const tickets = await heldBack(f, time, 10);
    time.now = 30_000; // the 429 is 30 s old: no longer near
    for (const t of tickets) t.done(OK);
    const later = f.state().ratePerSecond - near;
    expect(later).toBeGreaterThan(0.9);
    expect(later).toBeLessThan(1.05);
  });

  test("at 95 % of the limit learned it is near the limit already", async () => {
    const time = new SimTime();
    const f = flow(time, { initialPerSecond: 19 });
    const tickets: Ticket[] = [];
    for (let i = 0; i < 11; i++) tickets.push(await f.acquire("trade"));
    for (const t of tickets.slice(0, 10)) t.done(OK);
    tickets[10].done(LIMITED); // 19/s halved at most: 9.5, with 10/s learned
    expect(f.state()).toMatchObject({ ratePerSecond: 9.5, learnedLimitPerSecond: 10 });
    const [t] = await heldBack(f, time, 1);
    t.done(OK);
    expect(f.state().ratePerSecond).toBeCloseTo(9.5 + 0.25 / 9.5, 10);
  });

  test("a 429 to the very first request: the rate is halved and the limit learned is the floor", async () => {
    const time = new SimTime();
    const f = flow(time);
    (await f.acquire("trade")).done(LIMITED);
    expect(f.state()).toMatchObject({ ratePerSecond: 2.5, learnedLimitPerSecond: 0.5, probing: false });
  });

  test("a 429 cuts at most once a second; a second that accepted nothing halves the rate and keeps the limit learned", async () => {
    const time = new SimTime();
    const f = await cutAtTen(time);
    time.now = 999;
    (await f.acquire("trade")).done(LIMITED);
    expect(f.state().ratePerSecond).toBe(10);
    for (let i = 0; i < 6; i++) (await f.acquire("trade")).done(OK);
    time.now = 1_000;
    (await f.acquire("trade")).done(LIMITED);
    // 16 accepted in the second before, but never more than 90 % of the rate it had: 9/s; the limit learned is 16/s.
    expect(f.state()).toMatchObject({ ratePerSecond: 9, learnedLimitPerSecond: 16 });
    time.now = 4_000;
    (await f.acquire("trade")).done(LIMITED);
    expect(f.state()).toMatchObject({ ratePerSecond: 4.5, learnedLimitPerSecond: 16 });
  });

  test("below half the limit learned the rate grows as in slow start (one more request/s per answer), then additively", async () => {
    const time = new SimTime();
    const f = await cutAtTen(time);
    time.now = 2_500;
    (await f.acquire("trade")).done(LIMITED); // nothing accepted in the last second: 10 → 5, limit still 10
    expect(f.state()).toMatchObject({ ratePerSecond: 5, learnedLimitPerSecond: 10 });
    const [half] = await heldBack(f, time, 1);
    half.done(OK);
    expect(f.state().ratePerSecond).toBeCloseTo(5.2, 10); // exactly half the limit is not below it: additively
    time.now += 2_500;
    (await f.acquire("trade")).done(LIMITED); // 5.2 → 2.6
    const [a, b, c] = await heldBack(f, time, 3);
    a.done(OK);
    expect(f.state().ratePerSecond).toBeCloseTo(3.6, 10);
    b.done(OK);
    expect(f.state().ratePerSecond).toBeCloseTo(4.6, 10);
    c.done(OK);
    expect(f.state().ratePerSecond).toBeCloseTo(5.6, 10); // 4.6 was under half of 10: one more; from 5.6 on, additively
    const [d] = await heldBack(f, time, 1);
    d.done(OK);
    expect(f.state().ratePerSecond).toBeCloseTo(5.6 + 1 / 5.6, 10);
  });

  test("the rate stays within its bounds: slow start (polls held back teach it too) stops at the ceiling, repeated 429s at the floor", async () => {
    const time = new SimTime();
    const f = flow(time, { initialPerSecond: 4, minPerSecond: 1, maxPerSecond: 6 });
    for (const t of await heldBack(f, time, 5, "feed")) t.done(OK);
    expect(f.state()).toMatchObject({ ratePerSecond: 6, probing: true });
    for (let i = 0; i < 6; i++) {
      time.now += 2_500;
      (await f.acquire("trade")).done(LIMITED);
    }
    expect(f.state()).toMatchObject({ ratePerSecond: 1, probing: false });
  });

  test("late 429s to requests sent before a cut do not cut again: a burst refused together lowers the rate once", async () => {
    const time = new SimTime();
    const f = flow(time, { initialPerSecond: 20 });
    const before: Ticket[] = [];
    for (let i = 0; i < 14; i++) before.push(await f.acquire("trade"));
    for (const t of before.slice(0, 10)) t.done(OK);
    before[10].done(LIMITED);
    expect(f.state().ratePerSecond).toBe(10);
    time.now = 1_500; // the rest of the burst is refused late, more than a second after the cut
    for (const t of before.slice(11)) t.done(LIMITED);
    expect(f.state()).toMatchObject({ ratePerSecond: 10, rateLimitedInLastMinute: 4 });
    (await f.acquire("trade")).done(LIMITED); // a request sent after the cut and refused: news, so it cuts
    expect(f.state().ratePerSecond).toBe(5);
  });

  test("the bucket holds burstSeconds of the rate: 5/s over 2 s lets 10 go at once, the 11th waits", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 5, burstSeconds: 2 });
    let granted = 0;
    const pending = Array.from({ length: 11 }, () => f.acquire("feed").then((t) => (granted++, t)));
    await time.settle();
    expect(granted).toBe(10);
    await time.run(200);
    expect(granted).toBe(11);
    for (const t of await Promise.all(pending)) t.done(OK);
  });

  test("the 429 count is of the last 60 seconds, the edge included", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 100 });
    (await f.acquire("trade")).done(LIMITED);
    time.now = 60_000;
    expect(f.state().rateLimitedInLastMinute).toBe(1);
    time.now = 60_001;
    expect(f.state().rateLimitedInLastMinute).toBe(0);
  });

  test("a ticket answered twice frees one place, not two: the concurrency cap still holds", async () => {
    const time = new SimTime();
    const f = flow(time, { adaptive: false, initialPerSecond: 1000, burst: 1000 }, 2);
    const a = await f.acquire("trade");
    await f.acquire("trade");
    a.done(OK);
    a.done(OK);
    await f.acquire("trade");
    let fourth = false;
    void f.acquire("trade").then(() => (fourth = true));
    await time.settle();
    expect(fourth).toBe(false);
    expect(f.state()).toMatchObject({ inFlight: 2, waiting: { trade: 1, feed: 0 } });
  });
});
