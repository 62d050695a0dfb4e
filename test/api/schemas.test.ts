// The zod schemas accept every resource the spec describes, tolerate extra fields and the forms the spec leaves open (settlement dates, times, sides, the add-by-id answer), and refuse broken payloads.
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

  test("the key's scopes leave out blank names", () => {
    expect(s.keyScopesOf({ key_scopes: ["read", " ", ""] })).toEqual(["read"]);
  });

  test("the key's scopes are unknown (null) when the service does not say them as a list of texts: the pane then does not claim what the key may do", () => {
    expect(s.keyScopesOf({ key_scopes: [" Trade ", "READ"] })).toEqual(["trade", "read"]);
    for (const said of [undefined, "trade", ["trade", 7], [null]]) expect(s.keyScopesOf({ key_scopes: said })).toBeNull();
  });

  test("a field that breaks several rules is told the first", () => {
    expect(s.fieldErrors(s.listQuerySchema.safeParse({ limit: 0.5 }).error!, { limit: 0.5 })).toEqual({ limit: "must be a whole number" });
  });

  test("list limit is bounded by 500", () => {
    expect(s.listQuerySchema.safeParse({ limit: 500 }).success).toBe(true);
    expect(s.fieldErrors(s.listQuerySchema.safeParse({ limit: 501 }).error!)).toEqual({ limit: "must be at most 500" });
  });
});

describe("numbers sent as strings", () => {
  const balance = (value: unknown) => s.accountSchema.safeParse({ ...ex.account, balance_usdc: value });

  test("a decimal string is read whole: signed, with decimals and with an exponent", () => {
    for (const [text, value] of [
      ["-12.25", -12.25],
      ["1e3", 1000],
      ["1.5E-2", 0.015],
      ["7", 7],
    ] as const) {
      expect(balance(text).data?.balance_usdc).toBe(value);
    }
  });

  test("a string that JavaScript would read as a number but is no decimal is refused with its path", () => {
    for (const text of ["0x10", "0b1", " 12", "12 ", "+12", "12.", ".5", "1e", "1,000"]) {
      const result = balance(text);
      expect(result.success).toBe(false);
      expect(result.error && Object.keys(s.fieldErrors(result.error))).toEqual(["balance_usdc"]);
    }
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

/** Where the spec leaves a form open, the reading the client takes (README "Service assumptions"). */
describe("the tolerant reader", () => {
  type Reading = { success: boolean; data?: unknown; error?: { issues: { path: PropertyKey[]; message: string }[] } };
  const answers: Array<[string, { safeParse(v: unknown): Reading }, object, string[]]> = [
    ["Hedge", s.hedgeSchema, ex.hedge, ["maturity_at"]],
    ["Quote", s.quoteSchema, ex.quote, ["maturity"]],
    ["Open-hedge result", s.openHedgeResultSchema, ex.openResult, ["maturity_at"]],
    ["Add result", s.addResultSchema, ex.addResult, ["maturity_at"]],
    ["Decrease result", s.decreaseResultSchema, ex.decreaseResult, ["maturity_at"]],
    ["Position", s.positionSchema, ex.position, ["maturity_at"]],
  ];
  const fieldOf = (r: Reading, field: string) => (r.data as Record<string, unknown>)[field];

  /** [the settlement date as sent, as read (null: invalid_response naming the field)]. */
  const SETTLEMENT: Array<[string, string | null]> = [
    ["2026-11-29T10:00:00Z", "2026-11-29T10:00:00Z"],
    ["2026-11-29T11:00:00+01:00", "2026-11-29T11:00:00+01:00"],
    ["2026-11-29", "2026-11-29T00:00:00Z"],
    ["20261129", "2026-11-29T00:00:00Z"],
    ["2026-11-29T10:00Z", "2026-11-29T10:00:00Z"],
    ["20261129T1000Z", "2026-11-29T10:00:00Z"],
    ["2026-11-29T10:00", "2026-11-29T10:00:00Z"],
    ["2026-02-30", null],
    ["29/11/2026", null],
  ];
  for (const [name, schema, example, [field]] of answers) {
    test.each(SETTLEMENT)(`${name}: ${field} %j reads as %j`, (sent, read) => {
      const r = schema.safeParse({ ...example, [field]: sent });
      expect(r.success).toBe(read !== null);
      if (read !== null) expect(fieldOf(r, field)).toBe(read);
      // A settlement date's refusal says a date alone would do.
      else
        expect([s.issuePath(r.error!.issues[0].path), r.error!.issues[0].message]).toEqual([
          field,
          "must be an ISO 8601 settlement date or timestamp (UTC unless it gives an offset), e.g. 2026-11-30 or 2026-11-30T17:00:00Z",
        ]);
    });
  }

  /** [a time (not a settlement date) as sent, as read (null: refused)]. */
  const TIMES: Array<[string, string | null]> = [
    ["2026-11-22T10:00:02Z", "2026-11-22T10:00:02Z"],
    ["2026-11-22T10:00Z", "2026-11-22T10:00:00Z"],
    ["20261122T1000Z", "2026-11-22T10:00:00Z"],
    ["20261122T100002Z", "2026-11-22T10:00:02Z"],
    ["20261122T110002+0100", "2026-11-22T10:00:02Z"],
    ["2026-11-22T11:00+01:00", "2026-11-22T10:00:00Z"],
    ["20261122T1000", "2026-11-22T10:00:00Z"],
    ["2026-11-22", null],
    ["2026-11-22T25:00", null],
  ];
  test.each(TIMES)("a hedge's filled_at %j reads as %j", (sent, read) => {
    const r = s.hedgeSchema.safeParse({ ...ex.hedge, filled_at: sent });
    expect([r.success, r.success ? r.data.filled_at : s.issuePath(r.error.issues[0].path)]).toEqual([read !== null, read ?? "filled_at"]);
  });

  test.each(TIMES)("a closed-hedge record's closed_at and a price's timestamp %j read as %j", (sent, read) => {
    const record = s.closedHedgeSchema.safeParse({ ...ex.closedHedge, closed_at: sent });
    const price = s.priceEntrySchema.safeParse({ ...ex.prices.USDTNGN, timestamp: sent });
    expect([record.success && record.data.closed_at, price.success && price.data.timestamp]).toEqual([read ?? false, read ?? false]);
  });

  const SIDED: Array<[string, { safeParse(v: unknown): Reading }, object]> = [
    ...answers
      .filter(([name]) => name !== "Open-hedge result") // its side is its quote's
      .map(([name, schema, example]): [string, { safeParse(v: unknown): Reading }, object] => [name, schema, example]),
    ["Close result", s.closeResultSchema, ex.closeResult],
    ["Closed-hedge record", s.closedHedgeSchema, ex.closedHedge],
  ];
  test.each(SIDED)(
    "%s: an unknown side is kept as text; no side, an empty one or a number is refused naming side",
    (_name, schema, example) => {
      expect(fieldOf(schema.safeParse({ ...example, side: "long" }), "side")).toBe("long");
      for (const side of ["", 1, null]) {
        const r = schema.safeParse({ ...example, side });
        expect([side, r.success, r.error && s.issuePath(r.error.issues[0].path)]).toEqual([side, false, "side"]);
      }
    },
  );

  test("an unknown side is neither buy nor sell (isSide), and a request still sends only buy or sell", () => {
    expect([s.isSide("buy"), s.isSide("sell"), s.isSide("long"), s.isSide("Buy"), s.isSide(undefined)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    const input = { market: "USDTNGN", side: "long" };
    expect(s.fieldErrors(s.closeRequestSchema.safeParse(input).error!, input)).toEqual({ side: "must be buy or sell" });
  });

  const hedgeAfterAdd = { ...ex.hedge, notional_usd: 15000, status: "filled" };
  /** [the answer of POST /hedges/{id}/add, the add result the client makes of it (null: invalid_response at that path)]. */
  const ADD_BY_ID: Array<[string, unknown, object | string]> = [
    ["shaped like POST /hedges/add's", ex.addResult, ex.addResult],
    [
      "shaped like the hedge",
      hedgeAfterAdd,
      {
        status: "submitted",
        order_tx_hash: null,
        hedge_id: "hdg_01",
        market: "USDTNGN",
        side: "buy",
        additional_notional_usd: 5000,
        collateral_usdc: null,
        new_notional_usd: null,
        maturity_at: "2026-11-29T10:00:00Z",
      },
    ],
    ["like the hedge, a settlement date alone", { ...hedgeAfterAdd, maturity_at: "2026-11-29" }, { maturity_at: "2026-11-29T00:00:00Z" }],
    ["like an add, without its amount", (({ additional_notional_usd: _, ...rest }) => rest)(ex.addResult), "additional_notional_usd"],
    ["like a hedge, without its notional", (({ notional_usd: _, ...rest }) => rest)(hedgeAfterAdd), "notional_usd"],
    ["like a hedge, a bad side", { ...hedgeAfterAdd, side: 7 }, "side"],
    ["neither (read as an add: its first missing field)", { ok: true }, "status"],
    ["not an object", "done", "(root)"],
    ["null", null, "(root)"],
    ["like an add that also names an id (its amount added makes it an add)", { ...ex.addResult, id: "hdg_01" }, ex.addResult],
  ];
  test.each(ADD_BY_ID)("POST /hedges/{id}/add answered %s", (_name, answer, expected) => {
    const r = s.addByIdResultSchema.safeParse(answer);
    if (typeof expected === "string") {
      expect([r.success, r.error && s.issuePath(r.error.issues[0].path)]).toEqual([false, expected]);
    } else {
      expect(r.success).toBe(true);
      expect(s.addResultOf(r.data!, 5000)).toMatchObject(expected);
    }
  });
});

/** What a person reads when an answer or a request is refused: the field and what it must be (invalid_response's message, validation_error's details.fields). */
describe("the words of a refusal", () => {
  const fieldsOf = (schema: { safeParse(v: unknown): { error?: unknown } }, input: unknown) =>
    s.fieldErrors(schema.safeParse(input).error as Parameters<typeof s.fieldErrors>[0], input);

  test("a time or a settlement date sent as a number is refused with what it must be, not zod's type words", () => {
    expect(fieldsOf(s.hedgeSchema, { ...ex.hedge, opened_at: 1764522000 })).toEqual({
      opened_at: "must be an ISO 8601 timestamp (UTC unless it gives an offset), e.g. 2026-11-30T17:00:00Z",
    });
    expect(fieldsOf(s.positionSchema, { ...ex.position, maturity_at: 20261130 })).toEqual({
      maturity_at:
        "must be an ISO 8601 settlement date or timestamp (UTC unless it gives an offset), e.g. 2026-11-30 or 2026-11-30T17:00:00Z",
    });
  });

  test("a side sent as a number, or empty, is refused saying a side is buy or sell", () => {
    expect(fieldsOf(s.hedgeSchema, { ...ex.hedge, side: 1 })).toEqual({ side: "must be a side as text (buy or sell)" });
    expect(fieldsOf(s.hedgeSchema, { ...ex.hedge, side: "" })).toEqual({ side: "must be a side (buy or sell)" });
  });

  test("a quote whose carry lacks its total is refused naming carry.total_usdc (the cost a roll is priced by)", () => {
    const { total_usdc: _, ...carry } = ex.quote.carry;
    expect(Object.keys(fieldsOf(s.quoteSchema, { ...ex.quote, carry }))).toEqual(["carry.total_usdc"]);
    expect(s.quoteSchema.parse(ex.quote).carry).toEqual(ex.quote.carry);
  });

  test("a decimal string with an exponent of two digits or more is read whole", () => {
    const balance = (value: string) => s.accountSchema.safeParse({ ...ex.account, balance_usdc: value }).data?.balance_usdc;
    expect([balance("1e10"), balance("2.5E-10"), balance("-3e+12")]).toEqual([1e10, 2.5e-10, -3e12]);
  });

  test("a request's market, client reference, list status and limit are refused naming the fix", () => {
    const open = { market: "", side: "buy", notional_usd: 1000, tenor_days: 7, client_reference: "x".repeat(129) };
    expect(fieldsOf(s.openRequestSchema, open)).toEqual({
      market: "must be a market symbol such as USDTNGN",
      client_reference: "must be at most 128 characters",
    });
    expect(s.openRequestSchema.safeParse({ ...open, market: "USDTNGN", client_reference: "x".repeat(128) }).success).toBe(true);
    expect(fieldsOf(s.listQuerySchema, { status: "open", limit: 0 })).toEqual({
      status: "must be one of submitting, submitted, filled, failed, closed",
      limit: "must be at least 1",
    });
  });

  test("history's from and to: a time with a UTC offset, Z or +01:00 (a closed_at as the service sent it pages on); anything else refused", () => {
    expect(s.historyQuerySchema.safeParse({ from: "2026-11-01T00:00:00Z", to: "2026-11-30T18:00:00+01:00" }).success).toBe(true);
    expect(fieldsOf(s.historyQuerySchema, { from: "2026-11-01T00:00:00", to: "30/11/2026" })).toEqual({
      from: "must be an ISO 8601 UTC timestamp",
      to: "must be an ISO 8601 UTC timestamp",
    });
  });
});

describe("zod in a page", () => {
  test("with a document (the pane, whose Content-Security-Policy allows no eval) zod is told jitless before any schema is built", () => {
    const page = globalThis as { document?: unknown };
    let inPage: unknown;
    jest.isolateModules(() => {
      page.document = {};
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const zod = require("zod/mini") as { config(c?: { jitless?: boolean }): { jitless?: boolean } };
        // zod keeps one configuration for the whole process (on globalThis): cleared, so only this load can set it.
        const before = zod.config().jitless;
        zod.config({ jitless: undefined });
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require("../../src/api/schemas");
        inPage = zod.config().jitless;
        zod.config({ jitless: before });
      } finally {
        delete page.document;
      }
    });
    expect(inPage).toBe(true);
  });
});
