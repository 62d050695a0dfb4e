// HEDGE.ROLLCOST through fake invocations: the spill summed from one quote per tenor, those quotes shared with HEDGE.QUOTE's cells, nothing asked once the cell is gone, bad arguments as #VALUE!.
import { FakeInvocation, installFeeds } from "./fake-invocation";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { ROLLCOST_LABELS } from "../../src/functions/rollcost";
import { apiError, quoteFor } from "../feeds/fake-client";

type Spill = unknown[][];
const asRecord = (spill: Spill) => Object.fromEntries(spill.map(([k, v]) => [k, v]));
const quoteArgs = (c: { args: unknown[] }) => c.args[0] as { tenor_days: number; notional_usd: number };

describe("HEDGE.ROLLCOST", () => {
  test("10 days at 7: a 7-day and a 3-day hedge, each figure its quote's field summed, one POST /quotes per tenor", async () => {
    const { client, advance } = installFeeds();
    const cell = new FakeInvocation<Spill>();
    fn.rollcost("usdtngn", "BUY", 1_000_000, 10, undefined, cell as never);
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
    fn.rollcost("USDTNGN", "sell", 250_000, 9, 7, cell as never);
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
    fn.rollcost("USDTNGN", "buy", 100_000, 30, 3, cell as never);
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
    fn.rollcost("USDTNGN", "buy", 100_000, 10, 7, cell as never);
    await advance();
    expect(cell.error).toMatchObject({ code: "#VALUE!", message: "validation_error: notional_usd too large" });
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
    fn.rollcost(m, s, n, d, t, cell as never);
    await advance();
    expect(cell.error.code).toBe("#VALUE!");
    expect(cell.error.message).toMatch(message);
    expect(client.count()).toBe(0);
  });
});
