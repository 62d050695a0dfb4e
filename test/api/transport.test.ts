// The fetch transport over real HTTP: redirects refused (the key and body go nowhere else), the key masked in every echo (encoded forms, details, headers), and answers that are not finite numbers or proper times refused.
import { HedgingClient } from "../../src/api/client";
import { fetchTransport } from "../../src/api/transport";
import { HedgingApiError } from "../../src/api/errors";
import { fail, ok, startScriptedServer, type ScriptedServer } from "../support/scripted-server";
import * as ex from "../support/examples";

/** A key with characters that encodings change (+ / =), so that every encoded echo differs from the key itself. */
const KEY = "svc_test_k+y/with=chars_0123456789WXYZ";
const MASKED = "svc_test_…WXYZ";

let server: ScriptedServer;
let elsewhere: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
  elsewhere = await startScriptedServer(() => ok(ex.openResult));
});
afterEach(async () => {
  await server.close();
  await elsewhere.close();
});

const client = () =>
  new HedgingClient({
    apiKey: KEY,
    baseUrl: server.baseUrl,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    ratePerSecond: 1000,
    burst: 1000,
  });

/** The error a call ends with (the test fails if it succeeds). */
const caught = (promise: Promise<unknown>): Promise<HedgingApiError> =>
  promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => {
      if (e instanceof HedgingApiError) return e;
      throw e;
    },
  );

const carriesKey = (r: { headers: Record<string, unknown>; body: string }) =>
  JSON.stringify(r.headers).includes(KEY) || r.body.includes(KEY);

describe("redirects are never followed", () => {
  test.each([
    ["to the same origin", () => `${server.baseUrl}/hedges-moved`],
    ["to another origin", () => `${elsewhere.baseUrl}/hedges`],
  ])("a 307 %s: the open fails, and no second request (with the body and the key) is made", async (_name, target) => {
    server.setScript(() => ({ status: 307, headers: { Location: target() }, body: "" }));
    const e = await caught(client().open({ market: "USDTNGN", side: "buy", notional_usd: 1000, tenor_days: 7 }));
    expect(e.code).toBe("network_error");
    expect(e.message).toMatch(/redirect/);
    expect(server.received.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /v2/hedges", "POST /v2/hedges"]);
    expect(elsewhere.received).toEqual([]);
  });

  test("a 302 on a GET is refused the same way", async () => {
    server.setScript(() => ({ status: 302, headers: { Location: `${elsewhere.baseUrl}/account` }, body: "" }));
    await expect(client().account()).rejects.toMatchObject({ code: "network_error" });
    expect(elsewhere.received.filter(carriesKey)).toEqual([]);
  });
});

describe("the key never comes back out of an answer", () => {
  // test/api/redact.test.ts holds the table of echoes; this is the transport masking each place an answer carries one.
  test("an error echoing the key raw, upper-cased, cut, hex, URL-encoded, form-encoded, HTML-escaped and in base64, in its message, details and headers", async () => {
    const echoes = {
      raw: KEY,
      upper: KEY.toUpperCase(),
      cut: KEY.slice(0, 24),
      hex: Buffer.from(KEY).toString("hex"),
      html: KEY.replace(/\//g, "&#47;"),
      url: `https://svc.example/v2/account?api_key=${encodeURIComponent(KEY)}`,
      form: new URLSearchParams({ api_key: KEY }).toString(),
      basic: `Basic ${btoa(KEY)}`,
      nested: [{ [KEY]: `key=${encodeURIComponent(KEY).toLowerCase()}` }],
    };
    server.setScript(() =>
      fail(401, "invalid_api_key", `Unknown key ${KEY} (${encodeURIComponent(KEY)})`, echoes, {
        "WWW-Authenticate": `Bearer error="${KEY}"`,
      }),
    );
    const e = await caught(client().account());
    expect(e.code).toBe("invalid_api_key");
    const everything = JSON.stringify({ message: e.message, details: e.details, json: e.toJSON() });
    for (const echo of [...Object.values(echoes).slice(0, 6), encodeURIComponent(KEY), btoa(KEY).replace(/=+$/, "")])
      expect(everything).not.toContain(echo);
    expect(everything).not.toMatch(/k\+y\/with|K\+Y\/WITH/);
    expect(e.message).toBe(`Unknown key ${MASKED} (${MASKED})`);
    expect(JSON.stringify(e.details)).toContain(MASKED);
  });
});

describe("the transport masks the key of any caller's Authorization header", () => {
  test("whatever the header's case and place, and the scheme's case", async () => {
    server.setScript(() => fail(401, "invalid_api_key", `Unknown key ${KEY}`, {}, { "X-Echo": KEY }));
    const callers: Record<string, string>[] = [
      { accept: "application/json", authorization: `Bearer ${KEY}` },
      { Accept: "application/json", AUTHORIZATION: `bearer ${KEY}` },
    ];
    for (const headers of callers) {
      const answer = await fetchTransport({
        method: "GET",
        url: `${server.baseUrl}/account`,
        headers,
        signal: new AbortController().signal,
      });
      expect([answer.body.includes(KEY), answer.body.includes(MASKED), answer.header("X-Echo")]).toEqual([false, true, MASKED]);
    }
  });
});

describe("the transport's answers", () => {
  test("an absent header is null; a connection refused is not called a redirect", async () => {
    server.setScript(() => ok(ex.account));
    const signal = new AbortController().signal;
    const answer = await fetchTransport({ method: "GET", url: `${server.baseUrl}/account`, headers: {}, signal });
    expect(answer.header("X-Not-Sent")).toBeNull();
    const closed = await startScriptedServer();
    await closed.close();
    // undici's own error (another realm's TypeError), passed on as it came.
    const refused = await fetchTransport({ method: "GET", url: `${closed.baseUrl}/account`, headers: {}, signal }).then(
      () => "answered",
      (e: { message?: unknown }) => String(e.message),
    );
    expect(refused).toBe("fetch failed");
  });

  test("a browser's network error (a TypeError without a cause) reaches the person as itself: network_error, could not reach the host, Failed to fetch", async () => {
    const fetchSpy = jest.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("Failed to fetch"));
    try {
      const e = await caught(client().account());
      expect([e.code, e.message]).toEqual([
        "network_error",
        `GET /account could not reach ${new URL(server.baseUrl).host}: Failed to fetch`,
      ]);
    } finally {
      fetchSpy.mockRestore();
    }
  });
});

describe("what the transport asks the page's fetch for", () => {
  test("the request as given, never following a redirect, without the browser's cookies, HTTP auth or cache", async () => {
    server.setScript(() => ok(ex.openResult));
    const fetchSpy = jest.spyOn(globalThis, "fetch");
    try {
      const signal = new AbortController().signal;
      const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
      const answer = await fetchTransport({ method: "POST", url: `${server.baseUrl}/hedges`, headers, body: "{}", signal });
      expect(answer.status).toBe(200);
      expect(fetchSpy.mock.calls).toEqual([
        [
          `${server.baseUrl}/hedges`,
          { method: "POST", headers, body: "{}", signal, redirect: "error", credentials: "omit", cache: "no-store" },
        ],
      ]);
    } finally {
      fetchSpy.mockRestore();
    }
  });
});

describe("answers that are not numbers or times", () => {
  test('"1e400" is invalid_response naming the field, not Infinity', async () => {
    server.setScript(() => ok({ ...ex.account, balance_usdc: "1e400" }));
    const e = await caught(client().account());
    expect(e.code).toBe("invalid_response");
    expect(e.details).toMatchObject({ path: "data.balance_usdc" });
  });

  test("a filled_at such as 22/11/2026 20:00 UTC is invalid_response naming the field", async () => {
    server.setScript(() => ok({ ...ex.hedge, filled_at: "22/11/2026 20:00 UTC" }));
    const e = await caught(client().get("hdg_01"));
    expect(e.code).toBe("invalid_response");
    expect(e.details).toMatchObject({ path: "data.filled_at" });
    expect(e.message).toMatch(/data\.filled_at: must be an ISO 8601 timestamp \(UTC unless it gives an offset\)/);
  });
});
