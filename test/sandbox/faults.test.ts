// The control API and each fault (5xx bursts, latency, forced 429s, stalled fills, price outage, failing fills), rate limiting, CORS.
import { z } from "zod";
import { HedgingApiError } from "../../src/api/errors";
import { hedgeSchema, marketSchema, openHedgeResultSchema } from "../../src/api/schemas";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { isLoopbackAddress } from "../../src/sandbox/http-io";
import type { RunningSandbox } from "../../src/sandbox/server";
import { account, client, control, fastAccounts, OPEN, raw, start, until } from "./helpers";

const SLOW = "svc_test_slow_key_0001";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start({ accounts: fastAccounts([account(SLOW, { rate_limit_per_second: 5 })]) });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const hedge = async (id: string) => hedgeSchema.parse((await raw(sb, "GET", `/hedges/${id}`)).json.data);
const openOne = async (body: unknown = OPEN) => openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body })).json.data);

describe("control API", () => {
  test("GET /_sandbox/health, /faults, /clock, /state, /accounts", async () => {
    const health = await control(sb, "GET", "/health");
    expect(health.json.data).toMatchObject({ status: "ok", base_url: sb.baseUrl });
    expect((await control(sb, "GET", "/faults")).json.data).toEqual({
      fail_next: [],
      latency_ms: 0,
      latency_path: null,
      drop_after_commit: 0,
      rate_limit_next: 0,
      retry_after_seconds: 1,
      stall_fills: false,
      price_unavailable: false,
      fill_ms: 20,
      fail_rate: 0,
    });
    const clock = (await control(sb, "GET", "/clock")).json.data as { now: string; now_ms: number; offset_ms: number };
    expect(clock.offset_ms).toBe(0);
    expect(Math.abs(clock.now_ms - Date.now())).toBeLessThan(1000);
    const state = (await control(sb, "GET", "/state")).json.data as { accounts: Array<{ api_key: string; balance_usdc: number }> };
    expect(state.accounts.find((a) => a.api_key === DEMO_API_KEY)?.balance_usdc).toBe(250_000);
    const accounts = (await control(sb, "GET", "/accounts")).json.data as Array<{ api_key: string; environment: string }>;
    expect(accounts.map((a) => a.environment)).toContain("production");
  });

  test("POST /_sandbox/clock moves time forward only; bad bodies are validation errors", async () => {
    const moved = await control(sb, "POST", "/clock", { advance_days: 1, advance_hours: 2 });
    expect(moved.json.data).toMatchObject({ offset_ms: 26 * 3_600_000, advanced_ms: 26 * 3_600_000 });
    for (const bad of [{}, { advance_ms: -1 }, { advance_weeks: 1 }, { advance_ms: "10" }]) {
      const r = await control(sb, "POST", "/clock", bad);
      expect(r.status).toBe(400);
      expect(r.json.error?.code).toBe("validation_error");
    }
    expect((await control(sb, "POST", "/reset")).json.data).toMatchObject({ status: "reset", offset_ms: 0 });
  });

  test("POST /_sandbox/accounts adds an account at run time; a duplicate is refused", async () => {
    const cfg = account("svc_test_runtime_key_0001", { balance_usdc: 1234 });
    expect((await control(sb, "POST", "/accounts", cfg)).status).toBe(201);
    expect(((await raw(sb, "GET", "/account", { key: cfg.api_key })).json.data as { balance_usdc: number }).balance_usdc).toBe(1234);
    expect((await control(sb, "POST", "/accounts", cfg)).status).toBe(409);
    expect((await control(sb, "POST", "/accounts", { ...cfg, api_key: "nope" })).json.error?.details?.fields).toEqual({
      api_key: expect.any(String),
    });
    // Reset goes back to the accounts the sandbox started with.
    sb.reset();
    expect((await raw(sb, "GET", "/account", { key: cfg.api_key })).json.error?.code).toBe("invalid_api_key");
  });

  test("unknown control endpoints and bad fault bodies are envelopes; only loopback callers are served", async () => {
    expect((await control(sb, "GET", "/nope")).status).toBe(404);
    expect((await control(sb, "PUT", "/faults")).status).toBe(405);
    const bad = await control(sb, "POST", "/faults", { fail_next: { count: 0, code: "hedge_exists" }, surprise: true });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error?.details?.fields ?? {}).sort()).toEqual(["(root)", "fail_next.code", "fail_next.count"]);
    expect(isLoopbackAddress("127.0.0.1")).toBe(true);
    expect(isLoopbackAddress("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopbackAddress("::1")).toBe(true);
    expect(isLoopbackAddress("10.0.0.2")).toBe(false);
    expect(isLoopbackAddress(undefined)).toBe(false);
  });
});

describe("faults", () => {
  test("fail_next: the next N matching requests fail with the chosen code, others pass, then all pass", async () => {
    await control(sb, "POST", "/faults", { fail_next: { count: 2, code: "executor_unavailable", path: "/hedges", method: "POST" } });
    expect((await raw(sb, "GET", "/hedges")).status).toBe(200);
    expect((await raw(sb, "GET", "/markets")).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await raw(sb, "POST", "/hedges", { body: OPEN });
      expect([r.status, r.json.error?.code]).toEqual([503, "executor_unavailable"]);
    }
    expect((await raw(sb, "GET", "/hedges")).json.data).toEqual([]);
    expect((await raw(sb, "POST", "/hedges", { body: OPEN })).status).toBe(200);
    expect((await control(sb, "GET", "/faults")).json.data).toMatchObject({ fail_next: [] });
  });

  test("latency_ms delays answers (all, or one path)", async () => {
    // A delay far above what a loaded machine adds to a loopback request, so the test tells delayed from not.
    const LATENCY = 1_500;
    await control(sb, "POST", "/faults", { latency_ms: LATENCY, latency_path: "/markets" });
    let t = Date.now();
    await raw(sb, "GET", "/markets");
    expect(Date.now() - t).toBeGreaterThanOrEqual(LATENCY - 10);
    t = Date.now();
    await raw(sb, "GET", "/account");
    expect(Date.now() - t).toBeLessThan(LATENCY - 500);
    await control(sb, "POST", "/faults", { latency_path: null });
    t = Date.now();
    await raw(sb, "GET", "/account");
    expect(Date.now() - t).toBeGreaterThanOrEqual(LATENCY - 10);
  });

  test("rate_limit_next: forced 429 rate_limited with Retry-After, then normal service", async () => {
    await control(sb, "POST", "/faults", { rate_limit_next: 2, retry_after_seconds: 3 });
    for (let i = 0; i < 2; i++) {
      const r = await raw(sb, "GET", "/markets");
      expect([r.status, r.json.error?.code, r.headers.get("retry-after")]).toEqual([429, "rate_limited", "3"]);
    }
    expect((await raw(sb, "GET", "/markets")).status).toBe(200);
  });

  test("stall_fills: orders stay submitted; on resume they fill at the resume time", async () => {
    await control(sb, "POST", "/faults", { stall_fills: true });
    const opened = await openOne();
    await new Promise((r) => setTimeout(r, 120));
    expect((await hedge(opened.hedge_id!)).status).toBe("submitted");
    sb.clock.advance(3_600_000);
    expect((await hedge(opened.hedge_id!)).status).toBe("submitted");
    const resumedAt = sb.clock.now();
    await control(sb, "POST", "/faults", { stall_fills: false });
    const filled = await hedge(opened.hedge_id!);
    expect(filled.status).toBe("filled");
    expect(Date.parse(filled.filled_at!)).toBeGreaterThanOrEqual(resumedAt);
  });

  test("price_unavailable: 503 on prices, quotes and trades; markets show halted; marks freeze; fills wait", async () => {
    const opened = await openOne();
    await until(async () => (await hedge(opened.hedge_id!)).status === "filled" || undefined);
    await control(sb, "POST", "/faults", { price_unavailable: true });
    for (const [method, path, body] of [
      ["GET", "/prices?market=USDTNGN", undefined],
      ["POST", "/quotes", OPEN],
      ["POST", "/hedges", { ...OPEN, side: "sell" }],
      ["POST", "/hedges/add", { market: "USDTNGN", side: "buy", additional_notional_usd: 1 }],
      ["POST", "/hedges/decrease", { market: "USDTNGN", side: "buy", reduce_notional_usd: 1 }],
      ["POST", "/hedges/close", { market: "USDTNGN", side: "buy" }],
    ] as const) {
      const r = await raw(sb, method, path, { body });
      expect([path, r.status, r.json.error?.code]).toEqual([path, 503, "price_unavailable"]);
    }
    const markets = z.array(marketSchema).parse((await raw(sb, "GET", "/markets")).json.data);
    expect(markets[0].status).toBe("halted");
    const mark = ((await raw(sb, "GET", "/positions")).json.data as Array<{ mark_price: number }>)[0].mark_price;
    sb.clock.advance(6 * 3_600_000);
    expect(((await raw(sb, "GET", "/positions")).json.data as Array<{ mark_price: number }>)[0].mark_price).toBe(mark);
    await control(sb, "POST", "/faults", { price_unavailable: false });
    expect((await raw(sb, "GET", "/prices")).status).toBe(200);
    expect(z.array(marketSchema).parse((await raw(sb, "GET", "/markets")).json.data)[0].status).toBe("open");
  });

  test("fail_rate and fill_ms at run time: a failed open releases its collateral and frees the side", async () => {
    // A minute of sandbox time to the fill, which the test moves on itself: a busy machine cannot let it happen early.
    await control(sb, "POST", "/faults", { fail_rate: 1, fill_ms: 60_000 });
    const opened = await openOne();
    expect(((await raw(sb, "GET", "/account")).json.data as { balance_usdc: number }).balance_usdc).toBe(239_900);
    expect((await hedge(opened.hedge_id!)).status).not.toBe("failed");
    sb.clock.advance(60_000);
    const failed = await until(async () => {
      const h = await hedge(opened.hedge_id!);
      return h.status === "failed" ? h : undefined;
    });
    // A failed open never filled: the fields present once filled are absent (not null).
    for (const field of ["fill_tx_hash", "struck_rate", "units", "filled_at"]) expect([field, field in failed]).toEqual([field, false]);
    expect(((await raw(sb, "GET", "/account")).json.data as { balance_usdc: number }).balance_usdc).toBe(250_000);
    expect((await raw(sb, "GET", "/hedges?status=failed")).json.data).toHaveLength(1);
    expect((await raw(sb, "GET", "/hedges/history")).json.data).toEqual([]);
    await control(sb, "POST", "/faults", { fail_rate: 0 });
    const again = await openOne();
    sb.clock.advance(60_000);
    await until(async () => (await hedge(again.hedge_id!)).status === "filled" || undefined);
  });

  test("DELETE /_sandbox/faults clears request faults and resumes fills and prices", async () => {
    await control(sb, "POST", "/faults", {
      latency_ms: 50,
      drop_after_commit: 3,
      rate_limit_next: 4,
      stall_fills: true,
      price_unavailable: true,
      fail_next: { count: 9 },
    });
    const cleared = (await control(sb, "DELETE", "/faults")).json.data;
    expect(cleared).toMatchObject({
      fail_next: [],
      latency_ms: 0,
      drop_after_commit: 0,
      rate_limit_next: 0,
      stall_fills: false,
      price_unavailable: false,
    });
    expect((await raw(sb, "GET", "/prices")).status).toBe(200);
  });

  test("faults can be switched on at start", async () => {
    const faulty = await start({ faults: { price_unavailable: true, fail_next: { count: 1, code: "onchain_read_failed" } } });
    try {
      expect((await raw(faulty, "GET", "/account")).json.error?.code).toBe("onchain_read_failed");
      expect((await raw(faulty, "GET", "/prices")).json.error?.code).toBe("price_unavailable");
    } finally {
      await faulty.close();
    }
  });
});

describe("rate limiting per API key", () => {
  test("beyond the account's rate: 429 rate_limited with Retry-After; other keys are not affected", async () => {
    // The sandbox's time stands still during the burst (a busy machine would otherwise refill the bucket meanwhile).
    let now = Date.now();
    const frozen = await start({ accounts: fastAccounts([account(SLOW, { rate_limit_per_second: 5 })]), realNow: () => now });
    try {
      await burstAgainst(frozen, () => (now += 1_000));
    } finally {
      await frozen.close();
    }
  });

  async function burstAgainst(sb: RunningSandbox, aSecondLater: () => void): Promise<void> {
    const answers = await Promise.all(Array.from({ length: 8 }, () => raw(sb, "GET", "/markets", { key: SLOW })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.json.error?.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await raw(sb, "GET", "/markets")).status).toBe(200);
    aSecondLater();
    expect((await raw(sb, "GET", "/markets", { key: SLOW })).status).toBe(200);
  }

  test("the real client honours Retry-After and gets through", async () => {
    await control(sb, "POST", "/faults", { rate_limit_next: 1, retry_after_seconds: 1 });
    const c = client(sb);
    const t = Date.now();
    const result = await c.markets();
    expect(result.data[0].market).toBe("USDTNGN");
    expect(Date.now() - t).toBeGreaterThanOrEqual(950);
    await control(sb, "POST", "/faults", { rate_limit_next: 10 });
    const impatient = client(sb, DEMO_API_KEY, { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 } });
    await expect(impatient.account()).rejects.toMatchObject({ code: "rate_limited", status: 429 });
    await expect(impatient.account()).rejects.toBeInstanceOf(HedgingApiError);
  });
});

describe("CORS", () => {
  test("preflight from the add-in's origin allows the API's headers; answers expose Retry-After", async () => {
    const pre = await fetch(`${sb.baseUrl}/hedges`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://localhost:3000",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type,idempotency-key",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://localhost:3000");
    expect(pre.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type, Idempotency-Key, X-Service-Mode");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const r = await raw(sb, "GET", "/markets", { headers: { Origin: "https://localhost:3000" } });
    expect(r.headers.get("access-control-allow-origin")).toBe("https://localhost:3000");
    expect(r.headers.get("access-control-expose-headers")).toContain("Retry-After");
    const foreign = await raw(sb, "GET", "/markets", { headers: { Origin: "https://evil.example" } });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const other = await start({ allowedOrigins: ["https://excel.example"] });
    try {
      expect(
        (await raw(other, "GET", "/markets", { headers: { Origin: "https://excel.example" } })).headers.get("access-control-allow-origin"),
      ).toBe("https://excel.example");
    } finally {
      await other.close();
    }
  });
});
