// Time and money: maturity and carry via the sandbox clock, queued orders, environment isolation, reproducible prices.
import { z } from "zod";
import { accountSchema, closedHedgeSchema, hedgeSchema, openHedgeResultSchema, positionSchema, pricesSchema } from "../../src/api/schemas";
import { DEMO_API_KEY, DEMO_LIVE_API_KEY } from "../../src/sandbox/demo";
import type { RunningSandbox } from "../../src/sandbox/server";
import { OPEN, raw, start, until } from "./helpers";

const DAY = 86_400_000;
const cents = (x: number) => Math.round(x * 100);

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const openFilled = async (body: unknown = OPEN, key = DEMO_API_KEY) => {
  const r = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body, key })).json.data);
  await until(
    async () => ((await raw(sb, "GET", `/hedges/${r.hedge_id}`, { key })).json.data as { status: string }).status === "filled" || undefined,
  );
  return r;
};
const history = async (key = DEMO_API_KEY) =>
  z.array(closedHedgeSchema).parse((await raw(sb, "GET", "/hedges/history", { key })).json.data);
const accountOf = async (key = DEMO_API_KEY) => accountSchema.parse((await raw(sb, "GET", "/account", { key })).json.data);

test("a hedge settles by itself at maturity when the clock moves: closed, a maturity record, carry of the whole tenor", async () => {
  const opened = await openFilled({ ...OPEN, tenor_days: 3, client_reference: "M-1" });
  sb.clock.advance(DAY);
  const [line] = z.array(positionSchema).parse((await raw(sb, "GET", "/positions")).json.data);
  expect(line.accrued_carry_usd).toBeCloseTo(-opened.quote.carry.daily_usdc, 1);

  await raw(sb, "POST", `${sb.controlUrl}/clock`, { key: null, body: { advance_days: 2 } });
  const hedge = hedgeSchema.parse((await raw(sb, "GET", `/hedges/${opened.hedge_id}`)).json.data);
  expect(hedge.status).toBe("closed");
  const [record] = await history();
  expect(record).toMatchObject({
    exit_type: "maturity",
    size_usd: 100_000,
    hedge_id: opened.hedge_id,
    client_reference: "M-1",
    closed_at: opened.maturity_at,
  });
  expect(record.carry_usd).toBe(-opened.quote.carry.total_usdc);
  expect(record.fees_usd).toBe(opened.quote.upfront.platform_fee_usdc);
  expect(record.collateral_usdc).toBe(opened.collateral_usdc);
  expect(record.exit_price).toBe(sb.engine.midAt("USDTNGN", Date.parse(opened.maturity_at!))); // a fixing at mid
  expect(cents(record.gross_pnl_usd)).toBe(Math.round(100_000 * (record.exit_price / record.entry_price - 1) * 100));
  expect(cents(record.net_pnl_usd)).toBe(cents(record.gross_pnl_usd) + cents(record.carry_usd) - cents(record.fees_usd));
  const account = await accountOf();
  expect(account).toMatchObject({ open_positions: 0, exposure_usd: 0, margin_used_usdc: 0 });
  expect(cents(account.balance_usdc)).toBe(cents(250_000) + cents(record.net_pnl_usd));
  expect((await raw(sb, "GET", "/positions")).json.data).toEqual([]);
});

test("a sell receives carry (negative rate): accrued_carry_usd is positive and grows with the clock", async () => {
  const opened = await openFilled({ ...OPEN, side: "sell", notional_usd: 200_000 });
  expect(opened.quote.carry.daily_usdc).toBe(-60);
  sb.clock.advance(DAY / 2);
  const [half] = z.array(positionSchema).parse((await raw(sb, "GET", "/positions")).json.data);
  expect(half.accrued_carry_usd).toBeCloseTo(30, 1);
  sb.clock.advance(DAY / 2);
  const [full] = z.array(positionSchema).parse((await raw(sb, "GET", "/positions")).json.data);
  expect(full.accrued_carry_usd).toBeCloseTo(60, 1);
  expect(cents(full.net_pnl_usd)).toBe(cents(full.gross_pnl_usd) + cents(full.accrued_carry_usd));
});

test("a clock jump past several fills and a maturity processes them in time order", async () => {
  sb.faults.apply({ fill_ms: 60_000 });
  const opened = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: { ...OPEN, tenor_days: 1 } })).json.data);
  await raw(sb, "POST", "/hedges/add", { body: { market: "USDTNGN", side: "buy", additional_notional_usd: 50_000 } });
  await raw(sb, "POST", "/hedges/decrease", { body: { market: "USDTNGN", side: "buy", reduce_notional_usd: 30_000 } });
  expect(hedgeSchema.parse((await raw(sb, "GET", `/hedges/${opened.hedge_id}`)).json.data).status).toBe("submitted");
  sb.clock.advance(2 * DAY);
  const hedge = hedgeSchema.parse((await raw(sb, "GET", `/hedges/${opened.hedge_id}`)).json.data);
  expect(hedge.status).toBe("closed");
  const fillDelay = Date.parse(hedge.filled_at!) - Date.parse(hedge.opened_at!);
  expect(fillDelay).toBeGreaterThanOrEqual(60_000);
  expect(fillDelay).toBeLessThan(60_100);
  const records = await history();
  expect(records.map((r) => [r.exit_type, r.size_usd])).toEqual([
    ["maturity", 120_000],
    ["decrease", 30_000],
  ]);
  expect(Date.parse(records[1].closed_at)).toBeLessThan(Date.parse(records[0].closed_at));
  expect(cents((await accountOf()).balance_usdc)).toBe(cents(250_000) + records.reduce((s, r) => s + cents(r.net_pnl_usd), 0));
});

test("a close queued behind an unfilled open fills after it; the side is free once drained", async () => {
  sb.faults.apply({ stall_fills: true });
  const opened = openHedgeResultSchema.parse((await raw(sb, "POST", "/hedges", { body: OPEN })).json.data);
  expect((await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } })).status).toBe(200);
  expect((await raw(sb, "POST", "/hedges", { body: OPEN })).json.error?.code).toBe("hedge_exists");
  sb.faults.apply({ stall_fills: false });
  const hedge = await until(async () => {
    const h = hedgeSchema.parse((await raw(sb, "GET", `/hedges/${opened.hedge_id}`)).json.data);
    return h.status === "closed" ? h : undefined;
  });
  expect(hedge.fill_tx_hash).toMatch(/^0x/);
  expect((await history())[0].exit_type).toBe("close");
  expect((await raw(sb, "POST", "/hedges", { body: OPEN })).status).toBe(200);
});

test("production (svc_live_) and sandbox (svc_test_) keys never share balances, hedges, history or positions", async () => {
  await openFilled(OPEN, DEMO_API_KEY);
  const live = await openFilled({ ...OPEN, notional_usd: 20_000 }, DEMO_LIVE_API_KEY);
  expect((await raw(sb, "GET", "/hedges", { key: DEMO_LIVE_API_KEY })).json.data).toHaveLength(1);
  expect((await raw(sb, "GET", `/hedges/${live.hedge_id}`, { key: DEMO_API_KEY })).json.error?.code).toBe("hedge_not_found");
  expect((await accountOf(DEMO_LIVE_API_KEY)).balance_usdc).toBe(100_000 - 2_020);
  expect((await accountOf(DEMO_API_KEY)).balance_usdc).toBe(250_000 - 10_100);
  await raw(sb, "POST", "/hedges/close", { key: DEMO_LIVE_API_KEY, body: { market: "USDTNGN", side: "buy" } });
  await until(async () => (await history(DEMO_LIVE_API_KEY)).length === 1 || undefined);
  expect(await history(DEMO_API_KEY)).toEqual([]);
  expect(z.array(positionSchema).parse((await raw(sb, "GET", "/positions")).json.data)).toHaveLength(1);
  const liveMeta = await raw(sb, "GET", "/account", { key: DEMO_LIVE_API_KEY, headers: { "X-Service-Mode": "sandbox" } });
  expect(liveMeta.json.meta).toEqual({ source: "production", key_scopes: ["read", "trade"] });
  expect(liveMeta.headers.get("x-service-mode")).toBe("production");
  const testMeta = await raw(sb, "GET", "/account", { headers: { "X-Service-Mode": "production" } });
  expect(testMeta.json.meta).toEqual({ source: "sandbox", key_scopes: ["read", "trade"] });
  expect(testMeta.headers.get("x-service-mode")).toBe("sandbox");
});

test("prices are a function of seed and clock: two sandboxes with one seed and a frozen real clock agree", async () => {
  const frozen = Date.UTC(2026, 0, 5, 9, 30);
  const a = await start({ seed: 42, realNow: () => frozen });
  const b = await start({ seed: 42, realNow: () => frozen });
  const c = await start({ seed: 43, realNow: () => frozen });
  try {
    const price = async (s: RunningSandbox) => pricesSchema.parse((await raw(s, "GET", "/prices")).json.data).USDTNGN;
    const seen: number[] = [];
    for (const step of [0, 1_000, 59_000, 3_600_000, 5 * DAY]) {
      a.clock.advance(step);
      b.clock.advance(step);
      c.clock.advance(step);
      const [pa, pb, pc] = [await price(a), await price(b), await price(c)];
      expect(pa).toEqual(pb);
      seen.push(pa.price);
      if (step > 0) expect(pc.price).not.toBe(pa.price);
    }
    expect(seen[0]).toBe(1500);
    expect(new Set(seen).size).toBe(seen.length);
    // Within one second the price does not move; the timestamp is the start of the second.
    a.clock.advance(400);
    const p = await price(a);
    expect(p.timestamp.endsWith(".000Z")).toBe(true);
  } finally {
    await Promise.all([a.close(), b.close(), c.close()]);
  }
});

test("--spot sets the starting mid", async () => {
  const s = await start({ spot: 1612.5, realNow: () => Date.UTC(2026, 0, 1) });
  try {
    expect(pricesSchema.parse((await raw(s, "GET", "/prices")).json.data).USDTNGN.price).toBe(1612.5);
  } finally {
    await s.close();
  }
});
