// "Did the service do nothing?", answered once (isRefusal): a 4xx other than an idempotency conflict; the sender (may a call have acted?) and the desk's rule (is a failed send final?) both ask it.
import { HedgingApiError, isRefusal, isRetryable } from "../../src/api/errors";
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
