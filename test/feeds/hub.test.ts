// The subscription hub on simulated time: one poll per topic and interval, cache, cancellation, pause, errors, reconnects, budget.
import { ManualClock } from "../../src/feeds/clock";
import { FeedHub } from "../../src/feeds/hub";
import type { Snapshot, TopicSpec } from "../../src/feeds/topic";
import { HedgingApiError } from "../../src/api/errors";
import {
  accountTopic,
  hedgeTopic,
  hedgesTopic,
  historyTopic,
  marketsTopic,
  positionsTopic,
  pricesTopic,
  quoteTopic,
} from "../../src/feeds/topics";
import { FakeClient, FakeSource, apiError, hedgeRecord } from "./fake-client";

function setup(options: Partial<ConstructorParameters<typeof FeedHub>[0]> = {}) {
  const clock = new ManualClock();
  const client = new FakeClient();
  const source = new FakeSource(client);
  const hub = new FeedHub({ source, clock, ...options });
  const advance = (ms: number) => clock.advance(ms, () => hub.settled());
  return { clock, client, source, hub, advance };
}

function recorder<T>() {
  const seen: Snapshot<T>[] = [];
  return { seen, listener: (s: Snapshot<T>) => void seen.push(s), last: () => seen[seen.length - 1] };
}

describe("FeedHub polling", () => {
  test("many subscribers of one question share one request per interval", async () => {
    const { hub, client, advance } = setup();
    const cells = Array.from({ length: 100 }, () => recorder<unknown>());
    for (const c of cells) hub.subscribe(pricesTopic("USDTNGN"), c.listener);
    await advance(0);
    expect(client.count("prices")).toBe(1);
    await advance(10_000); // prices poll every 2 s
    expect(client.count("prices")).toBe(6);
    expect(client.count("markets")).toBe(0); // the answers carry meta.allowed_markets: no GET /markets first
    for (const c of cells) expect(c.seen).toHaveLength(6);
  });

  test("a new subscriber on a live topic gets the cached value at once, without a request", async () => {
    const { hub, client, advance } = setup();
    hub.subscribe(positionsTopic(), () => undefined);
    await advance(0);
    const before = client.count("positions");
    const late = recorder<unknown>();
    hub.subscribe(positionsTopic(), late.listener);
    expect(late.seen).toHaveLength(1);
    expect(late.last().value).toEqual(client.positions_);
    expect(client.count("positions")).toBe(before);
  });

  test("the poll stops when the last subscriber leaves, and a returning one within the linger time gets the value without a request", async () => {
    const { hub, client, advance } = setup();
    const off = hub.subscribe(positionsTopic(), () => undefined);
    await advance(500);
    expect(client.count("positions")).toBe(1);
    off();
    await advance(10_000);
    expect(client.count("positions")).toBe(1);

    const back = recorder<unknown>();
    hub.subscribe(positionsTopic(), back.listener);
    expect(back.seen).toHaveLength(1); // cached
    await advance(0);
    // The cached value is 10.5 s old, older than the 2 s interval: it polls at once, then every 2 s.
    expect(client.count("positions")).toBe(2);
  });

  test("a late onCanceled of a replaced cell does not stop the cell that replaced it", async () => {
    const { hub, client, advance } = setup();
    const offOld = hub.subscribe(positionsTopic(), () => undefined);
    await advance(0);
    const fresh = recorder<unknown>();
    hub.subscribe(positionsTopic(), fresh.listener); // Excel calls the replacement first…
    offOld(); // …and cancels the old invocation afterwards
    offOld(); // a second cancel of the same subscription changes nothing
    await advance(4_000);
    expect(client.count("positions")).toBe(3);
    expect(fresh.seen.length).toBeGreaterThanOrEqual(3);
  });

  test("intervals are per endpoint, configurable, and never faster than one second", async () => {
    const { hub, client, advance } = setup({ intervalsMs: { markets: 10_000, positions: 200 } });
    expect(hub.intervalsMs().positions).toBe(1_000);
    hub.subscribe(marketsTopic(), () => undefined);
    hub.subscribe(positionsTopic(), () => undefined);
    await advance(20_000);
    expect(client.count("markets")).toBe(3); // 0, 10, 20 s
    expect(client.count("positions")).toBe(21); // every second
  });

  test("all pollers together stay within the request budget by stretching intervals", async () => {
    const { hub, client, advance } = setup({ budgetPerSecond: 2 });
    // 20 distinct quotes at 5 s = 4 requests/s wanted; the budget of 2/s stretches every interval ×2.
    for (let i = 1; i <= 20; i++)
      hub.subscribe(quoteTopic({ market: "USDTNGN", side: "buy", notional_usd: i * 1000, tenor_days: 7 }), () => undefined);
    expect(hub.effectiveIntervalMs("quote")).toBe(10_000);
    await advance(0);
    const first = client.count("quote");
    await advance(60_000);
    const perSecond = (client.count("quote") - first) / 60;
    expect(first).toBe(20);
    expect(perSecond).toBeLessThanOrEqual(2);
    expect(perSecond).toBeGreaterThan(1.5);
  });
});

describe("FeedHub errors", () => {
  test("transient errors keep the last good value until the staleness limit, then show the error, then recover", async () => {
    const { hub, client, advance } = setup({ staleAfterMs: 60_000 });
    const cell = recorder<unknown>();
    hub.subscribe(positionsTopic(), cell.listener);
    await advance(0);
    expect(cell.last().error).toBeNull();

    client.failAlways("positions", apiError("service_unavailable", 503));
    await advance(30_000);
    expect(cell.last().error).toBeNull();
    expect(cell.last().value).toEqual(client.positions_);
    expect(cell.last().lastError?.code).toBe("service_unavailable");
    const duringBackoff = client.count("positions");
    expect(duringBackoff).toBeLessThan(1 + 30_000 / 2_000); // it backs off instead of polling every 2 s

    await advance(60_000);
    expect(cell.last().error?.code).toBe("service_unavailable");

    client.failAlways("positions", null);
    await advance(60_000);
    expect(cell.last().error).toBeNull();
    expect(cell.last().lastError).toBeNull();
  });

  test("a transient error with no value yet shows at once", async () => {
    const { hub, client, advance } = setup();
    client.failAlways("account", apiError("service_unavailable", 503));
    const cell = recorder<unknown>();
    hub.subscribe({ key: "account", endpoint: "account", fetch: (c) => c.account() }, cell.listener);
    await advance(0);
    expect(cell.last().error).toMatchObject({ code: "service_unavailable", retryable: true });
  });

  test("a permanent error (rejected key) shows at once even with a good value, and is asked again only slowly", async () => {
    const { hub, client, advance } = setup();
    const cell = recorder<unknown>();
    hub.subscribe(positionsTopic(), cell.listener);
    await advance(0);
    client.failAlways("positions", apiError("invalid_api_key", 401));
    await advance(2_000);
    expect(cell.last().error).toMatchObject({ code: "invalid_api_key", retryable: false });
    const count = client.count("positions");
    await advance(30_000);
    expect(client.count("positions")).toBe(count);
  });

  test("a market outside meta.allowed_markets fails as an argument error before the quote is sent", async () => {
    const { hub, client, advance } = setup();
    const cell = recorder<unknown>();
    hub.subscribe(quoteTopic({ market: "USDTKES", side: "buy", notional_usd: 1000, tenor_days: 7 }), cell.listener);
    await advance(0);
    expect(cell.last().error).toMatchObject({ kind: "argument" });
    expect(cell.last().error?.message).toContain("USDTNGN");
    expect(client.count("quote")).toBe(0);
  });

  test("the first price is asked at once, not after GET /markets; a market outside its answer's allowed markets still fails as an argument error, and the next poll is refused before it is sent", async () => {
    const { hub, client, advance } = setup();
    const cell = recorder<unknown>();
    hub.subscribe(pricesTopic("USDTKES"), cell.listener);
    await advance(0);
    expect(client.calls.map((c) => c.method)).toEqual(["prices"]);
    expect(cell.last().error).toMatchObject({ kind: "argument" });
    expect(cell.last().error?.message).toContain("USDTNGN");
    const asked = client.count("prices");
    await advance(10_000);
    expect(client.count("prices")).toBe(asked); // an argument error is not polled again
  });

  test("a price answer without meta.allowed_markets waits for the account's list (GET /markets) before its value is shown", async () => {
    const { hub, client, advance } = setup();
    client.allowed = undefined;
    const cell = recorder<unknown>();
    hub.subscribe(pricesTopic("USDTNGN"), cell.listener);
    await advance(0);
    expect(client.calls.map((c) => c.method)).toEqual(["prices", "markets"]);
    expect(cell.last().value).toBeDefined();
  });
});

describe("FeedHub pause, reconnect, final topics", () => {
  test("pause stops every poll and keeps values; resume polls again", async () => {
    const { hub, client, advance } = setup();
    const cell = recorder<unknown>();
    hub.subscribe(pricesTopic("USDTNGN"), cell.listener);
    hub.subscribe(positionsTopic(), () => undefined);
    await advance(0);
    const before = client.count();
    hub.pause();
    expect(hub.status().paused).toBe(true);
    await advance(60_000);
    expect(client.count()).toBe(before);
    expect(cell.last().value).toBeDefined();

    hub.resume();
    await advance(0);
    expect(client.count("prices")).toBe(2);
    expect(client.count("positions")).toBe(2);
    expect(hub.status().paused).toBe(false);
  });

  test("while paused a new question is answered once, not polled", async () => {
    const { hub, client, advance } = setup();
    hub.pause();
    const cell = recorder<unknown>();
    hub.subscribe(positionsTopic(), cell.listener);
    await advance(10_000);
    expect(client.count("positions")).toBe(1);
    expect(cell.last().value).toBeDefined();
  });

  test("a new key refetches every topic; no key shows 'Set your API key' everywhere and stops polling", async () => {
    const { hub, client, source, advance } = setup();
    const cell = recorder<unknown>();
    hub.subscribe(positionsTopic(), cell.listener);
    await advance(0);

    const other = new FakeClient("production");
    other.positions_ = [];
    source.set(other);
    await advance(0);
    expect(other.count("positions")).toBe(1);
    expect(cell.last().value).toEqual([]);
    expect(hub.status().environment).toBe("live");

    source.set(null);
    expect(cell.last().error).toMatchObject({ kind: "no_key", message: "Set your API key in the Hedge pane" });
    const count = other.count() + client.count();
    await advance(10_000);
    expect(other.count() + client.count()).toBe(count);
    expect(hub.status()).toMatchObject({ environment: "none", connected: false });

    const late = recorder<unknown>();
    hub.subscribe(pricesTopic("USDTNGN"), late.listener);
    expect(late.last().error?.kind).toBe("no_key");
  });

  test("a hedge topic stops polling once the hedge is closed or failed", async () => {
    const { hub, client, advance } = setup();
    client.hedges_ = [hedgeRecord({ id: "h_9", status: "submitted", fill_tx_hash: null })];
    const cell = recorder<{ status: string }>();
    hub.subscribe(hedgeTopic("h_9"), cell.listener);
    await advance(4_000);
    expect(client.count("get")).toBe(3);
    client.hedges_[0].status = "closed";
    await advance(2_000);
    expect(cell.last().value?.status).toBe("closed");
    const count = client.count("get");
    await advance(60_000);
    expect(client.count("get")).toBe(count);
  });
});

describe("FeedHub status", () => {
  test("reports environment, connection, last update, requests and pause, and never the key", async () => {
    const { hub, client, advance, clock } = setup();
    const statuses: ReturnType<FeedHub["status"]>[] = [];
    hub.onStatus((s) => statuses.push(s));
    expect(statuses[0]).toMatchObject({ environment: "sandbox", connected: false, reason: "No answer yet", paused: false });

    hub.subscribe(positionsTopic(), () => undefined);
    await advance(0);
    expect(hub.status()).toMatchObject({ connected: true, reason: "", lastSuccessAt: clock.now(), requestsInLastMinute: client.count() });

    client.failAlways("positions", apiError("service_unavailable", 503, "Backend down"));
    await advance(2_000);
    expect(hub.status()).toMatchObject({ connected: false, reason: "service_unavailable: Backend down" });
    hub.togglePause();
    expect(statuses[statuses.length - 1].paused).toBe(true);
  });
});

describe("FeedHub: polls that follow the user (reduced scale, simulated time)", () => {
  const twentyQuotes = () =>
    Array.from({ length: 20 }, (_, i) =>
      quoteTopic({ market: "USDTNGN", side: i % 2 ? "sell" : "buy", notional_usd: 1000 * (i + 1), tenor_days: 7 }),
    );

  test("polls go through the client's polling view (one attempt each, behind every action)", async () => {
    const { hub, client, advance } = setup();
    hub.subscribe(pricesTopic("USDTNGN"), () => undefined);
    hub.subscribe(positionsTopic(), () => undefined);
    await advance(4_000);
    expect(client.calls.length).toBeGreaterThan(3);
    expect(client.calls.every((c) => c.kind === "poll")).toBe(true);
  });

  test("an outage: within one interval polls slow down and back off with jitter; the outage minute costs under half the healthy one and the next less; values stay; recovery within one capped interval", async () => {
    const { hub, client, advance, clock } = setup({ random: () => 0.5 });
    const cells = [pricesTopic("USDTNGN"), ...twentyQuotes()].map((topic) => {
      const cell = recorder<unknown>();
      hub.subscribe(topic, cell.listener);
      return cell;
    });
    await advance(10_000);
    const h0 = client.count();
    await advance(60_000);
    const healthy = client.count() - h0;
    expect(healthy).toBeGreaterThanOrEqual(260); // 30 prices + 20 × 12 quotes

    const down = apiError("service_unavailable", 503);
    client.failAlways("prices", down);
    client.failAlways("quote", down);
    const o0 = client.count();
    await advance(5_000); // one quote interval: every topic has failed once, none has been asked twice
    expect(client.count() - o0).toBeLessThanOrEqual(21 + 2);
    await advance(55_000);
    const outage = client.count() - o0;
    expect(outage).toBeLessThanOrEqual(healthy / 2);
    const m2 = { all: client.count(), prices: client.count("prices"), quote: client.count("quote") };
    await advance(60_000);
    // It keeps falling: each topic once a minute or so, while one topic per endpoint probes at least every 15 s.
    expect(client.count() - m2.all).toBeLessThan(outage);
    expect(client.count() - m2.all).toBeLessThanOrEqual(45);
    expect(client.count("prices") - m2.prices).toBeGreaterThanOrEqual(4);
    expect(client.count("quote") - m2.quote).toBeGreaterThanOrEqual(4);
    for (const cell of cells) {
      expect(cell.last().error).toBeNull(); // the last good value stays (within the staleness limit)
      expect(cell.last().value).toBeDefined();
    }

    client.failAlways("prices", null);
    client.failAlways("quote", null);
    const back = clock.now();
    await advance(15_000);
    for (const info of hub.topicInfo()) expect(info.fetchedAt).toBeGreaterThanOrEqual(back);
    for (const cell of cells) expect(cell.last().lastError).toBeNull();
  });

  test("recovery seen by one topic brings every other backing-off topic back at once", async () => {
    const { hub, client, advance, clock } = setup({ random: () => 1 });
    hub.subscribe(pricesTopic("USDTNGN"), () => undefined);
    for (const topic of twentyQuotes()) hub.subscribe(topic, () => undefined);
    await advance(0);
    const down = apiError("service_unavailable", 503);
    client.failAlways("prices", down);
    client.failAlways("quote", down);
    await advance(120_000);
    client.failAlways("prices", null);
    client.failAlways("quote", null);
    const back = clock.now();
    // The first topic to ask again finds the service back; the others follow at once rather than each at its own time.
    let firstBack: number | null = null;
    for (let t = 0; t < 15_000 && firstBack === null; t += 100) {
      await advance(100);
      if (hub.topicInfo().some((i) => (i.fetchedAt ?? 0) >= back)) firstBack = clock.now();
    }
    expect(firstBack).not.toBeNull();
    await advance(0);
    for (const info of hub.topicInfo()) expect(info.fetchedAt).toBeGreaterThanOrEqual(back);
    expect(clock.now() - back).toBeLessThanOrEqual(15_000);
  });

  test("one endpoint down (quotes) while others answer: its topics wait up to a minute each, one of them probes every 15 s, and all come back together", async () => {
    const { hub, client, advance, clock } = setup({ random: () => 1 });
    hub.subscribe(pricesTopic("USDTNGN"), () => undefined);
    for (const topic of twentyQuotes()) hub.subscribe(topic, () => undefined);
    await advance(0);
    client.failAlways("quote", apiError("quote_failed", 502));
    await advance(120_000);
    const q0 = client.count("quote");
    await advance(60_000);
    expect(client.count("quote") - q0).toBeLessThanOrEqual(20 + 5); // each topic about once a minute, plus the probe
    expect(client.count("quote") - q0).toBeGreaterThanOrEqual(4); // the probe: at least every 15 s
    client.failAlways("quote", null);
    const back = clock.now();
    await advance(15_000);
    for (const info of hub.topicInfo()) expect(info.fetchedAt).toBeGreaterThanOrEqual(back);
  });

  test("backoff has jitter: topics that failed together do not all ask again at the same moment", async () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const { hub, client, advance, clock } = setup({ random });
    const at: number[] = [];
    for (const topic of twentyQuotes())
      hub.subscribe({ ...topic, fetch: (c, ctx) => (at.push(clock.now()), topic.fetch(c, ctx)) }, () => undefined);
    await advance(0);
    client.failAlways("quote", apiError("service_unavailable", 503));
    await advance(5_000); // all 20 fail at the same moment
    const failedAt = clock.now();
    at.length = 0;
    await advance(30_000);
    const retries = at.filter((t) => t > failedAt);
    expect(new Set(retries).size).toBeGreaterThan(10);
    expect(Math.min(...retries) - failedAt).toBeGreaterThanOrEqual(5_000); // none sooner than the interval
  });

  test("a feed does not ask again before the service's Retry-After", async () => {
    const { hub, client, advance } = setup();
    hub.subscribe(positionsTopic(), () => undefined);
    await advance(0);
    client.failNext("positions", new HedgingApiError({ code: "rate_limited", status: 429, message: "slow down", retryAfterMs: 40_000 }));
    await advance(2_000);
    const after = client.count("positions");
    await advance(39_000);
    expect(client.count("positions")).toBe(after);
    await advance(2_000);
    expect(client.count("positions")).toBe(after + 1);
  });

  test("a 429 before any value is waited out (the cell shows nothing yet) for 30 s, then shown", async () => {
    const { hub, client, advance } = setup();
    client.failAlways("account", apiError("rate_limited", 429));
    const cell = recorder<unknown>();
    hub.subscribe(accountTopic(), cell.listener);
    await advance(20_000);
    expect(client.count("account")).toBeGreaterThan(1);
    expect(cell.seen).toHaveLength(0);
    await advance(30_000);
    expect(cell.last().error).toMatchObject({ code: "rate_limited" });
    client.failAlways("account", null);
    await advance(20_000);
    expect(cell.last().value).toEqual(client.account_);
  });

  test("a cancelled cell aborts the poll it alone was waiting for; with another cell still there, the poll goes on", async () => {
    const { hub, client, advance } = setup();
    const release = client.hold();
    const offA = hub.subscribe(positionsTopic(), () => undefined);
    const b = recorder<unknown>();
    const offB = hub.subscribe(positionsTopic(), b.listener);
    void advance(0);
    await Promise.resolve();
    const call = client.calls.find((c) => c.method === "positions");
    expect(call?.signal?.aborted).toBe(false);
    offA();
    expect(call?.signal?.aborted).toBe(false);
    offB();
    expect(call?.signal?.aborted).toBe(true);
    release();
    await advance(0);
    expect(b.seen).toHaveLength(0);
    // Back within the linger time: asked again at once, since the aborted poll brought nothing.
    const back = recorder<unknown>();
    hub.subscribe(positionsTopic(), back.listener);
    await advance(0);
    expect(client.count("positions")).toBe(2);
    expect(back.last().value).toEqual(client.positions_);
  });

  test("the feeds' budget follows the rate the client has learned", async () => {
    const { hub, client } = setup();
    for (const topic of twentyQuotes()) hub.subscribe(topic, () => undefined); // 4 requests/s wanted
    client.ratePerSecond = 2;
    expect(hub.budgetPerSecond()).toBe(2);
    expect(hub.effectiveIntervalMs("quote")).toBe(10_000);
    client.ratePerSecond = 20;
    expect(hub.effectiveIntervalMs("quote")).toBe(5_000);
  });

  test("after a trade the positions, account, hedge and history topics are asked at once; prices and quotes are not", async () => {
    const { hub, client, advance } = setup();
    const topics: TopicSpec<unknown>[] = [
      pricesTopic("USDTNGN"),
      quoteTopic({ market: "USDTNGN", side: "buy", notional_usd: 1000, tenor_days: 7 }),
      positionsTopic(),
      accountTopic(),
      hedgesTopic({}),
      hedgeTopic("h_1"),
      historyTopic(),
    ] as TopicSpec<unknown>[];
    for (const topic of topics) hub.subscribe(topic, () => undefined);
    await advance(1_500);
    const before = {
      ...Object.fromEntries(
        ["prices", "quote", "positions", "account", "list", "get", "history"].map((m) => [m, client.count(m as never)]),
      ),
    };
    client.trade();
    await advance(0);
    for (const m of ["positions", "account", "list", "get", "history"]) expect(client.count(m as never)).toBe(before[m] + 1);
    expect(client.count("prices")).toBe(before.prices);
    expect(client.count("quote")).toBe(before.quote);
    // A burst of trades (a batch): at most one refresh per topic per second.
    for (let i = 0; i < 20; i++) {
      client.trade();
      await advance(50);
    }
    expect(client.count("history")).toBeLessThanOrEqual(before.history + 2);
  });

  test("after a trade, a topic nobody shows any more is forgotten: a new cell does not get its pre-trade answer", async () => {
    const { hub, client, advance } = setup();
    const off = hub.subscribe(historyTopic(), () => undefined);
    await advance(0);
    off();
    client.trade();
    const late = recorder<unknown>();
    hub.subscribe(historyTopic(), late.listener);
    expect(late.seen).toHaveLength(0); // no cached answer from before the trade
    await advance(0);
    expect(client.count("history")).toBe(2);
    expect(late.seen).toHaveLength(1);
  });

  test("a trade while a poll is in flight asks again when that poll ends (its answer may predate the trade)", async () => {
    const { hub, client, advance } = setup();
    hub.subscribe(positionsTopic(), () => undefined);
    await advance(500);
    const release = client.hold();
    hub.refresh(); // a poll goes out and waits for its answer
    const n = client.count("positions");
    client.trade();
    release();
    await advance(0); // the poll in flight ends
    expect(client.count("positions")).toBe(n);
    await advance(1_000); // not the 2 s interval: a second after the poll that may predate the trade
    expect(client.count("positions")).toBe(n + 1);
  });

  test("until the saved settings are read, subscribers get nothing (Excel shows #BUSY!); then 'Set your API key'", async () => {
    const clock = new ManualClock();
    const source = Object.assign(new FakeSource(null), { ready: false });
    const hub = new FeedHub({ source, clock });
    const cell = recorder<unknown>();
    hub.subscribe(positionsTopic(), cell.listener);
    expect(cell.seen).toHaveLength(0);
    expect(hub.status().reason).toBe("Reading the saved settings");
    source.ready = true;
    source.set(null);
    expect(cell.last().error?.kind).toBe("no_key");
  });
});
