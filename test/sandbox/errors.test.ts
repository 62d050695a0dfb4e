// Every error code of the spec that the sandbox can produce, under the spec's condition, with its HTTP status and envelope.
import fc from "fast-check";
import { SERVICE_ERROR_STATUS } from "../../src/api/errors";
import { openHedgeResultSchema } from "../../src/api/schemas";
import { DEMO_API_KEY, DEMO_READONLY_API_KEY, DEMO_REVOKED_API_KEY, DEMO_UNCONFIGURED_API_KEY } from "../../src/sandbox/demo";
import { ROUTING_ERROR_STATUS, type SandboxErrorCode } from "../../src/sandbox/http-io";
import { DEFAULT_MARKETS } from "../../src/sandbox/pricing";
import type { RunningSandbox } from "../../src/sandbox/server";
import { account, fastAccounts, OPEN, raw, start, until, type RawResponse } from "./helpers";
import { answerRecorder, errorCodes, mismatches, servedDocument } from "./openapi-check";

const POOR = "svc_test_poor_key_0001";
const CAPPED = "svc_test_capped_key_0001";
const NO_MARKETS = "svc_test_nomarkets_key_0001";
const NO_SCOPES = "svc_test_noscopes_key_0001";

let sb: RunningSandbox;
const recorder = answerRecorder();
beforeAll(async () => {
  sb = await start({
    ...recorder.options,
    accounts: fastAccounts([
      account(POOR, { balance_usdc: 1_000 }),
      account(CAPPED, { max_exposure_usd: 50_000 }),
      account(NO_MARKETS, { allowed_markets: [] }),
      account(NO_SCOPES, { scopes: [] }),
    ]),
  });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const STATUS: Record<SandboxErrorCode, number> = { ...SERVICE_ERROR_STATUS, ...ROUTING_ERROR_STATUS };

function expectError(r: RawResponse, code: SandboxErrorCode, status: number = STATUS[code]) {
  expect({ status: r.status, code: r.json.error?.code }).toEqual({ status, code });
  expect(r.json.data).toBeNull();
  expect(typeof r.json.error?.message).toBe("string");
  expect(r.json.meta).toEqual(expect.any(Object));
  expect(r.text).not.toMatch(/at .*\.ts:\d+/); // no stack trace
}

const body = (side: "buy" | "sell" = "buy") => ({ market: "USDTNGN", side });

describe("400", () => {
  test("validation_error: missing and wrong fields, each named in details.fields", async () => {
    const r = await raw(sb, "POST", "/hedges", { body: { market: "USDTNGN", side: "long", notional_usd: "100", tenor_days: 2 } });
    expectError(r, "validation_error");
    expect(r.json.error?.details?.fields).toEqual({
      side: "must be buy or sell",
      notional_usd: expect.any(String),
      tenor_days: "must be one of 1, 3, 7",
    });

    const missing = await raw(sb, "POST", "/quotes", { body: {} });
    expectError(missing, "validation_error");
    expect(missing.json.error?.details?.fields).toEqual({
      market: "is required",
      side: "is required",
      notional_usd: "is required",
      tenor_days: "is required",
    });

    for (const [path, b, field] of [
      ["/hedges", { ...OPEN, notional_usd: 0 }, "notional_usd"],
      ["/hedges", { ...OPEN, notional_usd: -5 }, "notional_usd"],
      ["/hedges", { ...OPEN, notional_usd: 0.001 }, "notional_usd"],
      ["/hedges", { ...OPEN, client_reference: "x".repeat(129) }, "client_reference"],
      ["/hedges/add", { ...body(), additional_notional_usd: 0 }, "additional_notional_usd"],
      ["/hedges/decrease", { ...body() }, "reduce_notional_usd"],
      ["/hedges/close", { market: "USDTNGN" }, "side"],
      ["/hedges/hdg_x/add", {}, "additional_notional_usd"],
    ] as const) {
      const res = await raw(sb, "POST", path, { body: b });
      expectError(res, "validation_error");
      expect(Object.keys(res.json.error?.details?.fields ?? {})).toEqual([field]);
    }
  });

  test("validation_error: malformed JSON, a non-object body, an empty body", async () => {
    for (const rawBody of ["{not json", "[1,2]", "42", "", "null"]) {
      const r = await raw(sb, "POST", "/hedges", { rawBody, headers: { "Content-Type": "application/json" } });
      expectError(r, "validation_error");
      expect(r.json.error?.details?.fields).toEqual({ "(root)": expect.any(String) });
    }
  });

  test("market_not_allowed: a market the account may not trade (quote, open, add, decrease, close)", async () => {
    const other = { market: "USDTGHS", side: "buy", notional_usd: 1_000, tenor_days: 1 };
    expectError(await raw(sb, "POST", "/quotes", { body: other }), "market_not_allowed");
    expectError(await raw(sb, "POST", "/hedges", { body: other }), "market_not_allowed");
    expectError(await raw(sb, "POST", "/hedges", { body: OPEN, key: NO_MARKETS }), "market_not_allowed");
    expectError(
      await raw(sb, "POST", "/hedges/add", { body: { market: "USDTGHS", side: "buy", additional_notional_usd: 1 } }),
      "market_not_allowed",
    );
    expectError(
      await raw(sb, "POST", "/hedges/decrease", { body: { market: "USDTGHS", side: "buy", reduce_notional_usd: 1 } }),
      "market_not_allowed",
    );
    expectError(await raw(sb, "POST", "/hedges/close", { body: { market: "USDTGHS", side: "buy" } }), "market_not_allowed");
    const markets = await raw(sb, "GET", "/markets", { key: NO_MARKETS });
    expect(markets.json.meta.allowed_markets).toEqual([]);
  });

  test("exposure_exceeded: account cap, with details.available_headroom_usd", async () => {
    const r = await raw(sb, "POST", "/hedges", { key: CAPPED, body: { ...OPEN, notional_usd: 60_000 } });
    expectError(r, "exposure_exceeded");
    expect(r.json.error?.details).toMatchObject({ available_headroom_usd: 50_000, limit: "max_exposure" });
    expect((await raw(sb, "POST", "/hedges", { key: CAPPED, body: { ...OPEN, notional_usd: 30_000 } })).status).toBe(200);
    const add = await raw(sb, "POST", "/hedges/add", { key: CAPPED, body: { ...body(), additional_notional_usd: 30_000 } });
    expectError(add, "exposure_exceeded");
    expect(add.json.error?.details?.available_headroom_usd).toBe(20_000);
    const account = await raw(sb, "GET", "/account", { key: CAPPED });
    expect(account.json.data).toMatchObject({ exposure_usd: 30_000, available_exposure_usd: 20_000 });
  });

  test("exposure_exceeded: per-hedge limit and market headroom bound available_capacity_usd", async () => {
    const big = await raw(sb, "POST", "/hedges", { body: { ...OPEN, notional_usd: 1_000_001 } });
    expectError(big, "exposure_exceeded");
    expect(big.json.error?.details).toMatchObject({ available_headroom_usd: 1_000_000, limit: "per_hedge_limit" });

    const small = await start({ markets: [{ ...DEFAULT_MARKETS[0], headroom_usd: 150_000 }] });
    try {
      expect((await raw(small, "POST", "/hedges", { body: OPEN })).status).toBe(200);
      const markets = await raw(small, "GET", "/markets", { key: "svc_test_demo_sandbox_key_0002" });
      expect((markets.json.data as Array<{ available_capacity_usd: unknown }>)[0].available_capacity_usd).toEqual({
        buy: 50_000,
        sell: 150_000,
      });
      const r = await raw(small, "POST", "/hedges", { key: "svc_test_demo_sandbox_key_0002", body: OPEN });
      expectError(r, "exposure_exceeded");
      expect(r.json.error?.details).toMatchObject({ available_headroom_usd: 50_000, limit: "market_headroom" });
      // Production's headroom is separate.
      expect((await raw(small, "POST", "/hedges", { key: "svc_live_demo_sandbox_key_0001", body: OPEN })).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  test("insufficient_collateral: the free balance cannot cover margin plus fees", async () => {
    const r = await raw(sb, "POST", "/hedges", { key: POOR, body: { ...OPEN, notional_usd: 10_000 } });
    expectError(r, "insufficient_collateral");
    expect(r.json.error?.details).toEqual({ required_usdc: 1_010, balance_usdc: 1_000 });
    expect((await raw(sb, "POST", "/hedges", { key: POOR, body: { ...OPEN, notional_usd: 9_000 } })).status).toBe(200);
    expectError(
      await raw(sb, "POST", "/hedges/add", { key: POOR, body: { ...body(), additional_notional_usd: 1_000 } }),
      "insufficient_collateral",
    );
  });

  test("hedge_not_open: add by id to a closed, failed or closing hedge", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    await raw(sb, "POST", "/hedges/close", { body: body() });
    const closing = await raw(sb, "POST", `/hedges/${open.hedge_id}/add`, { body: { additional_notional_usd: 1_000 } });
    expectError(closing, "hedge_not_open");
    await until(
      async () => ((await raw(sb, "GET", `/hedges/${open.hedge_id}`)).json.data as { status: string }).status === "closed" || undefined,
    );
    const closed = await raw(sb, "POST", `/hedges/${open.hedge_id}/add`, { body: { additional_notional_usd: 1_000 } });
    expectError(closed, "hedge_not_open");
    expect(closed.json.error?.details).toMatchObject({ status: "closed" });

    sb.faults.apply({ fail_rate: 1 });
    const doomed = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    await until(
      async () => ((await raw(sb, "GET", `/hedges/${doomed.hedge_id}`)).json.data as { status: string }).status === "failed" || undefined,
    );
    expectError(await raw(sb, "POST", `/hedges/${doomed.hedge_id}/add`, { body: { additional_notional_usd: 1_000 } }), "hedge_not_open");
  });

  test("account_not_configured: trading from an account without an on-chain address", async () => {
    const key = DEMO_UNCONFIGURED_API_KEY;
    expectError(await raw(sb, "POST", "/hedges", { key, body: OPEN }), "account_not_configured");
    expectError(await raw(sb, "POST", "/hedges/add", { key, body: { ...body(), additional_notional_usd: 1 } }), "account_not_configured");
    expectError(await raw(sb, "POST", "/hedges/decrease", { key, body: { ...body(), reduce_notional_usd: 1 } }), "account_not_configured");
    expectError(await raw(sb, "POST", "/hedges/close", { key, body: body() }), "account_not_configured");
    expectError(await raw(sb, "POST", "/hedges/hdg_x/add", { key, body: { additional_notional_usd: 1 } }), "account_not_configured");
    // Reads work; the summary shows the missing address.
    const acct = await raw(sb, "GET", "/account", { key });
    expect(acct.status).toBe(200);
    expect((acct.json.data as { account_address: unknown }).account_address).toBeNull();
    expect((await raw(sb, "POST", "/quotes", { key, body: OPEN })).status).toBe(200);
  });
});

describe("401 and 403", () => {
  test("missing_credentials without an Authorization header, on every endpoint", async () => {
    for (const [method, path] of [
      ["GET", "/markets"],
      ["GET", "/prices"],
      ["GET", "/account"],
      ["GET", "/positions"],
      ["POST", "/quotes"],
      ["POST", "/hedges"],
      ["POST", "/hedges/add"],
      ["POST", "/hedges/hdg_1/add"],
      ["POST", "/hedges/decrease"],
      ["POST", "/hedges/close"],
      ["GET", "/hedges"],
      ["GET", "/hedges/hdg_1"],
      ["GET", "/hedges/history"],
    ]) {
      const r = await raw(sb, method, path, { key: null, body: method === "POST" ? {} : undefined });
      expectError(r, "missing_credentials");
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    expectError(await raw(sb, "GET", "/markets", { key: null, headers: { Authorization: "  " } }), "missing_credentials");
  });

  test("invalid_api_key: unknown, revoked, malformed, wrong prefix", async () => {
    expectError(await raw(sb, "GET", "/account", { key: "svc_test_unknown_0000" }), "invalid_api_key");
    expectError(await raw(sb, "GET", "/account", { key: DEMO_REVOKED_API_KEY }), "invalid_api_key");
    expectError(await raw(sb, "GET", "/account", { key: "sk_live_abc" }), "invalid_api_key");
    expectError(await raw(sb, "GET", "/account", { key: null, headers: { Authorization: `Basic ${DEMO_API_KEY}` } }), "invalid_api_key");
    expectError(
      await raw(sb, "GET", "/account", { key: null, headers: { Authorization: `Bearer ${DEMO_API_KEY} extra` } }),
      "invalid_api_key",
    );
    expect((await raw(sb, "GET", "/account", { key: null, headers: { Authorization: `bearer ${DEMO_API_KEY}` } })).status).toBe(200);
  });

  test("insufficient_scope: a read-only key trades; a key with no scopes reads", async () => {
    for (const [path, b] of [
      ["/hedges", OPEN],
      ["/hedges/add", { ...body(), additional_notional_usd: 1 }],
      ["/hedges/hdg_1/add", { additional_notional_usd: 1 }],
      ["/hedges/decrease", { ...body(), reduce_notional_usd: 1 }],
      ["/hedges/close", body()],
    ] as const) {
      const r = await raw(sb, "POST", path, { key: DEMO_READONLY_API_KEY, body: b });
      expectError(r, "insufficient_scope");
      expect(r.json.error?.details).toEqual({ required_scope: "trade" });
    }
    expect((await raw(sb, "POST", "/quotes", { key: DEMO_READONLY_API_KEY, body: OPEN })).status).toBe(200);
    expect((await raw(sb, "GET", "/positions", { key: DEMO_READONLY_API_KEY })).status).toBe(200);
    expectError(await raw(sb, "GET", "/markets", { key: NO_SCOPES }), "insufficient_scope");
  });

  test("account_forbidden: asking for another account", async () => {
    expectError(await raw(sb, "GET", "/account?account=0x0000000000000000000000000000000000000001"), "account_forbidden");
  });
});

describe("404 and 409", () => {
  test("hedge_not_found: get or add by id for an id that is not the caller's", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    expectError(await raw(sb, "GET", "/hedges/hdg_000000000000000000000000"), "hedge_not_found");
    expectError(
      await raw(sb, "POST", `/hedges/${open.hedge_id}/add`, {
        key: "svc_test_demo_sandbox_key_0002",
        body: { additional_notional_usd: 1 },
      }),
      "hedge_not_found",
    );
  });

  test("no_open_hedge: add, decrease or close with nothing open on the side", async () => {
    expectError(await raw(sb, "POST", "/hedges/add", { body: { ...body(), additional_notional_usd: 1_000 } }), "no_open_hedge");
    expectError(await raw(sb, "POST", "/hedges/decrease", { body: { ...body(), reduce_notional_usd: 1_000 } }), "no_open_hedge");
    expectError(await raw(sb, "POST", "/hedges/close", { body: body("sell") }), "no_open_hedge");
    await raw(sb, "POST", "/hedges", { body: OPEN });
    await raw(sb, "POST", "/hedges/close", { body: body() });
    // Once a close is queued there is nothing left to add to or close.
    expectError(await raw(sb, "POST", "/hedges/close", { body: body() }), "no_open_hedge");
    expectError(await raw(sb, "POST", "/hedges/add", { body: { ...body(), additional_notional_usd: 1_000 } }), "no_open_hedge");
  });

  test("hedge_exists: a second open on the same market and side, while the first is submitted or filled", async () => {
    sb.faults.apply({ stall_fills: true });
    const first = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    const r = await raw(sb, "POST", "/hedges", { body: { ...OPEN, tenor_days: 1 } });
    expectError(r, "hedge_exists");
    expect(r.json.error?.details).toEqual({ hedge_id: first.hedge_id });
    sb.faults.apply({ stall_fills: false });
    await until(
      async () => ((await raw(sb, "GET", `/hedges/${first.hedge_id}`)).json.data as { status: string }).status === "filled" || undefined,
    );
    expectError(await raw(sb, "POST", "/hedges", { body: OPEN }), "hedge_exists");
    // The other side and another account are free.
    expect((await raw(sb, "POST", "/hedges", { body: { ...OPEN, side: "sell" } })).status).toBe(200);
    expect((await raw(sb, "POST", "/hedges", { body: OPEN, key: "svc_test_demo_sandbox_key_0002" })).status).toBe(200);
  });
});

describe("409 idempotency and 429", () => {
  test("idempotency_key_reuse, idempotency_in_flight and rate_limited come in the envelope", async () => {
    const key = { "Idempotency-Key": "errors-409" };
    expect((await raw(sb, "POST", "/hedges/close", { body: body("sell"), headers: key })).status).toBe(404);
    expectError(await raw(sb, "POST", "/hedges/close", { body: body("buy"), headers: key }), "idempotency_key_reuse");
    sb.faults.apply({ latency_ms: 300 });
    const slow = { "Idempotency-Key": "errors-in-flight" };
    const [a, b] = await Promise.all([
      raw(sb, "POST", "/hedges/close", { body: body("sell"), headers: slow }),
      raw(sb, "POST", "/hedges/close", { body: body("sell"), headers: slow }),
    ]);
    sb.faults.apply({ latency_ms: 0 });
    expectError(a.status === 409 ? a : b, "idempotency_in_flight");
    sb.faults.apply({ rate_limit_next: 1 });
    const limited = await raw(sb, "GET", "/markets");
    expectError(limited, "rate_limited");
    expect(limited.headers.get("retry-after")).toBe("1");
  });
});

describe("5xx only from faults", () => {
  test.each(Object.entries(SERVICE_ERROR_STATUS).filter(([, s]) => s >= 500))("%s (%d) can be injected", async (code, status) => {
    await raw(sb, "POST", `${sb.controlUrl}/faults`, { key: null, body: { fail_next: { count: 1, code } } });
    const r = await raw(sb, "GET", "/markets");
    expectError(r, code as keyof typeof SERVICE_ERROR_STATUS, status);
    expect((await raw(sb, "GET", "/markets")).status).toBe(200);
  });

  test("price_unavailable arises on its own while the price feed is down", async () => {
    sb.faults.apply({ price_unavailable: true });
    expectError(await raw(sb, "GET", "/prices?market=USDTNGN"), "price_unavailable");
    expectError(await raw(sb, "POST", "/quotes", { body: OPEN }), "price_unavailable");
    expectError(await raw(sb, "POST", "/hedges", { body: OPEN }), "price_unavailable");
  });
});

describe("the envelope, whatever comes in", () => {
  test("unknown paths are 404 not_found and wrong methods 405 method_not_allowed, both in the envelope", async () => {
    const unknown = await raw(sb, "GET", "/nope");
    expectError(unknown, "not_found");
    expect(unknown.json.error?.details).toEqual({ path: "/v2/nope" });
    expectError(await raw(sb, "GET", `${sb.baseUrl.replace(/\/v2$/, "")}/v1/markets`), "not_found");
    expectError(await raw(sb, "GET", `${sb.baseUrl.replace(/\/v2$/, "")}/`), "not_found");
    expectError(await raw(sb, "GET", "/hedges/a/b/c"), "not_found");
    expectError(await raw(sb, "POST", "/nope", { body: OPEN }), "not_found");
    const wrong = await raw(sb, "DELETE", "/hedges");
    expectError(wrong, "method_not_allowed");
    expect(wrong.headers.get("allow")).toBe("GET, POST");
    expect(wrong.json.error?.details).toEqual({ method: "DELETE", allowed: ["GET", "POST"] });
    expectError(await raw(sb, "GET", "/hedges/add"), "method_not_allowed");
    expectError(await raw(sb, "POST", "/markets", { body: {} }), "method_not_allowed");
    expectError(await raw(sb, "POST", "/hedges/history", { body: {} }), "method_not_allowed");
    expectError(await raw(sb, "PUT", `${sb.controlUrl}/faults`, { key: null }), "method_not_allowed");
    expectError(await raw(sb, "GET", `${sb.controlUrl}/nope`, { key: null }), "not_found");
    expect((await raw(sb, "GET", "/markets/")).status).toBe(200);
  });

  test("a body over 64 KiB is refused with 413 validation_error", async () => {
    const r = await raw(sb, "POST", "/hedges", { body: { ...OPEN, client_reference: "x".repeat(70_000) } });
    expectError(r, "validation_error", 413);
    expect((await raw(sb, "GET", "/markets")).status).toBe(200);
  });

  test("random methods, paths, headers and bodies never get a 5xx, a stack trace or a non-envelope", async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        "hedges",
        "add",
        "close",
        "decrease",
        "history",
        "markets",
        "prices",
        "quotes",
        "account",
        "positions",
        "%zz",
        "..",
        "hdg_1",
      ),
      fc.string({ maxLength: 8 }).map(encodeURIComponent),
    );
    const json = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            market: fc.oneof(fc.constant("USDTNGN"), fc.string()),
            side: fc.oneof(fc.constantFrom("buy", "sell"), fc.anything()),
            notional_usd: fc.oneof(fc.double(), fc.integer(), fc.string()),
            tenor_days: fc.oneof(fc.constantFrom(1, 3, 7), fc.integer()),
            additional_notional_usd: fc.double(),
            reduce_notional_usd: fc.double(),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
        fc.array(segment, { minLength: 0, maxLength: 4 }),
        fc.option(fc.string({ maxLength: 12 }).map(encodeURIComponent)),
        json,
        fc.constantFrom(DEMO_API_KEY, DEMO_READONLY_API_KEY, "svc_test_nobody", null),
        fc.option(fc.string({ minLength: 0, maxLength: 300 })),
        async (method, segments, query, text, key, idem) => {
          const path = `/${segments.join("/")}${query ? `?limit=${query}&status=${query}&from=${query}` : ""}`;
          const headers: Record<string, string> = {};
          if (idem !== null && /^[\x21-\x7e]*$/.test(idem)) headers["Idempotency-Key"] = idem;
          const r = await raw(sb, method, path, { key, rawBody: method === "GET" ? undefined : text, headers });
          expect(r.status).toBeLessThan(500);
          expect(Object.keys(r.json).sort()).toEqual(["data", "error", "meta"]);
          expect(r.status < 300 ? r.json.error : r.json.data).toBeNull();
          expect(r.text).not.toMatch(/\n\s+at /);
        },
      ),
      { numRuns: 150 },
    );
  });
});

// Last in this file: every answer the tests above got (error answers of every kind), checked against the served document.
test("every /v2 answer of these tests matches the OpenAPI document served at GET /v2/openapi.json", async () => {
  const doc = await servedDocument(sb);
  expect(mismatches(doc, recorder.answers)).toEqual([]);
  // The tests above got every error code of the spec, and the sandbox's routing codes, so each was checked.
  expect([...errorCodes(recorder.answers)].sort()).toEqual(
    [...Object.keys(SERVICE_ERROR_STATUS), ...Object.keys(ROUTING_ERROR_STATUS)].sort(),
  );
});
