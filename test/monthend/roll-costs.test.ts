// Month end's price of the rolls as plain functions (issue 39 item 9): the quotes it asks (each early end's exit, each side's program), each end's cost from its records and quotes, each side's program beside ROLLCOST's figure, and what is not known without a quote.
import type { QuoteRequest } from "../../src/api/schemas";
import { reconcile } from "../../src/monthend/reconcile";
import { costQuestions, priceRolls } from "../../src/monthend/roll-costs";
import { deskProgram, rollCost } from "../../src/policy/rollcost";
import { closed, hedge, monthData } from "../support/builders";

/** Fee 0.1 % of the size, carry 0.01 % a day, impact −(size ÷ 1,000 + tenor): each question told apart. */
const quote = (q: Pick<QuoteRequest, "notional_usd" | "tenor_days">) => ({
  upfront: { platform_fee_usdc: q.notional_usd * 0.001 },
  carry: { total_usdc: q.notional_usd * 0.0001 * q.tenor_days },
  pricing: { price_impact_usd: -(q.notional_usd / 1000 + q.tenor_days) },
});

// Buy: h1 (3 days) settled at maturity, h2 (7 days) an hour later, reduced by 40,000 then closed early and rolled at once
// into h3 (1 day, still open). Sell: s1 (1 day) closed, nothing after. USDTKES: x1, known from its record only.
const history = [
  closed({ hedge_id: "h1", opened_at: "2026-11-02T09:00:00.000Z", closed_at: "2026-11-05T09:00:00.000Z", exit_type: "maturity" }),
  closed({
    hedge_id: "h2",
    size_usd: 40_000,
    fees_usd: 40,
    carry_usd: -5,
    opened_at: "2026-11-05T10:00:00.000Z",
    closed_at: "2026-11-06T10:00:00.000Z",
    exit_type: "decrease",
  }),
  closed({
    hedge_id: "h2",
    size_usd: 60_000,
    fees_usd: 60,
    carry_usd: -10,
    opened_at: "2026-11-05T10:00:00.000Z",
    closed_at: "2026-11-08T10:00:00.000Z",
    exit_type: "close",
  }),
  closed({
    hedge_id: "s1",
    side: "sell",
    size_usd: 50_000,
    fees_usd: 50,
    carry_usd: 2.5,
    opened_at: "2026-11-09T00:00:00.000Z",
    closed_at: "2026-11-11T18:00:00.000Z",
    exit_type: "close",
  }),
  closed({
    hedge_id: "x1",
    market: "USDTKES",
    size_usd: 10_000,
    fees_usd: 10,
    carry_usd: -1,
    opened_at: "2026-11-20T00:00:00.000Z",
    closed_at: "2026-11-23T00:00:00.000Z",
    exit_type: "maturity",
  }),
];
const hedges = [
  hedge({ id: "h1", tenor_days: 3, opened_at: "2026-11-02T09:00:00.000Z", filled_at: "2026-11-02T09:00:02.000Z" }),
  hedge({ id: "h2", tenor_days: 7, opened_at: "2026-11-05T10:00:00.000Z", filled_at: "2026-11-05T10:00:02.000Z", notional_usd: 60_000 }),
  hedge({ id: "h3", tenor_days: 1, status: "filled", opened_at: "2026-11-08T10:00:05.000Z", filled_at: "2026-11-08T10:00:06.000Z" }),
  hedge({
    id: "s1",
    side: "sell",
    tenor_days: 1,
    notional_usd: 50_000,
    opened_at: "2026-11-09T00:00:00.000Z",
    filled_at: "2026-11-09T00:00:01.000Z",
  }),
];
const recon = () => reconcile(monthData({ history, hedges }));
const ask = (market: string, side: "buy" | "sell", notional_usd: number, tenor_days: 1 | 3 | 7): QuoteRequest => ({
  market,
  side,
  notional_usd,
  tenor_days,
});

test("the quotes asked: each early end's exit (its ending size, its tenor), each side's program at its first size, each once", () => {
  const buyProgram = deskProgram(6, 7, "early").map((h) => h.tenor);
  const sellProgram = deskProgram(3, 1, "at maturity").map((h) => h.tenor);
  const keyed = (qs: QuoteRequest[]) => qs.map((q) => `${q.market} ${q.side} ${q.notional_usd} ${q.tenor_days}`).sort();
  expect(keyed(costQuestions(recon()))).toEqual(
    keyed([
      ask("USDTNGN", "buy", 60_000, 7),
      ask("USDTNGN", "sell", 50_000, 1),
      ...[...new Set(buyProgram)].map((t) => ask("USDTNGN", "buy", 100_000, t)),
      ...[...new Set(sellProgram)].map((t) => ask("USDTNGN", "sell", 50_000, t)),
      ...deskProgram(3, 7, "at maturity").map((h) => ask("USDTKES", "buy", 10_000, h.tenor)), // a maturity: no exit asked
    ]).filter((k, i, all) => all.indexOf(k) === i),
  );
});

test("each end's cost: its month's records' fees and carry (paid positive), an early end's exit from its quote, 0 at maturity", () => {
  const r = recon();
  const { sideTime } = priceRolls(r, quote);
  expect(sideTime.map((e) => [e.market, e.side, e.hedgeId, e.kind, e.cost])).toEqual([
    ["USDTKES", "buy", "x1", "unhedged", { sizeUsd: 10_000, feesUsd: 10, carryUsd: 1, exitImpactUsd: 0, costUsd: 11 }],
    ["USDTNGN", "buy", "h1", "roll", { sizeUsd: 100_000, feesUsd: 100, carryUsd: 20, exitImpactUsd: 0, costUsd: 120 }],
    // 40 + 60 of fees, 5 + 10 of carry; the exit of 60,000 at 7 days: 60 + 7
    ["USDTNGN", "buy", "h2", "roll", { sizeUsd: 60_000, feesUsd: 100, carryUsd: 15, exitImpactUsd: 67, costUsd: 182 }],
    // earned carry is a negative cost; the exit of 50,000 at 1 day: 50 + 1
    ["USDTNGN", "sell", "s1", "unhedged", { sizeUsd: 50_000, feesUsd: 50, carryUsd: -2.5, exitImpactUsd: 51, costUsd: 98.5 }],
  ]);
  // The gap and the rest of each event stay as side-time made them.
  expect(sideTime.map(({ cost: _c, ...e }) => e)).toEqual(r.sideTime);
});

test("each side's program beside ROLLCOST's fees + carry + exit impact for its side, first size, stretch, longest tenor and mode", () => {
  const { programs } = priceRolls(recon(), quote);
  const quoted = (notional: number, days: number, tenor: 1 | 3 | 7, mode: "early" | "at maturity") => {
    const c = rollCost(notional, days, deskProgram(days, tenor, mode), (t, usd) => quote({ notional_usd: usd, tenor_days: t }));
    return c.feesUsdc + c.carryUsdc - c.exitImpactUsd;
  };
  expect(programs.map((p) => ({ ...p, quotedUsd: Math.round(p.quotedUsd! * 100) }))).toEqual([
    {
      market: "USDTKES",
      side: "buy",
      hedges: 1,
      fromMs: Date.parse("2026-11-20T00:00:00.000Z"), // known from its record only: its opening
      toMs: Date.parse("2026-11-23T00:00:00.000Z"),
      days: 3,
      notionalUsd: 10_000,
      tenor: 7, // no tenor known
      mode: "at maturity",
      realizedUsd: 11,
      quotedUsd: Math.round(quoted(10_000, 3, 7, "at maturity") * 100),
      quotedHedges: deskProgram(3, 7, "at maturity").length,
    },
    {
      market: "USDTNGN",
      side: "buy",
      hedges: 2,
      fromMs: Date.parse("2026-11-02T09:00:02.000Z"),
      toMs: Date.parse("2026-11-08T10:00:00.000Z"),
      days: 6, // 6 days and an hour, rounded
      notionalUsd: 100_000,
      tenor: 7,
      mode: "early", // h2 closed before its maturity and rolled
      realizedUsd: 302,
      quotedUsd: Math.round(quoted(100_000, 6, 7, "early") * 100),
      quotedHedges: deskProgram(6, 7, "early").length,
    },
    {
      market: "USDTNGN",
      side: "sell",
      hedges: 1,
      fromMs: Date.parse("2026-11-09T00:00:01.000Z"),
      toMs: Date.parse("2026-11-11T18:00:00.000Z"),
      days: 3, // 2 days and 18 hours, rounded
      notionalUsd: 50_000,
      tenor: 1,
      mode: "at maturity", // closed early but not rolled: a paid-up side, no early roll
      realizedUsd: 98.5,
      quotedUsd: Math.round(quoted(50_000, 3, 1, "at maturity") * 100),
      quotedHedges: 3,
    },
  ]);
  expect(quoted(100_000, 6, 7, "early")).not.toBe(quoted(100_000, 6, 7, "at maturity"));
});

test("a quote missing: the exit and the costs that need it not known; ROLLCOST's figure not known when one of its quotes is missing", () => {
  const noExit = priceRolls(recon(), (q) => (q.notional_usd === 60_000 ? null : quote(q)));
  const h2 = noExit.sideTime.find((e) => e.hedgeId === "h2")!;
  expect(h2.cost).toEqual({ sizeUsd: 60_000, feesUsd: 100, carryUsd: 15, exitImpactUsd: null, costUsd: null });
  const buy = noExit.programs.find((p) => p.market === "USDTNGN" && p.side === "buy")!;
  expect(buy.realizedUsd).toBeNull();
  expect(buy.quotedUsd).not.toBeNull();
  const noProgram = priceRolls(recon(), (q) => (q.notional_usd === 100_000 ? null : quote(q)));
  expect(noProgram.programs.find((p) => p.market === "USDTNGN" && p.side === "buy")?.quotedUsd).toBeNull();
  expect(noProgram.programs.find((p) => p.side === "sell")?.quotedUsd).not.toBeNull();
  // Every quote missing: maturities still cost their records, with no exit to price.
  const none = priceRolls(recon(), () => null);
  expect(none.sideTime.find((e) => e.hedgeId === "h1")?.cost?.costUsd).toBe(120);
});

test("a tenor of 3 or 1 read as such; an end with no record of the month costs 0 and asks nothing for its size", () => {
  // h9 closed by the list alone (no record): size 0, no exit question, a program without a notional is not quoted.
  const lone = reconcile(
    monthData({
      history: [],
      hedges: [hedge({ id: "h9", tenor_days: 3, status: "closed" })],
    }),
  );
  // Without a record the service's list does not say when it closed: nothing ended in the month.
  expect(lone.sideTime).toEqual([]);
  const r = recon();
  const event = r.sideTime.find((e) => e.hedgeId === "h1")!;
  const bare = { ...r, realized: [], sideTime: [{ ...event, endedBy: "close" }] };
  expect(costQuestions(bare)).toEqual([]);
  const priced = priceRolls(bare, quote);
  expect(priced.sideTime[0].cost).toEqual({ sizeUsd: 0, feesUsd: 0, carryUsd: 0, exitImpactUsd: 3, costUsd: 3 });
  expect(priced.programs[0]).toMatchObject({ notionalUsd: 0, quotedUsd: null, tenor: 3, realizedUsd: 3 });
});

test("a hedge ended by a reduction that took it whole: an early end, its exit priced at its size", () => {
  const r = reconcile(
    monthData({
      history: [
        closed({
          hedge_id: "y1",
          size_usd: 20_000,
          fees_usd: 20,
          carry_usd: -2,
          opened_at: "2026-11-12T00:00:00.000Z",
          closed_at: "2026-11-13T00:00:00.000Z",
          exit_type: "decrease",
        }),
      ],
      hedges: [hedge({ id: "y1", tenor_days: 3, notional_usd: 20_000, opened_at: "2026-11-12T00:00:00.000Z", filled_at: null })],
    }),
  );
  expect(r.sideTime.map((e) => [e.hedgeId, e.endedBy])).toEqual([["y1", "decrease"]]);
  expect(costQuestions(r)).toContainEqual(ask("USDTNGN", "buy", 20_000, 3));
  const { sideTime, programs } = priceRolls(r, quote);
  expect(sideTime[0].cost).toEqual({ sizeUsd: 20_000, feesUsd: 20, carryUsd: 2, exitImpactUsd: 23, costUsd: 45 });
  expect(programs[0]).toMatchObject({ notionalUsd: 20_000, days: 1, tenor: 3, mode: "at maturity", realizedUsd: 45 });
});
