// The subscription hub on simulated time: one poll per topic and interval, cache, cancellation, pause, errors, reconnects, budget.
import { ManualClock } from "../../src/feeds/clock";
import { FeedHub, type Snapshot } from "../../src/feeds/hub";
import { hedgeTopic, marketsTopic, positionsTopic, pricesTopic, quoteTopic } from "../../src/feeds/topics";
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
    expect(client.count("markets")).toBe(1); // the allowed-markets check, cached
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
    client.failAlways("account", apiError("rate_limited", 429));
    const cell = recorder<unknown>();
    hub.subscribe({ key: "account", endpoint: "account", fetch: (c) => c.account() }, cell.listener);
    await advance(0);
    expect(cell.last().error).toMatchObject({ code: "rate_limited", retryable: true });
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
