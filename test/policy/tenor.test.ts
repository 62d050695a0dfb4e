// The tenor rule (an Open's tenor before a value date, a program's hedges), the roll window, and the program's cost summed from one quote per tenor.
import type { Tenor } from "../../src/api/schemas";
import { deskProgram, quoteKey, rollCost, rollOnce, tradePieces, type QuoteCosts } from "../../src/policy/rollcost";
import { DAY_MS, HOUR_MS, programTenors, rollDue, ROLL_WITHIN_DEFAULT_HOURS, tenorFor } from "../../src/policy/tenor";

describe("tenorFor: the longest of 1, 3 and 7 days, at most the policy's, that ends on or before the date", () => {
  test.each<[Tenor, number | null, Tenor]>([
    [7, null, 7],
    [3, null, 3],
    [7, 30 * DAY_MS, 7],
    [7, 7 * DAY_MS, 7], // ends exactly on the date: on or before
    [7, 7 * DAY_MS - 1, 3],
    [7, 3 * DAY_MS, 3],
    [7, 3 * DAY_MS - 1, 1],
    [7, DAY_MS, 1],
    [7, DAY_MS - 1, 1], // even 1 day ends after it: 1
    [7, 0, 1],
    [3, 30 * DAY_MS, 3], // never longer than the policy's
    [1, 30 * DAY_MS, 1],
    [3, 2 * DAY_MS, 1],
  ])("policy %i d, %p ms left → %i d", (policy, left, expected) => {
    expect(tenorFor(policy, left)).toBe(expected);
  });
});

describe("programTenors: each hedge held to maturity, the next by the tenor rule over the days left", () => {
  test.each<[number, Tenor, Tenor[]]>([
    [10, 7, [7, 3]],
    [9, 7, [7, 1, 1]],
    [7, 7, [7]],
    [1, 7, [1]],
    [2, 7, [1, 1]],
    [6, 7, [3, 3]],
    [14, 7, [7, 7]],
    [10, 3, [3, 3, 3, 1]],
    [3, 1, [1, 1, 1]],
  ])("%i days at %i → %j", (days, tenor, expected) => {
    expect(programTenors(days, tenor)).toEqual(expected);
  });

  test("90 days at 7: 12 × 7 then 3 + 3; the days add up", () => {
    const t = programTenors(90, 7);
    expect(t).toEqual([...Array<Tenor>(12).fill(7), 3, 3]);
    expect(t.reduce((a, b) => a + b, 0)).toBe(90);
  });

  test.each([0, -1, 2.5, NaN])("%p days is refused", (days) => {
    expect(() => programTenors(days, 7)).toThrow(/days must be a whole number of days, 1 or more/);
  });
});

describe("rollDue: maturing before as_of + Roll within", () => {
  const asOf = Date.UTC(2026, 10, 29, 17);
  test.each<[string, number, number, boolean]>([
    ["12 h ahead, window 24 h", asOf + 12 * HOUR_MS, 24, true],
    ["exactly 24 h ahead is outside (a 1-day hedge just opened is not rolled)", asOf + 24 * HOUR_MS, 24, false],
    ["a millisecond inside", asOf + 24 * HOUR_MS - 1, 24, true],
    ["already past, not yet settled", asOf - HOUR_MS, 24, true],
    ["window 0: only what is already past", asOf, 0, false],
    ["window 2 h, 3 h ahead", asOf + 3 * HOUR_MS, 2, false],
  ])("%s", (_name, maturity, hours, expected) => {
    expect(rollDue(maturity, asOf, hours)).toBe(expected);
  });
  test("the default window is 24 hours", () => expect(ROLL_WITHIN_DEFAULT_HOURS).toBe(24));
});

describe("rollCost: each figure is the sum over the hedges of its tenor's quote field", () => {
  const quote = (fee: number, carry: number, impact: number): QuoteCosts => ({
    upfront: { platform_fee_usdc: fee },
    carry: { total_usdc: carry },
    pricing: { price_impact_usd: impact },
  });
  const quotes: Record<Tenor, QuoteCosts> = { 7: quote(10.1, 70.7, -5.05), 3: quote(10.1, 30.3, -5.05), 1: quote(10.1, 10.1, -5.05) };

  test("10 days at 7: a 7-day and a 3-day hedge", () => {
    const asked: Tenor[] = [];
    const c = rollCost(1_000_000, 10, [7, 3], (t) => (asked.push(t), quotes[t]));
    expect(asked).toEqual([7, 3]);
    expect(c).toEqual({
      hedges: 2,
      tenors: "7d × 1 + 3d × 1",
      feesUsdc: 20.2,
      carryUsdc: 101,
      priceImpactUsd: -10.1,
      totalUsd: 131.3, // 20.20 + 101.00 − (−10.10)
      yearlyRate: (131.3 / 1_000_000 / 10) * 365,
      earlyCloses: 0,
      exitImpactUsd: 0,
    });
  });

  test("one quote per distinct tenor, however many hedges; sums exact to the micro-USDC", () => {
    const asked: Tenor[] = [];
    const tenors = programTenors(90, 7);
    const c = rollCost(5_000_000, 90, tenors, (t) => (asked.push(t), quote(0.1, 0.2, 0.3)));
    expect(asked).toEqual([7, 3]);
    expect(c.hedges).toBe(14);
    expect(c.tenors).toBe("7d × 12 + 3d × 2");
    expect(c.feesUsdc).toBe(1.4);
    expect(c.carryUsdc).toBe(2.8);
    expect(c.priceImpactUsd).toBe(4.2);
    expect(c.totalUsd).toBe(0); // an impact in your favour offsets fees and carry
    expect(c.yearlyRate).toBe(0);
  });

  test("carry received (negative) lowers the total", () => {
    const c = rollCost(100_000, 1, [1], () => quote(5, -8, 0));
    expect(c.totalUsd).toBe(-3);
    expect(c.yearlyRate).toBeCloseTo((-3 / 100_000) * 365, 12);
  });
});

test("rollCost lists the tenors longest first, whatever order the hedges come in", () => {
  const q = { upfront: { platform_fee_usdc: 1 }, carry: { total_usdc: 1 }, pricing: { price_impact_usd: 0 } };
  expect(rollCost(1_000, 9, [1, 7, 1], () => q).tenors).toBe("7d × 1 + 1d × 2");
});

describe("deskProgram: the hedges as the desk runs them", () => {
  const brief = (days: number, roll: "at maturity" | "early", w: number, tenor: Tenor = 7) =>
    deskProgram(days, tenor, roll, w).map(
      (h) => `${h.tenor}${h.closedEarly ? ` closed at ${Math.round(h.heldFraction * h.tenor * 24)} h` : ""}`,
    );
  test.each<[string, number, "at maturity" | "early", number, string[]]>([
    ["at maturity: the tenor rule's hedges, each held to maturity", 10, "at maturity", 24, ["7", "3"]],
    ["at maturity, any window: the same", 30, "at maturity", 2, ["7", "7", "7", "7", "1", "1"]],
    [
      "early, Roll within 2, looked at hourly: each closed at the first look inside 2 h of its maturity; the last 1-day hedge at the value date",
      30,
      "early",
      2,
      [
        "7 closed at 167 h",
        "7 closed at 167 h",
        "7 closed at 167 h",
        "7 closed at 167 h",
        "1 closed at 23 h",
        "1 closed at 23 h",
        "1 closed at 6 h",
      ],
    ],
    [
      "early, Roll within 24: no roll opens a 1-day hedge (inside its own window): the 3-day one before it is held to maturity",
      30,
      "early",
      24,
      ["7 closed at 145 h", "7 closed at 145 h", "7 closed at 145 h", "7 closed at 145 h", "3 closed at 49 h", "3", "1 closed at 19 h"],
    ],
    ["early, Roll within 0: nothing closed before its maturity", 30, "early", 0, ["7", "7", "7", "7", "1", "1"]],
  ])("%s", (_name, days, roll, w, expected) => {
    expect(brief(days, roll, w)).toEqual(expected);
  });

  test("looked at every 4 hours with Roll within 2: no look falls inside a window before its maturity, so each hedge settles", () => {
    expect(deskProgram(30, 7, "early", 2, 4 * 3_600_000).map((h) => [h.tenor, h.closedEarly])).toEqual([
      [7, false],
      [7, false],
      [7, false],
      [7, false],
      [1, false],
      [1, false],
    ]);
  });

  test("Max trade's pieces: the full ones first, the remainder last; no Max trade: one", () => {
    expect(tradePieces(2_500_000, 1_000_000)).toEqual([1_000_000, 1_000_000, 500_000]);
    expect(tradePieces(2_500_000.01, null)).toEqual([2_500_000.01]);
  });
});

describe("rollOnce: one roll as rollCost prices each roll of a program (the overview's plan)", () => {
  const quoteOf = (t: Tenor, usd: number): QuoteCosts => ({
    upfront: { platform_fee_usdc: usd * 0.001 },
    carry: { total_usdc: usd * 0.0001 * t },
    pricing: { price_impact_usd: -(usd / 1000 + t) },
  });

  test("at maturity: the next hedge held to its maturity, exactly rollCost of that one hedge (split by Max trade)", () => {
    expect(rollOnce(600_000, 3, "at maturity", quoteOf, 250_000)).toEqual(rollCost(600_000, 3, [3], quoteOf, 250_000));
  });

  test("early: the whole position's exit impact at the exit tenor added, one early close, the yearly rate over the next tenor", () => {
    const next = rollCost(600_000, 3, [3], quoteOf);
    const c = rollOnce(600_000, 3, "early", quoteOf, null, 7);
    // exit: −(600 + 7) at the exit tenor of 7
    expect(c).toEqual({
      ...next,
      priceImpactUsd: next.priceImpactUsd - 607,
      totalUsd: next.totalUsd + 607,
      yearlyRate: ((next.totalUsd + 607) / 600_000 / 3) * 365,
      earlyCloses: 1,
      exitImpactUsd: -607,
    });
    // The exit tenor is the next tenor unless told.
    expect(rollOnce(600_000, 3, "early", quoteOf).exitImpactUsd).toBe(-603);
  });

  test("a quote's question as one key", () => {
    expect(quoteKey({ market: "USDTNGN", side: "buy", notional_usd: 1_000.5, tenor_days: 7 })).toBe("USDTNGN|buy|1000.5|7");
  });
});
