// Every /v2 endpoint of the sandbox over real HTTP: shapes (checked with the client's schemas), arithmetic, lifecycle.
import { z } from "zod";
import {
  accountSchema,
  addResultSchema,
  closedHedgeSchema,
  closeResultSchema,
  decreaseResultSchema,
  hedgeSchema,
  marketSchema,
  openHedgeResultSchema,
  positionSchema,
  pricesSchema,
  quoteSchema,
} from "../../src/api/schemas";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import type { RunningSandbox } from "../../src/sandbox/server";
import { OPEN, raw, start, until } from "./helpers";
import { answerRecorder, coverage, mismatches, operations, servedDocument } from "./openapi-check";

let sb: RunningSandbox;
const recorder = answerRecorder();
beforeAll(async () => {
  sb = await start(recorder.options);
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const cents = (x: number) => Math.round(x * 100);
const HASH = /^0x[0-9a-f]{64}$/;

async function filled(id: string) {
  return until(
    async () => {
      const r = await raw(sb, "GET", `/hedges/${id}`);
      return (r.json.data as { status: string }).status === "filled" ? hedgeSchema.parse(r.json.data) : undefined;
    },
    3000,
    `hedge ${id} to fill`,
  );
}

describe("market data", () => {
  test("GET /markets lists USDTNGN with capacity and carry per side", async () => {
    const r = await raw(sb, "GET", "/markets");
    expect(r.status).toBe(200);
    expect(r.json.error).toBeNull();
    const markets = z.array(marketSchema).parse(r.json.data);
    expect(markets).toHaveLength(1);
    expect(markets[0]).toMatchObject({
      market: "USDTNGN",
      status: "open",
      available_capacity_usd: { buy: 1_000_000, sell: 1_000_000 },
      net_rate_daily_pct: { buy: 0.05, sell: -0.03 },
    });
    expect(markets[0].price).toBeGreaterThan(1000);
    expect(r.json.meta).toEqual({ allowed_markets: ["USDTNGN"], source: "sandbox" });
  });

  test("GET /prices?market=USDTNGN gives the price entry; unknown markets land in meta.rejected", async () => {
    const r = await raw(sb, "GET", "/prices?market=USDTNGN");
    expect(r.status).toBe(200);
    const prices = pricesSchema.parse(r.json.data);
    expect(prices.USDTNGN.pair).toBe("USDT/NGN");
    expect(prices.USDTNGN.price).toBeGreaterThan(1400);
    expect(prices.USDTNGN.price).toBeLessThan(1600);
    expect(new Date(prices.USDTNGN.timestamp).toISOString()).toBe(prices.USDTNGN.timestamp);
    expect(r.json.meta).toEqual({ allowed_markets: ["USDTNGN"], rejected: [] });

    const mixed = await raw(sb, "GET", "/prices?market=USDTNGN,EURUSD");
    expect(Object.keys(mixed.json.data as object)).toEqual(["USDTNGN"]);
    expect(mixed.json.meta.rejected).toEqual([{ market: "EURUSD", code: "market_not_allowed", message: "Unknown market." }]);

    const all = await raw(sb, "GET", "/prices");
    expect(Object.keys(all.json.data as object)).toEqual(["USDTNGN"]);

    const empty = await raw(sb, "GET", "/prices?market=");
    expect(empty.status).toBe(400);
    expect(empty.json.error?.code).toBe("validation_error");
    expect(empty.json.error?.details?.fields).toEqual({ market: expect.any(String) });
  });
});

describe("account", () => {
  test("GET /account gives the summary with meta.source", async () => {
    const r = await raw(sb, "GET", "/account");
    expect(r.status).toBe(200);
    expect(accountSchema.parse(r.json.data)).toEqual({
      account_address: "0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172",
      balance_usdc: 250_000,
      margin_used_usdc: 0,
      exposure_usd: 0,
      unrealized_pnl_usd: 0,
      open_positions: 0,
      max_exposure_usd: 2_000_000,
      available_exposure_usd: 2_000_000,
    });
    expect(r.json.meta).toEqual({ source: "sandbox", key_scopes: ["read", "trade"] });
  });

  test("GET /account?account= accepts the caller's own address and refuses any other (403 account_forbidden)", async () => {
    expect((await raw(sb, "GET", "/account?account=0x5A4D0E1B2C3F40516273849A0B1C2D3E4F506172")).status).toBe(200);
    const other = await raw(sb, "GET", "/account?account=0xdeadbeef");
    expect(other.status).toBe(403);
    expect(other.json.error?.code).toBe("account_forbidden");
    const positions = await raw(sb, "GET", "/positions?account=0xdeadbeef");
    expect(positions.json.error?.code).toBe("account_forbidden");
  });

  test("GET /positions is empty when flat, one line per side once filled", async () => {
    const flat = await raw(sb, "GET", "/positions");
    expect(flat.json).toEqual({ data: [], error: null, meta: { source: "sandbox" } });
    const buy = await raw(sb, "POST", "/hedges", { body: OPEN });
    const sell = await raw(sb, "POST", "/hedges", { body: { ...OPEN, side: "sell", notional_usd: 50_000 } });
    await filled((buy.json.data as { hedge_id: string }).hedge_id);
    await filled((sell.json.data as { hedge_id: string }).hedge_id);
    const r = await raw(sb, "GET", "/positions");
    const lines = z.array(positionSchema).parse(r.json.data);
    expect(lines.map((l) => [l.side, l.size_usd])).toEqual([
      ["buy", 100_000],
      ["sell", 50_000],
    ]);
    const buyLine = lines[0];
    expect(buyLine.collateral_usdc).toBe(10_100);
    expect(buyLine.closing_fee_usd).toBe(50);
    expect(cents(buyLine.net_pnl_usd)).toBe(cents(buyLine.gross_pnl_usd) + cents(buyLine.accrued_carry_usd));
    expect(cents(buyLine.net_margin_usd)).toBe(cents(10_000 + buyLine.net_pnl_usd));
    const account = accountSchema.parse((await raw(sb, "GET", "/account")).json.data);
    expect(account.open_positions).toBe(2);
    expect(account.exposure_usd).toBe(150_000);
    expect(account.margin_used_usdc).toBe(15_150);
    expect(cents(account.unrealized_pnl_usd)).toBe(cents(lines[0].net_pnl_usd) + cents(lines[1].net_pnl_usd));
  });
});

describe("POST /quotes", () => {
  test.each([
    ["buy", 100_000, 3],
    ["sell", 250_000, 7],
    ["buy", 12_345.67, 1],
    ["sell", 999_999.99, 3],
  ] as const)("%s %d for %d days: exact arithmetic and signs", async (side, notional, tenor) => {
    const r = await raw(sb, "POST", "/quotes", { body: { market: "USDTNGN", side, notional_usd: notional, tenor_days: tenor } });
    expect(r.status).toBe(200);
    expect(r.json.meta).toEqual({ source: "sandbox" });
    const q = quoteSchema.parse(r.json.data);
    expect(q).toMatchObject({ market: "USDTNGN", side, notional_usd: notional, tenor_days: tenor });
    expect(cents(q.carry.total_usdc)).toBe(cents(q.carry.daily_usdc) * tenor);
    expect(q.carry.total_rate_pct).toBeCloseTo(q.carry.daily_rate_pct * tenor, 10);
    expect(cents(q.upfront.total_upfront_usdc)).toBe(cents(q.upfront.required_margin_usdc) + cents(q.upfront.platform_fee_usdc));
    expect(cents(q.upfront.required_margin_usdc)).toBe(Math.round(notional * 10));
    expect(cents(q.upfront.platform_fee_usdc)).toBe(Math.round(notional * 0.05) * 2);
    expect(q.carry.daily_rate_pct).toBe(side === "buy" ? 0.05 : -0.03);
    expect(Math.sign(q.carry.daily_usdc)).toBe(side === "buy" ? 1 : -1);
    expect(q.pricing.price_impact_usd).toBeLessThan(0);
    if (side === "buy") expect(q.pricing.execution_price).toBeGreaterThan(q.pricing.market_price);
    else expect(q.pricing.execution_price).toBeLessThan(q.pricing.market_price);
    expect(Date.parse(q.maturity) - Date.now()).toBeGreaterThan(tenor * 86_400_000 - 5_000);
  });

  test("impact grows with size: about 1 bp per 100k", async () => {
    const impact = async (n: number) => {
      const q = quoteSchema.parse(
        (await raw(sb, "POST", "/quotes", { body: { market: "USDTNGN", side: "buy", notional_usd: n, tenor_days: 1 } })).json.data,
      );
      return q.pricing.execution_price / q.pricing.market_price - 1;
    };
    expect(await impact(100_000)).toBeCloseTo(0.0001, 5);
    expect(await impact(1_000_000)).toBeCloseTo(0.001, 5);
  });
});

describe("hedge lifecycle", () => {
  test("POST /hedges: submitted at once, collateral reserved, filled after fill-ms", async () => {
    sb.faults.apply({ fill_ms: 300 });
    const r = await raw(sb, "POST", "/hedges", {
      body: { ...OPEN, client_reference: "DEAL-1" },
      headers: { "Idempotency-Key": "k-open-1" },
    });
    expect(r.status).toBe(200);
    expect(r.json.meta).toEqual({});
    const result = openHedgeResultSchema.parse(r.json.data);
    expect(result.status).toBe("submitted");
    expect(result.order_tx_hash).toMatch(HASH);
    expect(result.hedge_id).toMatch(/^hdg_/);
    expect(result.client_reference).toBe("DEAL-1");
    expect(result.collateral_usdc).toBe(result.quote.upfront.total_upfront_usdc);
    expect(result.collateral_usdc).toBe(10_100);
    expect(result.maturity_at).toBe(result.quote.maturity);

    // Before the fill, the fields present only once filled are left out (not null), as the spec and the OpenAPI document say;
    // the client's schema takes the answer either way.
    const pendingRaw = (await raw(sb, "GET", `/hedges/${result.hedge_id}`)).json.data as Record<string, unknown>;
    expect(Object.keys(pendingRaw).sort()).toEqual(
      [
        "client_reference",
        "id",
        "market",
        "maturity_at",
        "notional_usd",
        "opened_at",
        "order_key",
        "order_tx_hash",
        "side",
        "status",
        "tenor_days",
      ].sort(),
    );
    const pending = hedgeSchema.parse(pendingRaw);
    expect(pending).toMatchObject({ status: "submitted", order_tx_hash: result.order_tx_hash });
    expect(hedgeSchema.parse({ ...pendingRaw, fill_tx_hash: null, struck_rate: null, units: null, filled_at: null })).toMatchObject({
      fill_tx_hash: null,
    });
    expect(accountSchema.parse((await raw(sb, "GET", "/account")).json.data).balance_usdc).toBe(250_000 - 10_100);

    const hedge = await filled(result.hedge_id!);
    expect(hedge.fill_tx_hash).toMatch(HASH);
    expect(hedge.struck_rate).toBeGreaterThan(1000);
    expect(hedge.units).toBeCloseTo(100_000 * hedge.struck_rate!, 1);
    expect(hedge.order_key).toMatch(HASH);
    expect(Date.parse(hedge.maturity_at!) - Date.parse(hedge.opened_at!)).toBe(7 * 86_400_000);
    expect(Date.parse(hedge.filled_at!)).toBeGreaterThanOrEqual(Date.parse(hedge.opened_at!) + 300);
  });

  test("add (by market/side and by id) nets in at a blended rate and keeps maturity", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    const before = await filled(open.hedge_id!);

    const add = await raw(sb, "POST", "/hedges/add", { body: { market: "USDTNGN", side: "buy", additional_notional_usd: 50_000 } });
    expect(add.status).toBe(200);
    const added = addResultSchema.parse(add.json.data);
    expect(added).toMatchObject({
      status: "submitted",
      hedge_id: open.hedge_id,
      market: "USDTNGN",
      side: "buy",
      additional_notional_usd: 50_000,
      new_notional_usd: 150_000,
      collateral_usdc: 5_050,
      maturity_at: before.maturity_at,
    });
    expect(added.order_tx_hash).toMatch(HASH);

    const byId = await raw(sb, "POST", `/hedges/${open.hedge_id}/add`, { body: { additional_notional_usd: 25_000 } });
    expect(byId.status).toBe(200);
    expect(addResultSchema.parse(byId.json.data)).toMatchObject({
      hedge_id: open.hedge_id,
      additional_notional_usd: 25_000,
      new_notional_usd: 175_000,
    });

    const after = await until(async () => {
      const h = hedgeSchema.parse((await raw(sb, "GET", `/hedges/${open.hedge_id}`)).json.data);
      return h.notional_usd === 175_000 ? h : undefined;
    });
    expect(after.status).toBe("filled");
    expect(after.maturity_at).toBe(before.maturity_at);
    expect(after.struck_rate).toBeGreaterThan(Math.min(before.struck_rate!, 1000));
    const account = accountSchema.parse((await raw(sb, "GET", "/account")).json.data);
    expect(account.margin_used_usdc).toBe(17_675);
    expect(account.balance_usdc).toBe(250_000 - 17_675);
  });

  test("decrease removes notional and margin proportionally and writes a history record; close drains the side", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: { ...OPEN, client_reference: "D-9" } })).json.data);
    await filled(open.hedge_id!);
    const dec = await raw(sb, "POST", "/hedges/decrease", { body: { market: "USDTNGN", side: "buy", reduce_notional_usd: 40_000 } });
    expect(dec.status).toBe(200);
    expect(decreaseResultSchema.parse(dec.json.data)).toMatchObject({
      status: "submitted",
      hedge_id: open.hedge_id,
      reduced_notional_usd: 40_000,
      new_notional_usd: 60_000,
    });
    await until(async () =>
      hedgeSchema.parse((await raw(sb, "GET", `/hedges/${open.hedge_id}`)).json.data).notional_usd === 60_000 ? true : undefined,
    );
    const position = z.array(positionSchema).parse((await raw(sb, "GET", "/positions")).json.data)[0];
    expect(position.size_usd).toBe(60_000);
    expect(position.collateral_usdc).toBe(6_060);

    const close = await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } });
    expect(close.status).toBe(200);
    expect(closeResultSchema.parse(close.json.data)).toMatchObject({
      status: "submitted",
      market: "USDTNGN",
      side: "buy",
      hedge_id: open.hedge_id,
    });
    await until(async () =>
      hedgeSchema.parse((await raw(sb, "GET", `/hedges/${open.hedge_id}`)).json.data).status === "closed" ? true : undefined,
    );
    expect((await raw(sb, "GET", "/positions")).json.data).toEqual([]);

    const history = z.array(closedHedgeSchema).parse((await raw(sb, "GET", "/hedges/history")).json.data);
    expect(history.map((h) => [h.exit_type, h.size_usd])).toEqual([
      ["close", 60_000],
      ["decrease", 40_000],
    ]);
    for (const h of history) {
      expect(h.hedge_id).toBe(open.hedge_id);
      expect(h.client_reference).toBe("D-9");
      expect(cents(h.net_pnl_usd)).toBe(cents(h.gross_pnl_usd) + cents(h.carry_usd) - cents(h.fees_usd));
    }
    expect(history[1].collateral_usdc).toBe(4_040);
    expect(history[1].fees_usd).toBe(40);
    const account = accountSchema.parse((await raw(sb, "GET", "/account")).json.data);
    expect(account).toMatchObject({ margin_used_usdc: 0, exposure_usd: 0, open_positions: 0 });
    expect(cents(account.balance_usdc)).toBe(cents(250_000) + history.reduce((s, h) => s + cents(h.net_pnl_usd), 0));
  });

  test("a decrease covering the whole position closes the hedge", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    const dec = decreaseResultSchema.parse(
      (await raw(sb, "POST", "/hedges/decrease", { body: { market: "USDTNGN", side: "buy", reduce_notional_usd: 250_000 } })).json.data,
    );
    expect(dec).toMatchObject({ reduced_notional_usd: 100_000, new_notional_usd: 0 });
    await until(async () =>
      hedgeSchema.parse((await raw(sb, "GET", `/hedges/${open.hedge_id}`)).json.data).status === "closed" ? true : undefined,
    );
    const [record] = z.array(closedHedgeSchema).parse((await raw(sb, "GET", "/hedges/history")).json.data);
    expect(record).toMatchObject({ exit_type: "decrease", size_usd: 100_000 });
    // The side is free again.
    expect((await raw(sb, "POST", "/hedges", { body: OPEN })).status).toBe(200);
  });

  test("GET /hedges: newest first, filters status and client_reference, limit", async () => {
    const ids: string[] = [];
    for (const [side, ref] of [
      ["buy", "A"],
      ["sell", "B"],
    ] as const) {
      const r = openHedgeResultSchema.parse(
        (await raw(sb, "POST", "/hedges", { body: { ...OPEN, side, client_reference: ref } })).json.data,
      );
      ids.push(r.hedge_id!);
    }
    await filled(ids[0]);
    await filled(ids[1]);
    await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } });
    await until(async () => ((await raw(sb, "GET", "/hedges?status=closed")).json.data as unknown[]).length === 1 || undefined);

    const all = z.array(hedgeSchema).parse((await raw(sb, "GET", "/hedges")).json.data);
    expect(all.map((h) => h.id)).toEqual([ids[1], ids[0]]);
    expect(
      z
        .array(hedgeSchema)
        .parse((await raw(sb, "GET", "/hedges?status=filled")).json.data)
        .map((h) => h.id),
    ).toEqual([ids[1]]);
    expect(
      z
        .array(hedgeSchema)
        .parse((await raw(sb, "GET", "/hedges?client_reference=A")).json.data)
        .map((h) => h.id),
    ).toEqual([ids[0]]);
    expect(
      z
        .array(hedgeSchema)
        .parse((await raw(sb, "GET", "/hedges?limit=1")).json.data)
        .map((h) => h.id),
    ).toEqual([ids[1]]);
    expect((await raw(sb, "GET", "/hedges?limit=500")).status).toBe(200);

    for (const bad of ["limit=501", "limit=0", "limit=abc", "limit=1.5", "status=open", "client_reference="]) {
      const r = await raw(sb, "GET", `/hedges?${bad}`);
      expect([bad, r.status, r.json.error?.code]).toEqual([bad, 400, "validation_error"]);
      expect(Object.keys(r.json.error?.details?.fields ?? {})).toHaveLength(1);
    }
  });

  test("GET /hedges/history filters on closed_at with from (inclusive), to (exclusive) and limit", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    await filled(open.hedge_id!);
    await raw(sb, "POST", "/hedges/decrease", { body: { market: "USDTNGN", side: "buy", reduce_notional_usd: 10_000 } });
    await until(async () => ((await raw(sb, "GET", "/hedges/history")).json.data as unknown[]).length === 1 || undefined);
    sb.clock.advance(86_400_000);
    await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } });
    const history = await until(async () => {
      const h = z.array(closedHedgeSchema).parse((await raw(sb, "GET", "/hedges/history")).json.data);
      return h.length === 2 ? h : undefined;
    });
    const [newest, oldest] = history;
    const q = (s: string) =>
      raw(sb, "GET", `/hedges/history?${s}`).then((r) =>
        z
          .array(closedHedgeSchema)
          .parse(r.json.data)
          .map((h) => h.exit_type),
      );
    expect(await q(`from=${encodeURIComponent(newest.closed_at)}`)).toEqual(["close"]);
    expect(await q(`to=${encodeURIComponent(newest.closed_at)}`)).toEqual(["decrease"]);
    expect(await q(`from=${encodeURIComponent(oldest.closed_at)}&to=${encodeURIComponent(newest.closed_at)}`)).toEqual(["decrease"]);
    expect(await q("limit=1")).toEqual(["close"]);
    const bad = await raw(sb, "GET", "/hedges/history?from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.json.error?.details?.fields).toEqual({ from: expect.any(String) });
  });

  test("GET /hedges/{id} of an unknown id or another account's hedge is 404 hedge_not_found", async () => {
    const open = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
    const other = await raw(sb, "GET", `/hedges/${open.hedge_id}`, { key: "svc_test_demo_sandbox_key_0002" });
    expect(other.status).toBe(404);
    expect(other.json.error?.code).toBe("hedge_not_found");
    expect((await raw(sb, "GET", "/hedges/hdg_nope")).json.error?.code).toBe("hedge_not_found");
    expect((await raw(sb, "GET", "/hedges/%E0%A4%A")).json.error?.code).toBe("hedge_not_found");
    expect((await raw(sb, "GET", `/hedges/${open.hedge_id}`, { key: DEMO_API_KEY })).status).toBe(200);
  });
});

// Last in this file: every answer the tests above got, checked against the document the sandbox serves.
test("every /v2 answer of these tests matches the OpenAPI document served at GET /v2/openapi.json", async () => {
  const doc = await servedDocument(sb);
  expect(mismatches(doc, recorder.answers)).toEqual([]);
  // The tests above reached every operation of the document with success (this one's own GET aside).
  const seen = coverage(doc, recorder.answers);
  const missed = operations(doc).filter((op) => op !== "GET /openapi.json" && !seen.has(`${op} 200`));
  expect(missed).toEqual([]);
});
