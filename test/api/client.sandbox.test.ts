// The HedgingClient against the real sandbox over HTTP: all 13 methods, its error mapping, and its retries with one Idempotency-Key.
import { HedgingApiError } from "../../src/api/errors";
import { DEMO_API_KEY, DEMO_LIVE_API_KEY, DEMO_READONLY_API_KEY } from "../../src/sandbox/demo";
import type { RunningSandbox } from "../../src/sandbox/server";
import { client, start, until } from "../sandbox/helpers";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

test("all 13 methods, in the order a treasury desk would use them", async () => {
  const c = client(sb);
  expect(c.environment).toBe("sandbox");

  const markets = await c.markets(); // 1
  expect(markets.data[0].market).toBe("USDTNGN");
  expect(markets.meta.allowed_markets).toEqual(["USDTNGN"]);

  const prices = await c.prices("USDTNGN"); // 2
  expect(prices.data.USDTNGN.price).toBeGreaterThan(1000);

  const account = await c.account(); // 3
  expect(account.data.balance_usdc).toBe(250_000);

  expect((await c.positions()).data).toEqual([]); // 4

  const quote = await c.quote({ market: "USDTNGN", side: "buy", notional_usd: 120_000, tenor_days: 7 }); // 5
  expect(quote.data.upfront.total_upfront_usdc).toBe(12_120);

  const opened = await c.open({ market: "USDTNGN", side: "buy", notional_usd: 120_000, tenor_days: 7, client_reference: "TRS-001" }); // 6
  expect(opened.data).toMatchObject({ status: "submitted", client_reference: "TRS-001", collateral_usdc: 12_120 });
  expect(opened.idempotencyKey).toEqual(expect.any(String));
  const id = opened.data.hedge_id!;

  // Waited for as long as it takes (a busy machine is slow, not wrong): the test's timeout is the only bound.
  const filled = await until(
    async () => {
      const h = (await c.get(id)).data; // 7
      return h.status === "filled" ? h : undefined;
    },
    Infinity,
    "the open to fill",
  );
  expect(filled.client_reference).toBe("TRS-001");

  const added = await c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 30_000 }); // 8
  expect(added.data).toMatchObject({ hedge_id: id, new_notional_usd: 150_000 });
  const addedById = await c.addById(id, { additional_notional_usd: 10_000 }); // 9
  expect(addedById.data).toMatchObject({ hedge_id: id, new_notional_usd: 160_000 });

  const reduced = await c.decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 60_000 }); // 10
  expect(reduced.data).toMatchObject({ hedge_id: id, reduced_notional_usd: 60_000, new_notional_usd: 100_000 });
  await until(async () => (await c.get(id)).data.notional_usd === 100_000 || undefined, Infinity, "the reduction to apply");

  const listed = await c.list({ client_reference: "TRS-001", status: "filled", limit: 10 }); // 11
  expect(listed.data.map((h) => h.id)).toEqual([id]);

  const closed = await c.close({ market: "USDTNGN", side: "buy" }); // 12
  expect(closed.data).toMatchObject({ status: "submitted", hedge_id: id });
  await until(async () => (await c.get(id)).data.status === "closed" || undefined, Infinity, "the close to apply");

  const history = await c.history({ limit: 10 }); // 13
  expect(history.data.map((r) => [r.exit_type, r.size_usd])).toEqual([
    ["close", 100_000],
    ["decrease", 60_000],
  ]);
  expect(history.data.every((r) => r.hedge_id === id && r.client_reference === "TRS-001")).toBe(true);
  const between = await c.history({ from: history.data[1].closed_at, to: history.data[0].closed_at });
  expect(between.data.map((r) => r.exit_type)).toEqual(["decrease"]);

  const after = (await c.account()).data;
  const net = history.data.reduce((s, r) => s + Math.round(r.net_pnl_usd * 100), 0);
  expect(Math.round(after.balance_usdc * 100)).toBe(25_000_000 + net);
});

test("service errors reach the caller as HedgingApiError with the spec's code, status and details", async () => {
  const c = client(sb);
  await c.open({ market: "USDTNGN", side: "sell", notional_usd: 10_000, tenor_days: 1 });
  const cases: Array<[Promise<unknown>, string, number]> = [
    [c.open({ market: "USDTNGN", side: "sell", notional_usd: 10_000, tenor_days: 1 }), "hedge_exists", 409],
    [c.open({ market: "USDTNGN", side: "buy", notional_usd: 3_000_000, tenor_days: 1 }), "exposure_exceeded", 400],
    [c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 }), "no_open_hedge", 404],
    [c.get("hdg_missing"), "hedge_not_found", 404],
    [c.quote({ market: "USDTXYZ", side: "buy", notional_usd: 1, tenor_days: 1 }), "market_not_allowed", 400],
    [client(sb, DEMO_READONLY_API_KEY).close({ market: "USDTNGN", side: "sell" }), "insufficient_scope", 403],
    [client(sb, "svc_test_who_is_this").markets(), "invalid_api_key", 401],
  ];
  for (const [promise, code, status] of cases) {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HedgingApiError);
    expect([(error as HedgingApiError).code, (error as HedgingApiError).status, (error as HedgingApiError).retryable]).toEqual([
      code,
      status,
      false,
    ]);
  }
  const exposure = await c
    .open({ market: "USDTNGN", side: "buy", notional_usd: 3_000_000, tenor_days: 1 })
    .catch((e: HedgingApiError) => e);
  expect((exposure as HedgingApiError).details).toMatchObject({ available_headroom_usd: 1_000_000 });
});

test("retries keep one Idempotency-Key: an injected 503 before the action and a dropped answer after it still make one hedge", async () => {
  const c = client(sb);
  const faults = await fetch(`${sb.controlUrl}/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ fail_next: { count: 2, code: "execution_failed", path: "/hedges", method: "POST" }, drop_after_commit: 1 }),
  });
  expect(faults.status).toBe(200);
  const opened = await c.open({ market: "USDTNGN", side: "buy", notional_usd: 5_000, tenor_days: 3, client_reference: "RETRY" });
  expect(opened.data.hedge_id).toMatch(/^hdg_/);
  const all = (await c.list()).data;
  expect(all).toHaveLength(1);
  expect(sb.idempotency.size).toBe(1);
});

test("an in-flight duplicate is retried by the client until the first answer is stored", async () => {
  sb.faults.apply({ latency_ms: 200, latency_path: "/hedges/close" });
  const c = client(sb);
  await c.open({ market: "USDTNGN", side: "buy", notional_usd: 5_000, tenor_days: 3 });
  const key = "close-once";
  const codes: Array<string | null> = [];
  const second = client(sb, DEMO_API_KEY, {
    retry: { maxAttempts: 10, baseDelayMs: 60, maxDelayMs: 120 },
    onAttempt: (e) => codes.push(e.code),
  });
  const before = sb.idempotency.size;
  const first = c.close({ market: "USDTNGN", side: "buy" }, { idempotencyKey: key });
  // The second is sent once the sandbox holds the first's key in flight (during its 200 ms latency), not after a guessed delay.
  await until(() => sb.idempotency.size > before, Infinity, "the first close to reach the sandbox");
  const [a, b] = await Promise.all([first, second.close({ market: "USDTNGN", side: "buy" }, { idempotencyKey: key })]);
  expect(a.data).toEqual(b.data);
  expect(codes[0]).toBe("idempotency_in_flight");
  expect(codes.at(-1)).toBeNull();
  const state = sb.engine.accountState(DEMO_API_KEY)!;
  expect(state.hedges[0].orders.filter((o) => o.kind === "close").length + (state.hedges[0].status === "closed" ? 1 : 0)).toBe(1);
});

test("a live key is production: its client says so and its data is its own", async () => {
  const live = client(sb, DEMO_LIVE_API_KEY);
  expect(live.environment).toBe("production");
  expect((await live.account()).meta).toEqual({ source: "production", key_scopes: ["read", "trade"] });
  expect((await live.account()).data.balance_usdc).toBe(100_000);
});
