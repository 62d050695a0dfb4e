// HEDGE.ROLLCOST through fake invocations: the spill summed from one quote per tenor, those quotes shared with HEDGE.QUOTE's cells, nothing asked once the cell is gone, bad arguments as #VALUE!.
import { FakeInvocation, installFeeds } from "./fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { ROLLCOST_LABELS } from "../../src/functions/rollcost";
import { rollCost } from "../../src/policy/rollcost";
import { apiError, quoteFor } from "../feeds/fake-client";
import type { Account, Market } from "../../src/api/schemas";

type Spill = unknown[][];
const asRecord = (spill: Spill) => Object.fromEntries(spill.map(([k, v]) => [k, v]));
const quoteArgs = (c: { args: unknown[] }) => c.args[0] as { tenor_days: number; notional_usd: number };

/** Capacity and headroom enough for `usd`: no warning row. */
function roomFor(client: { markets_: Market[]; account_: Account }, usd: number) {
  client.markets_ = client.markets_.map((m) => ({ ...m, available_capacity_usd: { buy: usd, sell: usd } }));
  client.account_ = { ...client.account_, available_exposure_usd: usd };
}

describe("HEDGE.ROLLCOST", () => {
  test("10 days at 7: a 7-day and a 3-day hedge, each figure its quote's field summed, one POST /quotes per tenor", async () => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    roomFor(client, 1_000_000);
    fn.rollcost("usdtngn", "BUY", 1_000_000, 10, undefined, undefined, undefined, undefined, cell as never);
    await advance();
    const q7 = quoteFor({ market: "USDTNGN", side: "buy", notional_usd: 1_000_000, tenor_days: 7 }, client.rate);
    const q3 = quoteFor({ market: "USDTNGN", side: "buy", notional_usd: 1_000_000, tenor_days: 3 }, client.rate);
    expect(cell.value.map((r) => r[0])).toEqual([...ROLLCOST_LABELS]);
    const r = asRecord(cell.value);
    expect(r.hedges).toBe(2);
    expect(r.tenors).toBe("7d × 1 + 3d × 1");
    expect(r.fees_usdc).toBeCloseTo(q7.upfront.platform_fee_usdc + q3.upfront.platform_fee_usdc, 6);
    expect(r.carry_usdc).toBeCloseTo(q7.carry.total_usdc + q3.carry.total_usdc, 6);
    expect(r.price_impact_usd).toBeCloseTo(q7.pricing.price_impact_usd + q3.pricing.price_impact_usd, 6);
    const total = (r.fees_usdc as number) + (r.carry_usdc as number) - (r.price_impact_usd as number);
    expect(r.total_usd).toBeCloseTo(total, 6);
    expect(r.total_yearly_rate).toBeCloseTo((total / 1_000_000 / 10) * 365, 12);
    expect(
      client.calls
        .filter((c) => c.method === "quote")
        .map((c) => quoteArgs(c).tenor_days)
        .sort(),
    ).toEqual([3, 7]);
  });

  test("9 days at 7 is 7 + 1 + 1: two distinct questions; a HEDGE.QUOTE cell of the same question adds no request", async () => {
    const { client, advance } = installFeeds();
    const quote = new FakeInvocation<Spill>();
    fn.quote("USDTNGN", "sell", 250_000, 1, "carry.total_usdc", quote as never);
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "sell", 250_000, 9, 7, undefined, undefined, undefined, cell as never);
    await advance();
    expect(asRecord(cell.value).tenors).toBe("7d × 1 + 1d × 2");
    expect(client.count("quote")).toBe(2);
    const q1 = quoteFor({ market: "USDTNGN", side: "sell", notional_usd: 250_000, tenor_days: 1 }, client.rate);
    const q7 = quoteFor({ market: "USDTNGN", side: "sell", notional_usd: 250_000, tenor_days: 7 }, client.rate);
    expect(asRecord(cell.value).carry_usdc).toBeCloseTo(q7.carry.total_usdc + 2 * q1.carry.total_usdc, 6);
    await advance(5_000); // the quotes' interval: each question asked once more, for both cells
    expect(client.count("quote")).toBe(4);
  });

  test("the cell removed: no more quotes asked", async () => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "buy", 100_000, 30, 3, undefined, undefined, undefined, cell as never);
    await advance();
    expect(client.count("quote")).toBe(1); // 30 days at 3: ten 3-day hedges, one question
    expect(asRecord(cell.value).hedges).toBe(10);
    cell.cancel();
    await advance(60_000);
    expect(client.count("quote")).toBe(1);
  });

  test("a quote refused shows its error", async () => {
    const { client, advance } = installFeeds();
    client.failAlways("quote", apiError("validation_error", 400, "notional_usd too large"));
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "buy", 100_000, 10, 7, undefined, undefined, undefined, cell as never);
    await advance();
    expect(cell.error).toMatchObject({ code: "#VALUE!", message: "validation_error: notional_usd too large" });
  });

  test("a notional above the side's available capacity or the account's headroom is named in a warning row, after the figures", async () => {
    const { client, advance } = installFeeds();
    roomFor(client, 5_000_000);
    client.markets_ = client.markets_.map((m) => ({ ...m, available_capacity_usd: { buy: 1_000_000, sell: 5_000_000 } }));
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "buy", 5_000_000, 90, 7, undefined, undefined, undefined, cell as never);
    await advance();
    expect(cell.value.slice(0, ROLLCOST_LABELS.length).map((r) => r[0])).toEqual([...ROLLCOST_LABELS]);
    expect(cell.value.slice(ROLLCOST_LABELS.length)).toEqual([
      [
        "warning",
        "notional_usd 5,000,000.00 is above USDTNGN buy's available capacity 1,000,000.00 (GET /markets): the first Open of it would be refused (exposure_exceeded): lower the notional, or hedge part of it.",
      ],
    ]);
    client.account_ = { ...client.account_, available_exposure_usd: 4_000_000 };
    await advance(5_000);
    expect(cell.value.slice(ROLLCOST_LABELS.length).map((r) => String(r[1]).split(" (")[0])).toEqual([
      "notional_usd 5,000,000.00 is above USDTNGN buy's available capacity 1,000,000.00",
      "notional_usd 5,000,000.00 is above the account's available exposure 4,000,000.00",
    ]);
  });

  test("Max trade: each hedge priced as its Open and Adds trade, one question per piece size", async () => {
    const { client, advance } = installFeeds();
    roomFor(client, 5_000_000);
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "buy", 2_500_000, 10, 7, undefined, undefined, 1_000_000, cell as never);
    await advance();
    const q = (usd: number, t: 7 | 3) => quoteFor({ market: "USDTNGN", side: "buy", notional_usd: usd, tenor_days: t }, client.rate);
    const r = asRecord(cell.value);
    expect(r.hedges).toBe(2);
    const impact = [7, 3].reduce(
      (sum, t) => sum + 2 * q(1_000_000, t as 7).pricing.price_impact_usd + q(500_000, t as 7).pricing.price_impact_usd,
      0,
    );
    expect(r.price_impact_usd).toBeCloseTo(impact, 6);
    expect(
      client.calls
        .filter((c) => c.method === "quote")
        .map((c) => `${quoteArgs(c).tenor_days}|${quoteArgs(c).notional_usd}`)
        .sort(),
    ).toEqual(["3|1000000", "3|500000", "7|1000000", "7|500000"]);
  });

  test("early, Roll within 2: each hedge closed 2 h before its maturity, its carry for the time held, the exit impact added", async () => {
    const { client, advance } = installFeeds();
    roomFor(client, 1_000_000);
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "buy", 1_000_000, 30, 7, "early", 2, undefined, cell as never);
    await advance();
    const r = asRecord(cell.value);
    // Looked at hourly: four 7-day hedges each closed at the first look inside 2 h of its maturity (held 167 h), two 1-day
    // ones (23 h), and the last 1-day hedge closed at the value date (6 h).
    expect([r.hedges, r.tenors, r.early_closes]).toEqual([7, "7d × 4 + 1d × 3", 7]);
    const q = (t: 7 | 1) => quoteFor({ market: "USDTNGN", side: "buy", notional_usd: 1_000_000, tenor_days: t }, client.rate);
    const carry = q(7).carry.total_usdc * ((4 * 167) / 168) + q(1).carry.total_usdc * ((23 + 23 + 6) / 24);
    expect(r.carry_usdc).toBeCloseTo(carry, 4);
    expect(r.exit_impact_usd).toBeCloseTo(4 * q(7).pricing.price_impact_usd + 3 * q(1).pricing.price_impact_usd, 6);
    const atMaturity = new FakeInvocation<Spill>();
    fn.rollcost("USDTNGN", "buy", 1_000_000, 30, 7, "at maturity", undefined, undefined, atMaturity as never);
    await advance();
    expect([
      asRecord(atMaturity.value).hedges,
      asRecord(atMaturity.value).early_closes,
      asRecord(atMaturity.value).exit_impact_usd,
    ]).toEqual([6, 0, 0]);
  });

  test.each([
    [["USDTNGN", "buy", 10_000, 30, 7, "sometimes"], /roll must be "at maturity" or "early"/],
    [["USDTNGN", "buy", 10_000, 30, 7, "early", 25], /roll_within_hours must be hours from 0 to 24/],
    [["USDTNGN", "buy", 10_000, 30, 7, "early", 2, -5], /max_trade_usd must be a number of USD greater than 0/],
    // Below a cent: it rounded to 0.00 and the split never ended (the runtime hung); now refused before anything is asked.
    [
      ["USDTNGN", "buy", 10_000, 30, 7, "early", 2, 0.001],
      /max_trade_usd must be at least 0\.01 USD \(amounts are sent to the cent\); got 0\.001/,
    ],
    [
      ["USDTNGN", "buy", 1_000_000, 30, 7, "early", 2, 0.01],
      /max_trade_usd 0\.01 USD would split 1,000,000\.00 USD into 100,000,000 trades; at most 1,000 are made: raise max_trade_usd to at least 1,000\.00 USD/,
    ],
  ])("new arguments checked: %j", async (args, message) => {
    const { advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    const [m, s, n, d, t, roll, w, max] = args as [string, string, number, number, number, string, number, number];
    fn.rollcost(m, s, n, d, t, roll, w, max, cell as never);
    await advance();
    expect(cell.error).toMatchObject({ code: "#VALUE!" });
    expect(cell.error.message).toMatch(message);
  });

  test.each([
    [["USDTNGN", "hold", 10_000, 30, 7], /side must be "buy" or "sell"/],
    [["USDTNGN", "buy", 0, 30, 7], /notional_usd must be a number of USD greater than 0/],
    [["USDTNGN", "buy", 10_000, 0, 7], /days must be a whole number of days from 1 to 3650; got 0/],
    [["USDTNGN", "buy", 10_000, 2.5, 7], /days must be a whole number/],
    [["USDTNGN", "buy", 10_000, 3651, 7], /days must be a whole number/],
    [["USDTNGN", "buy", 10_000, "", 7], /days is required/],
    [["USDTNGN", "buy", 10_000, 30, 5], /tenor_days must be one of 1, 3, 7/],
  ])("bad arguments %j are #VALUE! before anything is sent", async (args, message) => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    const [m, s, n, d, t] = args as [string, string, number, number, number];
    fn.rollcost(m, s, n, d, t, undefined, undefined, undefined, cell as never);
    await advance();
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(message);
    expect(client.count()).toBe(0);
  });
});

describe("rollCost of hedges closed early: what each costs and what the close's exit impact adds", () => {
  it("carry for the share held, the exit impact of the whole position at each early close, counted apart and in the total", () => {
    const quotes = (tenor: number, usd: number) => ({
      upfront: { platform_fee_usdc: 10 + tenor },
      carry: { total_usdc: 100 * tenor },
      pricing: { price_impact_usd: usd === 1_000 ? -3 : -1 },
    });
    const cost = rollCost(1_000, 10, [{ tenor: 7, heldFraction: 0.25, closedEarly: true }, 3], quotes as never, 500);
    // Fees: 2 pieces × (17 + 13); carry: 700 × 0.25 × 2 + 300 × 2; entry impact: −1 × 4; exit: −3 at the one early close.
    expect(cost).toEqual({
      hedges: 2,
      tenors: "7d × 1 + 3d × 1",
      feesUsdc: 60,
      carryUsdc: 950,
      priceImpactUsd: -7,
      totalUsd: 1_017,
      yearlyRate: (1_017 / 1_000 / 10) * 365,
      earlyCloses: 1,
      exitImpactUsd: -3,
    });
  });
});
