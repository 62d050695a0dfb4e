// "Did the service do nothing?", answered once (isRefusal): a 4xx other than an idempotency conflict; the sender (may a call have acted?) and the desk's rule (is a failed send final?) both ask it.
import { errorCode, HedgingApiError, isRefusal, isRetryable } from "../../src/api/errors";
import { classifyFailure } from "../../src/trading/desk/rule";

const e = (code: string, status: number | null) => new HedgingApiError({ code, status, message: code });

describe("isRefusal: the service answered that it did nothing", () => {
  test.each([
    ["validation_error", 400, true],
    ["hedge_exists", 409, true],
    ["insufficient_scope", 403, true],
    ["hedge_not_found", 404, true],
    ["rate_limited (429: the service did nothing, retried)", 429, true],
    ["an unknown 4xx", 499, true],
    ["an unknown 4xx at the bottom of the range", 400, true],
    ["idempotency_in_flight (the first request may still act)", 409, false],
    ["idempotency_key_reuse (the key acted for another body)", 409, false],
    ["service_unavailable (5xx: it may have acted)", 503, false],
    ["a 500", 500, false],
    ["a 3xx", 399, false],
    ["network_error (no answer)", null, false],
    ["timeout (no answer)", null, false],
    ["invalid_response to a 200 (it may have acted)", 200, false],
  ])("%s → %s", (label, status, refused) => {
    const code = label.split(" ")[0];
    expect(isRefusal(e(code, status))).toBe(refused);
  });

  it("only the client's error type can be a refusal", () => {
    expect(isRefusal(Object.assign(new Error("Bad Request"), { status: 400, code: "validation_error" }))).toBe(false);
    expect(isRefusal("validation_error")).toBe(false);
  });

  it("the rule's reading of a failed send agrees with it: a refusal that is not retried is final, a retried one transient", () => {
    for (const [code, status] of [
      ["validation_error", 400],
      ["rate_limited", 429],
      ["idempotency_in_flight", 409],
      ["idempotency_key_reuse", 409],
      ["service_unavailable", 503],
      ["invalid_response", 200],
    ] as const) {
      const error = e(code, status);
      const expected = isRetryable(code, status) ? "transient" : isRefusal(error) ? "refused" : "unknown";
      expect(classifyFailure(error)).toBe(expected);
    }
    expect(classifyFailure(new Error("boom"))).toBe("unknown");
  });
});

describe("what a person is told beside an error (the pane's \"What to do\", a cell's message, the desk's refusal)", () => {
  test.each([
    ["missing_credentials", 401, /API key in the Hedge pane/],
    ["invalid_api_key", 401, /API key was not accepted: check it, or create a new one/],
    ["insufficient_scope", 403, /cannot trade: use a key with the trade scope/],
    ["account_forbidden", 403, /account cannot see this resource/],
    ["account_not_configured", 400, /no on-chain address yet/],
    ["market_not_allowed", 400, /market is not enabled/],
    ["exposure_exceeded", 400, /Reduce the notional to fit the remaining exposure headroom/],
    ["insufficient_collateral", 400, /free balance is too low: reduce the notional or add funds/],
    ["hedge_exists", 409, /use Add to grow it/],
    ["no_open_hedge", 404, /use Open first/],
    ["hedge_not_open", 400, /not open any more/],
    ["hedge_not_found", 404, /No hedge with this id on the account/],
    ["idempotency_key_reuse", 409, /already used for a different request/],
    ["idempotency_in_flight", 409, /still being processed: wait and check the hedge/],
    ["rate_limited", 429, /slows down and retries/],
    ["network_error", null, /check the network and the base URL/],
    ["timeout", null, /did not answer in time/],
    ["invalid_response", 200, /answer this add-in does not understand/],
    ["origin_not_allowed", null, /built with its origin in SERVICE_ORIGINS/],
    ["key_origin_mismatch", null, /Type the API key again/],
  ])("%s says what to do", (code, status, fix) => {
    expect(e(code, status).advice).toMatch(fix);
  });

  test("a code no person can act on has no advice (the message stands alone)", () => {
    expect(e("quote_failed", 502).advice).toBeUndefined();
    expect(e("validation_error", 400).advice).toBeUndefined();
  });

  test("written out (a log line, a bug report), an error keeps its code, status, message, details and whether it is retried, and says its type", () => {
    const error = new HedgingApiError({
      code: "exposure_exceeded",
      status: 400,
      message: "Over the headroom.",
      details: { available_headroom_usd: 5 },
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: "exposure_exceeded",
      status: 400,
      message: "Over the headroom.",
      details: { available_headroom_usd: 5 },
      retryable: false,
    });
    expect(String(error)).toBe("HedgingApiError: Over the headroom.");
  });

  test("errorCode: the client's code, or unexpected_error for anything else thrown (the Hedge Log's error code)", () => {
    expect(errorCode(e("hedge_not_found", 404))).toBe("hedge_not_found");
    expect(errorCode(new Error("boom"))).toBe("unexpected_error");
    expect(errorCode("boom")).toBe("unexpected_error");
  });
});

describe("isRetryable: the retry decision", () => {
  test("an answer the add-in cannot read is never retried, whatever its status: the service may have acted, and a retry could act twice", () => {
    expect(isRetryable("invalid_response", 200)).toBe(false);
    expect(isRetryable("invalid_response", 502)).toBe(false);
  });

  test("no answer at all, a 5xx, a 429 and a request still in flight are retried; a 4xx or an unknown code without status is not", () => {
    expect(isRetryable("network_error", null)).toBe(true);
    expect(isRetryable("timeout", null)).toBe(true);
    expect(isRetryable("service_unavailable", 503)).toBe(true);
    expect(isRetryable("rate_limited", 429)).toBe(true);
    expect(isRetryable("idempotency_in_flight", 409)).toBe(true);
    expect(isRetryable("validation_error", 400)).toBe(false);
    expect(isRetryable("origin_not_allowed", null)).toBe(false);
  });
});
