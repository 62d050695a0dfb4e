// The zod schemas accept every resource the spec describes, tolerate extra fields and refuse broken payloads.
import * as s from "../../src/api/schemas";
import * as ex from "../support/examples";

const cases: Array<[string, { safeParse(v: unknown): { success: boolean } }, unknown]> = [
  ["Quote", s.quoteSchema, ex.quote],
  ["Hedge (filled)", s.hedgeSchema, ex.hedge],
  ["Hedge (submitted, no fill fields)", s.hedgeSchema, ex.submittedHedge],
  ["Open-hedge result", s.openHedgeResultSchema, ex.openResult],
  ["Add result", s.addResultSchema, ex.addResult],
  ["Decrease result", s.decreaseResultSchema, ex.decreaseResult],
  ["Close result", s.closeResultSchema, ex.closeResult],
  ["Position", s.positionSchema, ex.position],
  ["Closed-hedge record", s.closedHedgeSchema, ex.closedHedge],
  ["Account summary", s.accountSchema, ex.account],
  ["Market", s.marketSchema, ex.market],
];

describe("resource schemas", () => {
  test("Prices: the spec's example parses", () => {
    expect(s.pricesSchema.parse(ex.prices).USDTNGN.price).toBe(1502.35);
  });

  test.each(cases)("%s: the spec's example parses", (_name, schema, example) => {
    expect(schema.safeParse(example).success).toBe(true);
  });

  test.each(cases)("%s: unknown extra fields are tolerated", (_name, schema, example) => {
    expect(schema.safeParse({ ...(example as object), added_in_v2_1: { x: 1 } }).success).toBe(true);
  });

  test("Prices: extra fields inside an entry are tolerated", () => {
    expect(s.pricesSchema.safeParse({ USDTNGN: { ...ex.prices.USDTNGN, bid: 1502 } }).success).toBe(true);
  });

  test("numbers sent as decimal strings are read as numbers", () => {
    const parsed = s.quoteSchema.parse({ ...ex.quote, pricing: { ...ex.quote.pricing, execution_price: "1502.5" } });
    expect(parsed.pricing.execution_price).toBe(1502.5);
  });

  test("a missing required field is refused with its path", () => {
    const { upfront, ...rest } = ex.quote;
    const result = s.quoteSchema.safeParse({ ...rest, upfront: { ...upfront, total_upfront_usdc: undefined } });
    expect(result.success).toBe(false);
    expect(result.error && s.issuePath(result.error.issues[0].path)).toBe("upfront.total_upfront_usdc");
  });

  test("a wrong type is refused with its path", () => {
    const result = s.accountSchema.safeParse({ ...ex.account, open_positions: "many" });
    expect(result.success).toBe(false);
    expect(result.error && s.issuePath(result.error.issues[0].path)).toBe("open_positions");
  });

  test("a side outside buy/sell is refused", () => {
    expect(s.positionSchema.safeParse({ ...ex.position, side: "long" }).success).toBe(false);
  });

  test("an unknown future hedge status is kept rather than failing the response", () => {
    expect(s.hedgeSchema.parse({ ...ex.hedge, status: "settling" }).status).toBe("settling");
  });

  test("the envelope's meta defaults to an empty object", () => {
    expect(s.envelopeSchema.parse({ data: 1, error: null }).meta).toEqual({});
  });
});

describe("request schemas", () => {
  test("a valid open request passes", () => {
    expect(
      s.openRequestSchema.safeParse({ market: "USDTNGN", side: "buy", notional_usd: 1, tenor_days: 3, client_reference: "D1" }).success,
    ).toBe(true);
  });

  test("field errors name each bad field and the fix", () => {
    const input = { market: "USDTNGN", side: "long", notional_usd: 0, tenor_days: 5 };
    const result = s.openRequestSchema.safeParse(input);
    expect(result.success).toBe(false);
    const fields = s.fieldErrors(result.error!, input);
    expect(fields).toEqual({
      side: "must be buy or sell",
      notional_usd: "must be greater than 0",
      tenor_days: "must be one of 1, 3, 7",
    });
  });

  test("a missing field reads 'is required'", () => {
    const input = { market: "USDTNGN" };
    const result = s.closeRequestSchema.safeParse(input);
    expect(s.fieldErrors(result.error!, input)).toEqual({ side: "is required" });
  });

  test("list limit is bounded by 500", () => {
    expect(s.listQuerySchema.safeParse({ limit: 500 }).success).toBe(true);
    expect(s.fieldErrors(s.listQuerySchema.safeParse({ limit: 501 }).error!)).toEqual({ limit: "must be at most 500" });
  });
});

describe("numbers that are not finite", () => {
  test('"1e400" (a decimal string whose number is Infinity) is refused with its path', () => {
    const result = s.accountSchema.safeParse({ ...ex.account, balance_usdc: "1e400" });
    expect(result.success).toBe(false);
    expect(result.error && s.issuePath(result.error.issues[0].path)).toBe("balance_usdc");
  });

  test("an amount beyond 1,000,000,000 USD is a validation error, not a quote of nulls", () => {
    const input = { market: "USDTNGN", side: "buy", notional_usd: 1e308, tenor_days: 7 };
    const result = s.quoteRequestSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(s.fieldErrors(result.error!, input)).toEqual({ notional_usd: "must be at most 1,000,000,000 USD" });
    expect(s.quoteRequestSchema.safeParse({ ...input, notional_usd: 1_000_000_000 }).success).toBe(true);
  });
});
