// The client over real HTTP against a scripted server: headers, envelopes, error codes, retries, idempotency, flow control.
import { getEventListeners } from "node:events";
import * as z from "zod/mini";
import { HedgingClient, type ClientOptions } from "../../src/api/client";
import { ERROR_CODES, HedgingApiError, SERVICE_ERROR_STATUS } from "../../src/api/errors";
import { parseRetryAfter, RequestSender } from "../../src/api/sender";
import { fail, ok, startScriptedServer, type ScriptedServer } from "../support/scripted-server";
import * as ex from "../support/examples";

const KEY = "svc_test_0123456789abcdefWXYZ";
let server: ScriptedServer;

beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

/**
 * A server script that holds each answer until `cap` requests are in flight together (or all `total` have come), so
 * that a concurrency test sees the cap reached however slowly a busy machine sends; `peak` is the most seen at once.
 */
function heldUntilCap(cap: number, total: number) {
  let inFlight = 0;
  let received = 0;
  /** How many times the cap was reached: a request waits for the next time after it came. */
  let openings = 0;
  const gate = {
    peak: 0,
    script: async () => {
      inFlight++;
      received++;
      gate.peak = Math.max(gate.peak, inFlight);
      if (inFlight >= cap) openings++;
      const cameAt = inFlight >= cap ? openings - 1 : openings;
      while (openings === cameAt && received < total) await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return ok(ex.quote);
    },
  };
  return gate;
}

function client(options: Partial<ClientOptions> = {}): HedgingClient {
  return new HedgingClient({
    apiKey: KEY,
    baseUrl: server.baseUrl,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ratePerSecond: 1000,
    burst: 1000,
    ...options,
  });
}

async function caught(promise: Promise<unknown>): Promise<HedgingApiError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof HedgingApiError) return e;
    throw e;
  }
  throw new Error("expected the call to fail");
}

const pathOf = (url: string) => url.split("?")[0];

describe("requests", () => {
  test("every method calls its endpoint with the bearer key and JSON headers", async () => {
    const answers: Record<string, unknown> = {
      "GET /v2/markets": [ex.market],
      "GET /v2/prices": ex.prices,
      "GET /v2/account": ex.account,
      "GET /v2/positions": [ex.position],
      "POST /v2/quotes": ex.quote,
      "POST /v2/hedges": ex.openResult,
      "POST /v2/hedges/add": ex.addResult,
      "POST /v2/hedges/hdg_01/add": ex.addResult,
      "POST /v2/hedges/decrease": ex.decreaseResult,
      "POST /v2/hedges/close": ex.closeResult,
      "GET /v2/hedges": [ex.hedge],
      "GET /v2/hedges/hdg_01": ex.hedge,
      "GET /v2/hedges/history": [ex.closedHedge],
    };
    server.setScript((r) => ok(answers[`${r.method} ${pathOf(r.url)}`] ?? null));
    const c = client();
    await c.markets();
    await c.prices("USDTNGN");
    await c.account();
    await c.positions();
    await c.quote({ market: "USDTNGN", side: "buy", notional_usd: 10000, tenor_days: 7 });
    await c.open({ market: "USDTNGN", side: "buy", notional_usd: 10000, tenor_days: 7, client_reference: "DEAL-1" });
    await c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 5000 });
    await c.addById("hdg_01", { additional_notional_usd: 5000 });
    await c.decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 5000 });
    await c.close({ market: "USDTNGN", side: "buy" });
    await c.list({ status: "filled", client_reference: "DEAL-1", limit: 500 });
    await c.get("hdg_01");
    await c.history({ from: "2026-11-01T00:00:00Z", to: "2026-12-01T00:00:00Z", limit: 50 });

    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /v2/markets",
      "GET /v2/prices?market=USDTNGN",
      "GET /v2/account",
      "GET /v2/positions",
      "POST /v2/quotes",
      "POST /v2/hedges",
      "POST /v2/hedges/add",
      "POST /v2/hedges/hdg_01/add",
      "POST /v2/hedges/decrease",
      "POST /v2/hedges/close",
      "GET /v2/hedges?status=filled&client_reference=DEAL-1&limit=500",
      "GET /v2/hedges/hdg_01",
      "GET /v2/hedges/history?from=2026-11-01T00%3A00%3A00Z&to=2026-12-01T00%3A00%3A00Z&limit=50",
    ]);
    for (const r of server.received) {
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.headers.accept).toBe("application/json");
      // A GET has no body, so no Content-Type (in a browser one would cost a CORS preflight per read).
      expect(r.headers["content-type"]).toBe(r.method === "POST" ? "application/json" : undefined);
    }
    expect(JSON.parse(server.received[5].body)).toEqual({
      market: "USDTNGN",
      side: "buy",
      notional_usd: 10000,
      tenor_days: 7,
      client_reference: "DEAL-1",
    });
    expect(JSON.parse(server.received[7].body)).toEqual({ additional_notional_usd: 5000 });
  });

  test("state-changing calls carry an Idempotency-Key; reads and quotes do not", async () => {
    server.setScript((r) => ok(r.url.endsWith("/hedges") ? ex.openResult : r.url.endsWith("/close") ? ex.closeResult : ex.quote));
    const c = client();
    await c.quote({ market: "USDTNGN", side: "buy", notional_usd: 1, tenor_days: 1 });
    const opened = await c.open({ market: "USDTNGN", side: "buy", notional_usd: 1, tenor_days: 1, client_reference: "D" });
    const closed = await c.close({ market: "USDTNGN", side: "buy" }, { idempotencyKey: "close-DEAL-1" });
    expect(server.received[0].headers["idempotency-key"]).toBeUndefined();
    expect(server.received[1].headers["idempotency-key"]).toBe(opened.idempotencyKey);
    expect(opened.idempotencyKey).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(server.received[2].headers["idempotency-key"]).toBe("close-DEAL-1");
    expect(closed.idempotencyKey).toBe("close-DEAL-1");
  });

  test("a state-changing call with a blank Idempotency-Key is refused before anything is sent", async () => {
    server.setScript(() => ok(ex.addResult));
    const c = client();
    for (const key of ["", "   ", " k-1", "k-1\t"]) {
      const error = await caught(c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 5_000 }, { idempotencyKey: key }));
      expect(error.code).toBe("validation_error");
      expect(error.message).toMatch(/needs an Idempotency-Key and was given a blank one\. Nothing was sent\.$/);
    }
    expect(server.received).toHaveLength(0);
  });

  test("query fields left undefined are left out of the URL", async () => {
    server.setScript(() => ok([ex.hedge]));
    await client().list({ status: "filled", client_reference: undefined, limit: undefined });
    expect(server.received[0].url).toBe("/v2/hedges?status=filled");
  });

  test("the hedge list pages with starting_after (an assumption the sandbox follows)", async () => {
    server.setScript(() => ok([ex.hedge]));
    await client().list({ status: "filled", limit: 500, starting_after: "hdg_01" });
    expect(server.received[0].url).toBe("/v2/hedges?status=filled&limit=500&starting_after=hdg_01");
  });

  test("the envelope is unwrapped into data and meta", async () => {
    server.setScript(() => ok([ex.market], { allowed_markets: ["USDTNGN"], source: "live" }));
    const result = await client().markets();
    expect(result.data[0].available_capacity_usd.sell).toBe(800000);
    expect(result.meta).toEqual({ allowed_markets: ["USDTNGN"], source: "live" });
  });

  test("a bad request is refused before anything is sent, naming each field", async () => {
    const c = client();
    const error = await caught(c.quote({ market: "USDTNGN", side: "buy", notional_usd: -5, tenor_days: 5 as 7 }));
    expect(error.code).toBe("validation_error");
    expect(error.details).toEqual({ fields: { notional_usd: "must be greater than 0", tenor_days: "must be one of 1, 3, 7" } });
    expect(error.message).toContain("Nothing was sent");
    await expect(c.list({ limit: 501 })).rejects.toMatchObject({
      code: "validation_error",
      details: { fields: { limit: "must be at most 500" } },
    });
    await expect(c.get("  ")).rejects.toMatchObject({ code: "validation_error" });
    expect(server.received).toHaveLength(0);
  });
});

describe("what a refused call says, and the key and hedge id it sends", () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test.each<[string, (c: HedgingClient) => Promise<unknown>, string]>([
    [
      "quote",
      (c) => c.quote({ market: "USDTNGN", side: "buy", notional_usd: -5, tenor_days: 5 as 7 }),
      "Quote request: notional_usd must be greater than 0; tenor_days must be one of 1, 3, 7. Nothing was sent.",
    ],
    [
      "open",
      (c) => c.open({ market: "USDTNGN", side: "hold" as "buy", notional_usd: 0, tenor_days: 7, client_reference: "D" }),
      "Open request: side must be buy or sell; notional_usd must be greater than 0. Nothing was sent.",
    ],
    [
      "add",
      (c) => c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 0 }),
      "Add request: additional_notional_usd must be greater than 0. Nothing was sent.",
    ],
    [
      "addById",
      (c) => c.addById("hdg_01", { additional_notional_usd: -1 }),
      "Add request: additional_notional_usd must be greater than 0. Nothing was sent.",
    ],
    [
      "decrease",
      (c) => c.decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 0 }),
      "Reduce request: reduce_notional_usd must be greater than 0. Nothing was sent.",
    ],
    ["close", (c) => c.close({ market: "USDTNGN", side: "up" as "buy" }), "Close request: side must be buy or sell. Nothing was sent."],
    ["list", (c) => c.list({ limit: 501 }), "Hedge list query: limit must be at most 500. Nothing was sent."],
    ["history", (c) => c.history({ limit: 0 }), "History query: limit must be at least 1. Nothing was sent."],
  ])("a bad %s names the request and each field with its problem, and sends nothing", async (_name, call, message) => {
    const error = await caught(call(client()));
    expect([error.code, error.status, error.message]).toEqual(["validation_error", null, message]);
    expect(server.received).toHaveLength(0);
  });

  test("an Idempotency-Key that is not text (a number read from a cell) is refused, naming the header, before anything is sent", async () => {
    server.setScript(() => ok(ex.openResult));
    const c = client();
    for (const key of [42 as unknown as string, ""]) {
      const error = await caught(
        c.open({ market: "USDTNGN", side: "buy", notional_usd: 1, tenor_days: 7, client_reference: "D" }, { idempotencyKey: key }),
      );
      expect(error).toMatchObject({
        code: "validation_error",
        status: null,
        details: { fields: { "Idempotency-Key": "must be a non-blank key without surrounding spaces" } },
      });
      expect(error.message).toBe("POST /hedges needs an Idempotency-Key and was given a blank one. Nothing was sent.");
    }
    expect(server.received).toHaveLength(0);
  });

  test("a key the client makes is a random version 4 UUID, a new one per action", async () => {
    server.setScript(() => ok(ex.closeResult));
    const c = client();
    const first = await c.close({ market: "USDTNGN", side: "buy" });
    const second = await c.close({ market: "USDTNGN", side: "buy" });
    expect(first.idempotencyKey).toMatch(UUID_V4);
    expect(second.idempotencyKey).toMatch(UUID_V4);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
    expect(server.received.map((r) => r.headers["idempotency-key"])).toEqual([first.idempotencyKey, second.idempotencyKey]);
  });

  test("where the runtime has no crypto.randomUUID (an older webview), the key is still a random version 4 UUID", async () => {
    const real = globalThis.crypto;
    const withoutUuid = { getRandomValues: (a: Uint8Array) => real.getRandomValues(a) };
    Object.defineProperty(globalThis, "crypto", { value: withoutUuid, configurable: true, writable: true });
    try {
      server.setScript(() => ok(ex.closeResult));
      const c = client();
      const keys = [];
      for (let i = 0; i < 20; i++) keys.push((await c.close({ market: "USDTNGN", side: "buy" })).idempotencyKey);
      for (const key of keys) expect(key).toMatch(UUID_V4);
      expect(new Set(keys).size).toBe(20);
      expect(server.received.map((r) => r.headers["idempotency-key"])).toEqual(keys);
    } finally {
      Object.defineProperty(globalThis, "crypto", { value: real, configurable: true, writable: true });
    }
  });

  test("a hedge id is sent trimmed and escaped as one path segment; a missing or non-text one is refused, naming hedge_id", async () => {
    server.setScript((r) => ok(pathOf(r.url).endsWith("/add") ? ex.addResult : ex.hedge));
    const c = client();
    await c.get(" hdg_01 ");
    await c.addById(" hdg/01 ", { additional_notional_usd: 5000 });
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v2/hedges/hdg_01", "POST /v2/hedges/hdg%2F01/add"]);
    for (const id of [42 as unknown as string, undefined as unknown as string, "  "]) {
      for (const call of [() => c.get(id), () => c.addById(id, { additional_notional_usd: 5000 })]) {
        const error = await caught(call());
        expect([error.code, error.status, error.details, error.message]).toEqual([
          "validation_error",
          null,
          { fields: { hedge_id: "is required" } },
          "hedge_id is required. Nothing was sent.",
        ]);
      }
    }
    expect(server.received).toHaveLength(2);
  });

  test("polling() is one view, whose own polling() is itself: its reads are polls, one attempt each", async () => {
    server.setScript(() => fail(503, "service_unavailable"));
    const c = client();
    const view = c.polling();
    expect(c.polling()).toBe(view);
    expect(view.polling()).toBe(view);
    await expect(view.polling().markets()).rejects.toMatchObject({ code: "service_unavailable" });
    expect(server.received).toHaveLength(1);
  });
});

describe("errors", () => {
  const serviceCodes = Object.entries(SERVICE_ERROR_STATUS);

  test.each(serviceCodes)("%s (HTTP %i) becomes a HedgingApiError with that code, status and details", async (code, status) => {
    const details =
      code === "exposure_exceeded"
        ? { available_headroom_usd: 1234.5 }
        : code === "validation_error"
          ? { fields: { side: "must be buy or sell" } }
          : null;
    server.setScript(() => fail(status, code, `service says ${code}`, details));
    const error = await caught(client({ retry: { maxAttempts: 1 } }).account());
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.details).toEqual(details);
    expect(error.message).toBe(`service says ${code}`);
    expect(error.retryable).toBe(status >= 500 || status === 429 || code === "idempotency_in_flight");
  });

  test("the client's own codes are part of the code list", () => {
    expect(ERROR_CODES).toEqual(
      expect.arrayContaining(["network_error", "timeout", "invalid_response", ...Object.keys(SERVICE_ERROR_STATUS)]),
    );
  });

  test("a response missing a required field is invalid_response naming the path", async () => {
    const { upfront, ...rest } = ex.quote;
    server.setScript(() => ok({ ...rest, upfront: { required_margin_usdc: 1, platform_fee_usdc: 1 } }));
    const error = await caught(client().quote({ market: "USDTNGN", side: "buy", notional_usd: 1, tenor_days: 1 }));
    expect(error.code).toBe("invalid_response");
    expect(error.details?.path).toBe("data.upfront.total_upfront_usdc");
    expect(error.retryable).toBe(false);
    expect(upfront).toBeDefined();
  });

  test("a response with several wrong fields names each of them", async () => {
    server.setScript(() => ok({ ...ex.account, balance_usdc: true, account_address: 7 }));
    const error = await caught(client().account());
    const issues = (error.details?.issues ?? []) as Array<{ path: string; message: string }>;
    expect(issues.map((i) => i.path).sort()).toEqual(["data.account_address", "data.balance_usdc"]);
    for (const issue of issues) expect(issue.message).not.toBe("");
  });

  test("a response of the wrong type is invalid_response naming the path", async () => {
    server.setScript(() => ok({ ...ex.account, balance_usdc: true }));
    await expect(client().account()).rejects.toMatchObject({ code: "invalid_response", details: { path: "data.balance_usdc" } });
  });

  test("a 200 that is not JSON is invalid_response, not a crash", async () => {
    server.setScript(() => ({ status: 200, body: "<html>captive portal</html>" }));
    await expect(client().account()).rejects.toMatchObject({ code: "invalid_response", status: 200 });
  });

  test("a 502 page without the envelope is a retryable service_unavailable", async () => {
    server.setScript(() => ({ status: 502, body: "Bad Gateway" }));
    const error = await caught(client({ retry: { maxAttempts: 2, baseDelayMs: 1 } }).account());
    expect(error.code).toBe("service_unavailable");
    expect(error.retryable).toBe(true);
    expect(server.received).toHaveLength(2);
  });

  test("a refused connection is network_error", async () => {
    const port = new URL(server.baseUrl).port;
    await server.close();
    const c = new HedgingClient({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}/v2`, retry: { maxAttempts: 1 } });
    await expect(c.account()).rejects.toMatchObject({ code: "network_error", status: null });
    server = await startScriptedServer();
  });

  test("no answer within the per-attempt timeout is timeout", async () => {
    server.setScript(() => ({ ...ok(ex.account), delayMs: 400 }));
    const error = await caught(client({ timeoutMs: 100, retry: { maxAttempts: 2, baseDelayMs: 1 } }).account());
    expect(error.code).toBe("timeout");
    expect(error.message).toBe("GET /account got no answer within 100 ms.");
    expect(server.received).toHaveLength(2);
  });

  test("the API key never appears in an error message, even when the service echoes it", async () => {
    server.setScript(() => fail(401, "invalid_api_key", `Key ${KEY} is revoked`));
    const error = await caught(client().account());
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain("svc_test_…WXYZ");
    expect(JSON.stringify(error.toJSON())).not.toContain(KEY);
  });
});

describe("environment", () => {
  test("the key prefix picks the environment", () => {
    expect(client().environment).toBe("sandbox");
    expect(new HedgingClient({ apiKey: "svc_live_abcdefgh1234", baseUrl: server.baseUrl }).environment).toBe("production");
  });

  test("any other key is refused before a request is sent", async () => {
    expect(() => new HedgingClient({ apiKey: "sk_test_123", baseUrl: server.baseUrl })).toThrow(/svc_live_.*svc_test_/);
    expect(() => new HedgingClient({ apiKey: "svc_test_", baseUrl: server.baseUrl })).toThrow(HedgingApiError);
    expect(server.received).toHaveLength(0);
  });

  test("plain http is refused except on loopback", () => {
    expect(() => new HedgingClient({ apiKey: KEY, baseUrl: "http://hedging.example.com/v2" })).toThrow(/https/);
    expect(new HedgingClient({ apiKey: KEY, baseUrl: "https://hedging.example.com/v2/" }).baseUrl).toBe("https://hedging.example.com/v2");
  });

  test("the masked key shows only the prefix and the last four characters", () => {
    expect(client().maskedKey).toBe("svc_test_…WXYZ");
  });
});

describe("retries", () => {
  test("5xx then success: retried with the same Idempotency-Key, the action's result returned", async () => {
    server.setScript((_r, i) => (i < 2 ? fail(503, "executor_unavailable") : ok(ex.openResult)));
    const result = await client().open({ market: "USDTNGN", side: "buy", notional_usd: 10000, tenor_days: 7, client_reference: "DEAL-1" });
    expect(result.data.hedge_id).toBe("hdg_01");
    const keys = server.received.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(result.idempotencyKey);
    expect(new Set(server.received.map((r) => r.body)).size).toBe(1);
  });

  test("a dropped connection after the request is retried with the same key", async () => {
    server.setScript((_r, i) => (i === 0 ? { drop: true } : ok(ex.addResult)));
    const result = await client().add({ market: "USDTNGN", side: "buy", additional_notional_usd: 5000 }, { idempotencyKey: "add-1" });
    expect(result.data.new_notional_usd).toBe(15000);
    expect(server.received.map((r) => r.headers["idempotency-key"])).toEqual(["add-1", "add-1"]);
  });

  test("idempotency_in_flight is retried with the same key", async () => {
    server.setScript((_r, i) => (i === 0 ? fail(409, "idempotency_in_flight") : ok(ex.decreaseResult)));
    const result = await client().decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 5000 });
    expect(server.received).toHaveLength(2);
    expect(server.received[1].headers["idempotency-key"]).toBe(result.idempotencyKey);
  });

  test.each(["hedge_exists", "idempotency_key_reuse", "validation_error", "insufficient_collateral", "invalid_api_key", "no_open_hedge"])(
    "%s is returned at once, not retried",
    async (code) => {
      const status = SERVICE_ERROR_STATUS[code as keyof typeof SERVICE_ERROR_STATUS];
      server.setScript(() => fail(status, code));
      await expect(
        client().open({ market: "USDTNGN", side: "buy", notional_usd: 1, tenor_days: 1, client_reference: "D" }),
      ).rejects.toMatchObject({ code });
      expect(server.received).toHaveLength(1);
    },
  );

  test("attempts are bounded", async () => {
    server.setScript(() => fail(503, "service_unavailable"));
    await expect(client({ retry: { maxAttempts: 3, baseDelayMs: 1 } }).account()).rejects.toMatchObject({ code: "service_unavailable" });
    expect(server.received).toHaveLength(3);
  });

  test("Retry-After is honoured before the next attempt", async () => {
    const arrivals: number[] = [];
    server.setScript((_r, i) => {
      arrivals.push(Date.now());
      return i === 0 ? fail(429, "rate_limited", "slow down", null, { "Retry-After": "1" }) : ok(ex.account);
    });
    const result = await client({ random: () => 0 }).account();
    expect(result.data.balance_usdc).toBe(250000);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(950);
  });

  test("a Retry-After longer than the client will wait returns the error instead", async () => {
    server.setScript(() => fail(429, "rate_limited", "slow down", null, { "Retry-After": "3600" }));
    const error = await caught(client().account());
    expect(error.code).toBe("rate_limited");
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(server.received).toHaveLength(1);
  });

  test("backoff grows exponentially with full jitter, capped", async () => {
    const delays: number[] = [];
    server.setScript(() => fail(503, "service_unavailable"));
    const c = client({
      random: () => 1,
      sleep: async (ms) => {
        delays.push(ms);
      },
      retry: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000 },
    });
    await expect(c.account()).rejects.toMatchObject({ code: "service_unavailable" });
    expect(delays.filter((d) => d > 0)).toEqual([100, 200, 400, 800, 1000]);
  });
});

describe("flow control", () => {
  test("100 identical concurrent GETs share one request (single-flight)", async () => {
    server.setScript(() => ({ ...ok([ex.market], { allowed_markets: ["USDTNGN"] }), delayMs: 50 }));
    const c = client();
    const results = await Promise.all(Array.from({ length: 100 }, () => c.markets()));
    expect(server.received).toHaveLength(1);
    expect(results.every((r) => r.data[0].price === 1502.35)).toBe(true);
    await c.markets();
    expect(server.received).toHaveLength(2);
  });

  test("a caller that aborts a shared GET stops waiting; the others still get the answer", async () => {
    server.setScript(() => ({ ...ok(ex.account), delayMs: 100 }));
    const c = client();
    const controller = new AbortController();
    const first = c.account(controller.signal);
    const second = c.account();
    setTimeout(() => controller.abort(new Error("cell cancelled")), 20);
    await expect(first).rejects.toThrow("cell cancelled");
    await expect(second).resolves.toMatchObject({ data: { balance_usdc: 250000 } });
    expect(server.received).toHaveLength(1);
  });

  test("the token bucket holds a burst under its rate", async () => {
    const arrivals: number[] = [];
    server.setScript(() => {
      arrivals.push(Date.now());
      return ok(ex.quote);
    });
    const c = client({ ratePerSecond: 10, burst: 5 });
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 15 }, (_, i) => c.quote({ market: "USDTNGN", side: "buy", notional_usd: i + 1, tenor_days: 1 })),
    );
    expect(arrivals).toHaveLength(15);
    // 5 at once from the burst, then one every 100 ms: by time t at most burst + rate·t requests have left.
    const sent = (withinMs: number) => arrivals.filter((t) => t - started <= withinMs).length;
    expect(sent(50)).toBeLessThanOrEqual(5);
    expect(sent(550)).toBeLessThanOrEqual(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  test("a waiter takes a finished request's place: the cap holds while requests keep arriving", async () => {
    const gate = heldUntilCap(2, 20);
    server.setScript(gate.script);
    const c = client({ maxConcurrent: 2 });
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      calls.push(c.quote({ market: "USDTNGN", side: "buy", notional_usd: i + 1, tenor_days: 1 }));
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(calls);
    expect(gate.peak).toBe(2);
  });

  test("the concurrency cap bounds requests in flight", async () => {
    const gate = heldUntilCap(3, 12);
    server.setScript(gate.script);
    const c = client({ maxConcurrent: 3 });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => c.quote({ market: "USDTNGN", side: "sell", notional_usd: i + 1, tenor_days: 3 })),
    );
    expect(gate.peak).toBe(3);
  });

  test("requests in the last minute are counted, retries included", async () => {
    server.setScript((_r, i) => (i === 0 ? fail(503, "service_unavailable") : ok(ex.account)));
    const c = client();
    await c.account();
    await c.account();
    expect(c.requestsInLastMinute()).toBe(3);
  });
});

describe("retry policy per kind of call", () => {
  test("a poll (through polling()) is one attempt: retrying is left to the feed hub's backoff", async () => {
    server.setScript(() => fail(503, "service_unavailable"));
    const c = client();
    await expect(c.polling().account()).rejects.toMatchObject({ code: "service_unavailable" });
    expect(server.received).toHaveLength(1);
    await expect(c.polling().quote({ market: "USDTNGN", side: "buy", notional_usd: 1000, tenor_days: 7 })).rejects.toMatchObject({
      code: "service_unavailable",
    });
    expect(server.received).toHaveLength(2);
    // The same read as an action is retried.
    await expect(c.account()).rejects.toMatchObject({ code: "service_unavailable" });
    expect(server.received).toHaveLength(6);
    expect(c.requestsInLastMinute()).toBe(6); // one client, one count, whichever view sent them
  });

  test("a trade made through the polling view is still an action: retried with the same Idempotency-Key", async () => {
    server.setScript((_r, i) => (i === 0 ? fail(503, "executor_unavailable") : ok(ex.openResult)));
    const result = await client()
      .polling()
      .open({ market: "USDTNGN", side: "buy", notional_usd: 10000, tenor_days: 7, client_reference: "DEAL-1" });
    expect(server.received.map((r) => r.headers["idempotency-key"])).toEqual([result.idempotencyKey, result.idempotencyKey]);
  });
});

describe("cancelled callers", () => {
  /** A real wait that does not keep Jest alive after a cancelled call stopped waiting for it. */
  const unrefSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  /** A transport that never answers by itself: it records each request's signal and settles when told. */
  function heldTransport() {
    const requests: Array<{ url: string; signal: AbortSignal; answer: () => void }> = [];
    const waiting: Array<{ count: number; arrived: () => void }> = [];
    const transport: ClientOptions["transport"] = (request) =>
      new Promise((resolve, reject) => {
        request.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        requests.push({
          url: request.url,
          signal: request.signal,
          answer: () => resolve({ status: 200, header: () => null, body: JSON.stringify({ data: ex.account, error: null, meta: {} }) }),
        });
        for (const w of waiting.filter((w) => requests.length >= w.count)) w.arrived();
      });
    /** Resolves once `count` requests have reached the transport (however long a busy machine takes). */
    const arrived = (count: number) =>
      new Promise<void>((resolve) => (requests.length >= count ? resolve() : waiting.push({ count, arrived: resolve })));
    return { requests, transport, arrived };
  }
  /** A sleep that says when the sender starts waiting between attempts (a wait of a second or more), instead of a guessed delay. */
  function watchedSleep() {
    let started!: () => void;
    const waiting = new Promise<void>((resolve) => (started = resolve));
    const sleep = (ms: number) => {
      if (ms >= 1_000) started();
      return unrefSleep(ms);
    };
    return { sleep, waiting };
  }

  test("a shared GET keeps going while another caller waits for it, and is aborted when the last one leaves", async () => {
    const { requests, transport, arrived } = heldTransport();
    const c = client({ transport });
    const one = new AbortController();
    const two = new AbortController();
    const first = c.polling().account(one.signal);
    const second = c.polling().account(two.signal);
    await arrived(1);
    expect(requests).toHaveLength(1);
    one.abort(new Error("cell A cancelled"));
    await expect(first).rejects.toThrow("cell A cancelled");
    expect(requests[0].signal.aborted).toBe(false); // cell B still waits for it
    two.abort(new Error("cell B cancelled"));
    await expect(second).rejects.toThrow("cell B cancelled");
    expect(requests[0].signal.aborted).toBe(true);
    // The next caller gets a request of its own, not the aborted one.
    const third = c.polling().account();
    await arrived(2);
    expect(requests).toHaveLength(2);
    requests[1].answer();
    await expect(third).resolves.toMatchObject({ data: { balance_usdc: 250000 } });
  });

  test("a POST cancelled on its way rejects with the caller's reason, is never sent again, and the feeds are told it may have acted", async () => {
    const { requests, transport, arrived } = heldTransport();
    const c = client({ transport });
    const events: Array<{ path: string; idempotencyKey: string; ok: boolean }> = [];
    c.onTrade((e) => events.push(e));
    const controller = new AbortController();
    const open = c.open(
      { market: "USDTNGN", side: "buy", notional_usd: 10000, tenor_days: 7, client_reference: "DEAL-1" },
      { idempotencyKey: "open-cancelled", signal: controller.signal },
    );
    await arrived(1);
    expect(requests).toHaveLength(1);
    controller.abort(new Error("user cancelled"));
    await expect(open).rejects.toThrow("user cancelled");
    expect(requests[0].signal.aborted).toBe(true); // the request itself is cut, not only the wait for it
    await new Promise((r) => setTimeout(r, 30));
    expect(requests).toHaveLength(1);
    expect(events).toEqual([{ path: "/hedges", idempotencyKey: "open-cancelled", ok: false }]);
  });

  test("a POST cancelled between attempts stops at once: no further attempt, and the failed one is told to the feeds", async () => {
    server.setScript(() => fail(503, "executor_unavailable"));
    const events: boolean[] = [];
    const between = watchedSleep();
    const c = client({ random: () => 1, sleep: between.sleep, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    c.onTrade((e) => events.push(e.ok));
    const controller = new AbortController();
    const add = c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 }, { signal: controller.signal });
    await between.waiting; // the first attempt failed; the sender waits out its 60 s back-off
    controller.abort(new Error("pane closed"));
    // At once, not after the 60 s back-off (which would pass the test's timeout).
    await expect(add).rejects.toThrow("pane closed");
    expect(server.received).toHaveLength(1);
    expect(events).toEqual([false]);
  });

  test("a POST cancelled before it left, or after a refusal, is no trade: nothing is told", async () => {
    const events: boolean[] = [];
    server.setScript(() => fail(429, "rate_limited", "slow down", null, { "Retry-After": "30" }));
    const retryAfter = watchedSleep();
    const c = client({ sleep: retryAfter.sleep });
    c.onTrade((e) => events.push(e.ok));
    const refused = new AbortController();
    const add = c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 }, { signal: refused.signal });
    await retryAfter.waiting; // refused with Retry-After: 30, and waiting it out
    refused.abort(new Error("cancelled while waiting out the 429"));
    await expect(add).rejects.toThrow("cancelled while waiting out the 429");
    const before = new AbortController();
    before.abort(new Error("cancelled first"));
    await expect(c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 2 }, { signal: before.signal })).rejects.toThrow(
      "cancelled first",
    );
    expect(server.received).toHaveLength(1);
    expect(events).toEqual([]);
  });

  test("a GET asked with a signal already cancelled is never sent, and does not cancel the same read for others", async () => {
    const { requests, transport, arrived } = heldTransport();
    const c = client({ transport });
    const other = c.polling().account();
    const cancelled = new AbortController();
    cancelled.abort(new Error("cell gone"));
    await expect(c.polling().account(cancelled.signal)).rejects.toThrow("cell gone");
    await arrived(1);
    await new Promise((r) => setTimeout(r, 10)); // (nothing more may arrive)
    expect(requests).toHaveLength(1);
    expect(requests[0].signal.aborted).toBe(false);
    requests[0].answer();
    await expect(other).resolves.toMatchObject({ data: { balance_usdc: 250000 } });
  });

  test("a read left by all its callers and asked again at once: the callers after share the new request", async () => {
    const { requests, transport, arrived } = heldTransport();
    const c = client({ transport });
    const leaving = new AbortController();
    const first = c.polling().account(leaving.signal);
    await arrived(1);
    leaving.abort(new Error("cell gone"));
    const second = c.polling().account(); // before the abandoned request has wound down
    await expect(first).rejects.toThrow("cell gone");
    await arrived(2);
    const third = c.polling().account();
    await new Promise((r) => setTimeout(r, 10)); // (the third shares the second: nothing more may arrive)
    expect(requests).toHaveLength(2);
    requests[1].answer();
    await expect(Promise.all([second, third])).resolves.toHaveLength(2);
  });

  test("a long-lived signal (the desk's) collects no listeners, however many calls carry it", async () => {
    server.setScript((r, i) => (r.method === "GET" ? ok(ex.account) : i % 2 === 0 ? fail(503, "service_unavailable") : ok(ex.addResult)));
    const c = client();
    const life = new AbortController();
    for (let i = 0; i < 5; i++) {
      await c.account(life.signal);
      await c.polling().account(life.signal);
      await c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 }, { signal: life.signal }); // with a retry
    }
    expect(server.received.length).toBeGreaterThanOrEqual(20);
    expect(getEventListeners(life.signal, "abort")).toHaveLength(0);
  });

  test("a request cancelled while it waits for the rate is never sent", async () => {
    server.setScript(() => ok(ex.quote));
    const c = client({ ratePerSecond: 2, burst: 1 });
    const q = (n: number, signal?: AbortSignal) =>
      c.polling().quote({ market: "USDTNGN", side: "buy", notional_usd: n, tenor_days: 7 }, signal);
    await q(1);
    const controller = new AbortController();
    const queued = Array.from({ length: 5 }, (_, i) => q(10 + i, controller.signal));
    controller.abort(new Error("cells cancelled"));
    for (const p of queued) await expect(p).rejects.toThrow("cells cancelled");
    await q(2);
    expect(server.received.map((r) => JSON.parse(r.body).notional_usd)).toEqual([1, 2]);
  });
});

describe("trades and the learned rate", () => {
  test("onTrade is told after every state-changing call that went through or may have, not after reads or refusals", async () => {
    const events: Array<{ path: string; ok: boolean }> = [];
    server.setScript((r) => {
      if (r.url.includes("/close")) return fail(404, "no_open_hedge");
      if (r.url.includes("/decrease")) return fail(503, "executor_unavailable");
      return ok(r.url.includes("/add") ? ex.addResult : r.method === "GET" ? ex.account : ex.openResult);
    });
    const c = client({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    c.onTrade((e) => events.push({ path: e.path, ok: e.ok }));
    await c.account();
    await c.quote({ market: "USDTNGN", side: "buy", notional_usd: 1000, tenor_days: 7 }).catch(() => undefined);
    await c.open({ market: "USDTNGN", side: "buy", notional_usd: 10000, tenor_days: 7, client_reference: "DEAL-1" });
    await c.addById("hdg_01", { additional_notional_usd: 5000 });
    await expect(c.close({ market: "USDTNGN", side: "buy" })).rejects.toMatchObject({ code: "no_open_hedge" });
    await expect(c.decrease({ market: "USDTNGN", side: "buy", reduce_notional_usd: 1 })).rejects.toMatchObject({
      code: "executor_unavailable",
    });
    expect(events).toEqual([
      { path: "/hedges", ok: true },
      { path: "/hedges/hdg_01/add", ok: true },
      { path: "/hedges/decrease", ok: false }, // the service may have acted before failing
    ]);
  });

  test("by default the rate is learned: it starts at a safe 5/s, a 429 cuts it, and both show in flowState", async () => {
    server.setScript((_r, i) => (i === 3 ? fail(429, "rate_limited", "slow down", null, { "Retry-After": "0" }) : ok(ex.account)));
    const c = client({ ratePerSecond: undefined, burst: undefined });
    expect(c.flowState()).toMatchObject({ ratePerSecond: 5, adaptive: true, probing: true, rateLimitedInLastMinute: 0 });
    for (let i = 0; i < 5; i++) await c.account();
    expect(c.flowState().rateLimitedInLastMinute).toBe(1);
    expect(c.flowState().probing).toBe(false);
    expect(c.flowState().ratePerSecond).toBeLessThan(5);
    expect(server.received).toHaveLength(6); // the 429 was retried
  });
});

describe("answers without the service's envelope (a proxy or gateway in the way)", () => {
  const ADD = { market: "USDTNGN", side: "buy", additional_notional_usd: 5000 } as const;

  test("a bare 429 is rate_limited: waited out per its Retry-After and retried with the same key", async () => {
    const waits: number[] = [];
    server.setScript((_r, i) => (i === 0 ? { status: 429, headers: { "Retry-After": "3" }, body: "Too Many Requests" } : ok(ex.addResult)));
    const sleep = async (ms: number) => void waits.push(ms);
    const result = await client({ random: () => 0, sleep }).add(ADD, { idempotencyKey: "add-429" });
    expect(result.data.new_notional_usd).toBe(15000);
    expect(waits).toEqual([3000]);
    expect(server.received.map((r) => r.headers["idempotency-key"])).toEqual(["add-429", "add-429"]);

    server.setScript(() => ({ status: 429, headers: { "Retry-After": "7" }, body: "<html>slow down</html>" }));
    const error = await caught(client({ retry: { maxAttempts: 1 } }).add(ADD, { idempotencyKey: "add-429b" }));
    expect(error).toMatchObject({ code: "rate_limited", status: 429, retryAfterMs: 7000, retryable: true });
    expect(error.message).toBe("POST /hedges/add answered HTTP 429 without the service's envelope.");
  });

  test("a bare 500 is service_unavailable: retried with the same key until the service answers", async () => {
    server.setScript((_r, i) => (i < 2 ? { status: 500, body: "Internal Server Error" } : ok(ex.addResult)));
    const result = await client().add(ADD, { idempotencyKey: "add-500" });
    expect(result.data.hedge_id).toBe(ex.addResult.hedge_id);
    expect(server.received.map((r) => r.headers["idempotency-key"])).toEqual(["add-500", "add-500", "add-500"]);
  });

  test("a bare 4xx is invalid_response, returned at once (retrying a page that is not the service changes nothing)", async () => {
    server.setScript(() => ({ status: 404, body: "<html>Not Found</html>" }));
    const error = await caught(client().add(ADD));
    expect(error).toMatchObject({ code: "invalid_response", status: 404, retryable: false });
    expect(server.received).toHaveLength(1);
  });

  test("an HTTP error whose body looks like success is never taken for the action's result", async () => {
    const events: boolean[] = [];
    server.setScript(() => ({ ...ok(ex.addResult), status: 500 }));
    const c = client({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
    c.onTrade((e) => events.push(e.ok));
    const error = await caught(c.add(ADD, { idempotencyKey: "add-looks-ok" }));
    expect(error).toMatchObject({ code: "service_unavailable", status: 500 });
    expect(server.received).toHaveLength(2);
    expect(events).toEqual([false]); // the service may have acted: the feeds refresh

    server.setScript(() => ({ ...ok(ex.addResult), status: 409 }));
    await expect(c.add(ADD)).rejects.toMatchObject({ code: "invalid_response", status: 409 });
    server.setScript(() => ({ ...ok(ex.addResult), status: 400 }));
    await expect(c.add(ADD)).rejects.toMatchObject({ code: "invalid_response", status: 400 });
    expect(server.received).toHaveLength(4);
  });

  test("a 2xx that is not the envelope (bare JSON data) is invalid_response, not a result", async () => {
    server.setScript(() => ({ status: 200, body: ex.addResult }));
    await expect(client().add(ADD)).rejects.toMatchObject({ code: "invalid_response", status: 200 });
  });
});

describe("Retry-After", () => {
  const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
  /** A client on a fixed clock whose waits are recorded, not slept; full jitter at its top (random 1), base 100 ms. */
  function recording(retry: Partial<ClientOptions["retry"]> = {}) {
    const waits: number[] = [];
    const c = client({ now: () => NOW, random: () => 1, sleep: async (ms) => void waits.push(ms), retry: { baseDelayMs: 100, ...retry } });
    return { c, waits };
  }
  /** A 429 with that Retry-After, then the account. */
  const limitedOnce = (retryAfter: string) => {
    let calls = 0;
    return () => (calls++ === 0 ? fail(429, "rate_limited", "slow down", null, { "Retry-After": retryAfter }) : ok(ex.account));
  };

  test("is read as seconds or as a date, never negative; blank or unreadable is no Retry-After at all", () => {
    expect(parseRetryAfter("120", NOW)).toBe(120_000);
    expect(parseRetryAfter("1.5", NOW)).toBe(1_500);
    expect(parseRetryAfter("-5", NOW)).toBe(0);
    expect(parseRetryAfter("Mon, 30 Nov 2026 12:01:00 GMT", NOW)).toBe(60_000);
    expect(parseRetryAfter("Mon, 30 Nov 2026 11:00:00 GMT", NOW)).toBe(0);
    expect(parseRetryAfter("2026-11-30T12:00:02Z", NOW)).toBe(2_000);
    for (const none of [null, "", "   ", "soon", "Mon, 30 Nov 2026 12:01:00"]) expect(parseRetryAfter(none, NOW)).toBeNull();
  });

  test("a blank Retry-After on an error is none: the error says no wait was asked for", async () => {
    server.setScript(() => fail(503, "service_unavailable", "down", null, { "Retry-After": " " }));
    const error = await caught(client({ retry: { maxAttempts: 1 } }).account());
    expect(error.retryAfterMs).toBeNull();
  });

  test("as an HTTP date: the wait is until that instant", async () => {
    server.setScript(limitedOnce("Mon, 30 Nov 2026 12:00:05 GMT"));
    const { c, waits } = recording();
    await c.account();
    expect(waits).toEqual([5000]);
  });

  test("as an HTTP date already past, as 0, blank or unreadable: the client's own backoff", async () => {
    for (const value of ["Mon, 30 Nov 2026 11:59:00 GMT", "0", "", "soon"]) {
      server.setScript(limitedOnce(value));
      const { c, waits } = recording();
      await c.account();
      expect(waits).toEqual([100]);
    }
  });

  test("longer than the backoff it is waited in full; at the client's cap it is still waited; past it the error returns", async () => {
    server.setScript(limitedOnce("2"));
    let { c, waits } = recording({ maxRetryAfterMs: 60_000 });
    await c.account();
    expect(waits).toEqual([2000]);

    server.setScript(limitedOnce("60"));
    ({ c, waits } = recording({ maxRetryAfterMs: 60_000 }));
    await c.account();
    expect(waits).toEqual([60_000]);

    server.setScript(limitedOnce("61"));
    ({ c, waits } = recording({ maxRetryAfterMs: 60_000 }));
    await expect(c.account()).rejects.toMatchObject({ code: "rate_limited", retryAfterMs: 61_000 });
    expect(waits).toEqual([]);
  });

  test("a Retry-After on a 503 is honoured too, and a trade given up for it is told to the feeds", async () => {
    const events: boolean[] = [];
    server.setScript(() => fail(503, "executor_unavailable", "busy", null, { "Retry-After": "120" }));
    const { c, waits } = recording({ maxRetryAfterMs: 60_000 });
    c.onTrade((e) => events.push(e.ok));
    await expect(c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 })).rejects.toMatchObject({
      code: "executor_unavailable",
      retryAfterMs: 120_000,
    });
    expect(waits).toEqual([]);
    expect(server.received).toHaveLength(1);
    expect(events).toEqual([false]);
  });
});

describe("what the sender tells", () => {
  test("onTrade after a trade left in doubt (an idempotency conflict, an answer it cannot read, a 5xx after a refusal); not after the service's refusal", async () => {
    const events: Array<{ key: string; ok: boolean }> = [];
    const answers: Record<string, () => ReturnType<typeof ok>> = {
      "in-flight": () => fail(409, "idempotency_in_flight"),
      reuse: () => fail(409, "idempotency_key_reuse"),
      unreadable: () => ok({ ...ex.addResult, new_notional_usd: "lots" }),
      refused: () => fail(400, "validation_error", "bad side", { fields: { side: "must be buy or sell" } }),
      "too-many": () => fail(429, "rate_limited"),
    };
    let calls = 0;
    server.setScript((r) => {
      const key = String(r.headers["idempotency-key"]);
      if (key === "503-then-429") return calls++ === 0 ? fail(503, "executor_unavailable") : fail(429, "rate_limited");
      return answers[key]();
    });
    const c = client({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    c.onTrade((e) => events.push({ key: e.idempotencyKey, ok: e.ok }));
    for (const key of [...Object.keys(answers), "503-then-429"]) {
      await expect(c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 }, { idempotencyKey: key })).rejects.toBeInstanceOf(
        HedgingApiError,
      );
    }
    expect(events).toEqual([
      { key: "in-flight", ok: false },
      { key: "reuse", ok: false },
      { key: "unreadable", ok: false },
      { key: "503-then-429", ok: false }, // the 503 may have acted, whatever came after
    ]);
  });

  test("onAttempt reports every attempt: its number, status, code and how long it took", async () => {
    let clock = 1_000;
    const attempts: unknown[] = [];
    server.setScript((_r, i) => {
      clock += 250;
      return i === 0 ? fail(503, "executor_unavailable") : ok(ex.addResult);
    });
    const c = client({ now: () => clock, onAttempt: (a) => attempts.push(a) });
    await c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 1 });
    expect(attempts).toEqual([
      { method: "POST", path: "/hedges/add", attempt: 1, status: 503, code: "executor_unavailable", durationMs: 250 },
      { method: "POST", path: "/hedges/add", attempt: 2, status: 200, code: null, durationMs: 250 },
    ]);
  });

  test("a fixed rate and burst are what flowState shows and what the requests get", async () => {
    server.setScript(() => ok(ex.quote));
    const c = client({ ratePerSecond: 2, burst: 3 });
    expect(c.flowState()).toMatchObject({ ratePerSecond: 2, adaptive: false, probing: false });
    const started = Date.now();
    const arrivals: number[] = [];
    server.setScript(() => {
      arrivals.push(Date.now() - started);
      return ok(ex.quote);
    });
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => c.polling().quote({ market: "USDTNGN", side: "buy", notional_usd: i + 1, tenor_days: 7 })),
    );
    expect(arrivals.filter((t) => t < 200)).toHaveLength(3); // the burst of 3 at once
    expect(arrivals[3]).toBeGreaterThanOrEqual(400); // the 4th waits for the rate of 2/s
  });

  test("requests in the last minute forget those older than 60 s", async () => {
    let clock = Date.UTC(2026, 10, 30, 12);
    server.setScript(() => ok(ex.account));
    const c = client({ now: () => clock });
    await c.account();
    clock += 30_000;
    await c.polling().account();
    clock += 30_000;
    expect(c.requestsInLastMinute()).toBe(2); // the first is exactly 60 s old: still in the minute
    clock += 1;
    expect(c.requestsInLastMinute()).toBe(1);
    clock += 30_000;
    expect(c.requestsInLastMinute()).toBe(0);
  });

  test("a poll and an action reading the same thing at once are separate requests; a read of no stated kind is an action", async () => {
    server.setScript(() => ({ ...ok(ex.account), delayMs: 30 }));
    const c = client();
    await Promise.all([c.account(), c.polling().account()]);
    expect(server.received).toHaveLength(2);
    const sender = new RequestSender({ baseUrl: server.baseUrl, apiKey: KEY, ratePerSecond: 1000 });
    const schema = z.unknown();
    await Promise.all([
      sender.send({ method: "GET", path: "/account", schema }),
      sender.send({ method: "GET", path: "/account", schema, kind: "action" }),
    ]);
    expect(server.received).toHaveLength(3);
  });
});

describe("answers in the forms the spec leaves open (over HTTP)", () => {
  test("POST /hedges/{id}/add answered with the hedge: an add result of the hedge's id, the amount asked, no order of its own", async () => {
    server.setScript(() => ok({ ...ex.hedge, notional_usd: 15000, maturity_at: "2026-11-29" }));
    const added = await client().addById("hdg_01", { additional_notional_usd: 5000 }, { idempotencyKey: "k-1" });
    expect(added.data).toEqual({
      status: "submitted",
      order_tx_hash: null,
      hedge_id: "hdg_01",
      market: "USDTNGN",
      side: "buy",
      additional_notional_usd: 5000,
      collateral_usdc: null,
      new_notional_usd: null,
      maturity_at: "2026-11-29T00:00:00Z",
    });
    expect(added.idempotencyKey).toBe("k-1");
  });

  test("POST /hedges/{id}/add answered like POST /hedges/add: read as it is; answered with neither, invalid_response naming the field", async () => {
    server.setScript(() => ok(ex.addResult));
    expect((await client().addById("hdg_01", { additional_notional_usd: 5000 })).data).toEqual(ex.addResult);
    server.setScript(() => ok({ id: "hdg_01", market: "USDTNGN", side: "buy" }));
    const e = await caught(client().addById("hdg_01", { additional_notional_usd: 5000 }));
    expect([e.code, e.details?.path]).toEqual(["invalid_response", "data.notional_usd"]);
  });

  test("an add answer with a date alone, a time in basic format and an unknown side is read, not refused after the service acted", async () => {
    server.setScript((r) =>
      pathOf(r.url).endsWith("/hedges/add")
        ? ok({ ...ex.addResult, side: "long", maturity_at: "2026-11-29" })
        : ok([{ ...ex.hedge, side: "long", opened_at: "20261122T1000Z", filled_at: "2026-11-22T10:00Z" }]),
    );
    const c = client();
    expect((await c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 5000 })).data).toMatchObject({
      side: "long",
      maturity_at: "2026-11-29T00:00:00Z",
    });
    expect((await c.list()).data[0]).toMatchObject({ side: "long", opened_at: "2026-11-22T10:00:00Z", filled_at: "2026-11-22T10:00:00Z" });
  });
});

describe("a request refused before anything is sent: what the person reads", () => {
  test("each call names its request, then every bad field and its fix, joined by '; '", async () => {
    const c = client();
    const bad = { market: "", side: "long" } as unknown as { market: string; side: "buy" };
    const cases: Array<[string, Promise<unknown>]> = [
      ["Quote request", c.quote({ ...bad, notional_usd: 1000, tenor_days: 7 })],
      ["Open request", c.open({ ...bad, notional_usd: 1000, tenor_days: 7 })],
      ["Add request", c.add({ ...bad, additional_notional_usd: 1000 })],
      ["Reduce request", c.decrease({ ...bad, reduce_notional_usd: 1000 })],
      ["Close request", c.close(bad)],
    ];
    for (const [what, call] of cases) {
      expect((await caught(call)).message).toBe(
        `${what}: market must be a market symbol such as USDTNGN; side must be buy or sell. Nothing was sent.`,
      );
    }
    expect((await caught(c.addById("hdg_01", { additional_notional_usd: 0 }))).message).toBe(
      "Add request: additional_notional_usd must be greater than 0. Nothing was sent.",
    );
    expect((await caught(c.list({ limit: 0 }))).message).toBe("Hedge list query: limit must be at least 1. Nothing was sent.");
    expect((await caught(c.history({ from: "yesterday" }))).message).toBe(
      "History query: from must be an ISO 8601 UTC timestamp. Nothing was sent.",
    );
    expect(server.received).toHaveLength(0);
  });

  test("a blank or missing Idempotency-Key, or one that is no text, names the field and its fix", async () => {
    const c = client();
    for (const key of ["", 42 as unknown as string]) {
      const error = await caught(c.close({ market: "USDTNGN", side: "buy" }, { idempotencyKey: key }));
      expect([error.code, error.details]).toEqual([
        "validation_error",
        { fields: { "Idempotency-Key": "must be a non-blank key without surrounding spaces" } },
      ]);
    }
    expect(server.received).toHaveLength(0);
  });

  test("a hedge id that is blank or no text is refused naming hedge_id; one pasted with spaces around it is asked trimmed", async () => {
    server.setScript(() => ok(ex.hedge));
    const c = client();
    for (const id of ["", undefined as unknown as string]) {
      const error = await caught(c.get(id));
      expect([error.code, error.details, error.message]).toEqual([
        "validation_error",
        { fields: { hedge_id: "is required" } },
        "hedge_id is required. Nothing was sent.",
      ]);
    }
    expect(server.received).toHaveLength(0);
    await c.get(" hdg_01 ");
    expect(server.received.map((r) => r.url)).toEqual(["/v2/hedges/hdg_01"]);
  });
});

describe("the keys and views the client makes", () => {
  test("polling() is one view per client (the feeds' reads share its queue and counts), and the view's own view is itself", () => {
    const c = client();
    const view = c.polling();
    expect([c.polling() === view, view.polling() === view, view === c]).toEqual([true, true, false]);
  });
});
