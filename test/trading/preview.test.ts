// The preview on its own, over a small fake service: which rows it blocks and why (word for word), which it warns about, the quotes it asks (one per question), the positions, notionals before and limit checks it shows, duplicates, a cancel. Sends nothing.
import { buildPreview, type PreviewContext } from "../../src/trading/preview";
import { HedgingApiError } from "../../src/api/errors";
import { OPEN_LOOKUP_SCOPE } from "../../src/trading/fills";
import type { HedgingClient } from "../../src/api/client";
import type { Hedge, Market, Position } from "../../src/api/schemas";
import type { LogQuery, LogRecord } from "../../src/trading/log/hedge-log";
import type { BatchAction, Preview, TradeRow } from "../../src/trading/types";
import { intentFromRow, intentToLogRecord } from "../../src/trading/intent";
import { account as exampleAccount, hedge as exampleHedge, position as examplePosition, quote as exampleQuote } from "../support/examples";

const NOW = new Date("2026-11-23T12:00:00.000Z");
const ACCOUNT = exampleAccount.account_address;

const row = (over: Partial<TradeRow> = {}): TradeRow => ({
  rowNumber: 2,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 100_000,
  tenor: 7,
  clientReference: "D-1",
  ...over,
});
const hedge = (over: Partial<Hedge> = {}): Hedge => ({ ...(exampleHedge as Hedge), ...over });
const position = (over: Partial<Position> = {}): Position => ({ ...(examplePosition as Position), ...over });
const market = (over: Partial<Market> = {}): Market =>
  ({
    market: "USDTNGN",
    status: "open",
    price: 1500,
    available_capacity_usd: { buy: 1_000_000, sell: 800_000 },
    net_rate_daily_pct: { buy: 0, sell: 0 },
    ...over,
  }) as Market;

interface World {
  hedges?: Hedge[];
  positions?: Position[];
  markets?: Market[];
  balance?: number;
  headroom?: number;
  /** The quote's total upfront and carry per question, by notional (default 1 % and 0.1 % of it). */
  quoteFails?: (notional: number) => Error | null;
  log?: LogRecord[];
  busy?: Map<string, { reason: string; blocking: boolean }>;
  /** Hedge lists longer than the lookup reads (every page full). */
  endless?: boolean;
}

function setup(w: World = {}) {
  const quotes: Array<{ market: string; side: string; notional_usd: number; tenor_days: number }> = [];
  const logQueries: LogQuery[] = [];
  let positionReads = 0;
  const client = {
    account: async () => ({
      data: { ...exampleAccount, balance_usdc: w.balance ?? 1_000_000, available_exposure_usd: w.headroom ?? 10_000_000 },
      meta: {},
    }),
    markets: async () => ({ data: w.markets ?? [market()], meta: {} }),
    positions: async () => {
      positionReads++;
      return { data: w.positions ?? [], meta: {} };
    },
    list: async (q: { status: string; limit: number; starting_after?: string }) => {
      if (w.endless) {
        const page = Number(q.starting_after?.split("-")[1] ?? -1) + 1;
        return {
          data: Array.from({ length: q.limit }, (_, i) => hedge({ id: `e-${page}-${i}`, market: `M${page}X${i}`, status: "filled" })),
          meta: {},
        };
      }
      return { data: (w.hedges ?? []).filter((h) => h.status === q.status), meta: {} };
    },
    quote: async (body: { market: string; side: string; notional_usd: number; tenor_days: number }) => {
      quotes.push(body);
      const failure = w.quoteFails?.(body.notional_usd);
      if (failure) throw failure;
      return {
        data: {
          ...exampleQuote,
          ...body,
          carry: { ...exampleQuote.carry, total_usdc: body.notional_usd / 1000 },
          // Impact and fee by size and tenor, so a roll's exit quote is told from its Open's.
          pricing: { ...exampleQuote.pricing, price_impact_usd: -(body.notional_usd / 10_000) * (1 + body.tenor_days / 100) },
          upfront: { ...exampleQuote.upfront, total_upfront_usdc: body.notional_usd / 100, platform_fee_usdc: body.notional_usd / 2_000 },
        },
        meta: {},
      };
    },
  } as unknown as HedgingClient;
  const ctx: PreviewContext = {
    client,
    environment: "sandbox",
    account: ACCOUNT,
    readLog: async (q) => {
      logQueries.push(q);
      return w.log ?? [];
    },
    known: () => [],
    busySides: () => w.busy ?? new Map(),
    concurrency: 2,
    now: () => NOW,
  };
  return { ctx, quotes, logQueries, positionReads: () => positionReads };
}

const preview = (w: World, action: BatchAction, rows: TradeRow[], ctx = setup(w).ctx) => buildPreview(ctx, action, rows);
const blockers = (p: Preview) => p.lines.map((l) => l.blockers);

describe("rows the preview blocks, and why", () => {
  it("a row read for another action is refused before anything is asked", async () => {
    const s = setup();
    await expect(buildPreview(s.ctx, "open", [row(), row({ rowNumber: 3, action: "add", tenor: null })])).rejects.toThrow(
      "Row 3 was read for add, not open: read the rows again for open.",
    );
    expect(s.quotes).toEqual([]);
  });

  it("an Open where a hedge is open, a second Open of a side, an Add with no hedge: each says what to use instead", async () => {
    const p = await preview({ hedges: [hedge({ id: "h-buy" })] }, "column", [
      row({ rowNumber: 2 }),
      row({ rowNumber: 3, side: "sell" }),
      row({ rowNumber: 4, side: "sell" }),
      row({ rowNumber: 5, action: "add", side: "sell", notional: 5_000, tenor: null }),
      row({ rowNumber: 6, action: "add", market: "USDTKES", tenor: null }),
    ]);
    expect(blockers(p)).toEqual([
      ["A hedge is already open on USDTNGN buy (h-buy): use Add to grow it."],
      [],
      ["Row 3 already opens USDTNGN sell: one hedge per market and side — use Add for more."],
      [],
      ["Market USDTKES is not available to this account: use USDTNGN.", "No open hedge on USDTKES buy: use Open first."],
    ]);
    // The Add behind the batch's Open is quoted at that Open's tenor; the blocked rows are not quoted.
    expect(p.quoteRequests).toBe(2);
  });

  it("a roll (Close, then Open of the side) frees the side for the Open; its Add is quoted at the Open's tenor, not the closed hedge's", async () => {
    const s = setup({ hedges: [hedge({ id: "h-old", tenor_days: 1 })], positions: [position({ size_usd: 10_000 })] });
    const p = await buildPreview(s.ctx, "column", [
      row({ rowNumber: 2, action: "close", notional: null, tenor: null }),
      row({ rowNumber: 3, tenor: 7 }),
      row({ rowNumber: 4, action: "add", notional: 5_000, tenor: null }),
    ]);
    expect(blockers(p)).toEqual([[], [], []]);
    expect(s.quotes.map((q) => [q.notional_usd, q.tenor_days])).toEqual([
      [100_000, 7],
      [5_000, 7],
      [10_000, 1], // the roll's exit: the position at the closed hedge's tenor
    ]);
    expect(p.lines.map((l) => l.notionalBefore)).toEqual([10_000, null, 100_000]);
  });

  it("an Add to a side whose hedge is held is quoted at that hedge's tenor", async () => {
    const s = setup({ hedges: [hedge({ tenor_days: 3, notional_usd: 40_000 })] });
    const p = await buildPreview(s.ctx, "add", [row({ action: "add", notional: 5_000, tenor: null })]);
    expect(s.quotes).toEqual([{ market: "USDTNGN", side: "buy", notional_usd: 5_000, tenor_days: 3 }]);
    expect(p.lines[0].notionalBefore).toBe(40_000);
  });

  it("with hedge lists longer than the lookup reads, an Add with no hedge found is not told to Open, and nothing before is known", async () => {
    const p = await preview({ endless: true }, "add", [row({ action: "add", tenor: null })]);
    expect(blockers(p)).toEqual([[`No open hedge on USDTNGN buy ${OPEN_LOOKUP_SCOPE}: check the hedge on the service.`]]);
    expect(p.lines[0].notionalBefore).toBeNull();
  });

  it("a market not open is a warning; a side busy with a row blocks or warns as the desk says", async () => {
    const busy = new Map([
      ["USDTNGN|buy", { reason: "Waits for row 9.", blocking: true }],
      ["USDTNGN|sell", { reason: "Goes after row 8.", blocking: false }],
    ]);
    const p = await preview({ busy, markets: [market({ status: "paused" })] }, "open", [row(), row({ rowNumber: 3, side: "sell" })]);
    expect(blockers(p)).toEqual([["Waits for row 9."], []]);
    expect(p.lines.map((l) => l.warnings)).toEqual([
      ['Market USDTNGN reports status "paused".'],
      ['Market USDTNGN reports status "paused".', "Goes after row 8."],
    ]);
    const active = await preview({ markets: [market({ status: "active" })] }, "open", [row()]);
    expect(active.lines[0].warnings).toEqual([]);
  });

  it("no market at all: the sentence says to use a listed market", async () => {
    const p = await preview({ markets: [] }, "open", [row()]);
    expect(blockers(p)[0]).toEqual(["Market USDTNGN is not available to this account: use a listed market."]);
  });

  it("a market not listed: the sentence names every listed market, a comma between", async () => {
    const p = await preview({ markets: [market({ market: "USDTKES" }), market({ market: "USDTGHS" })] }, "open", [row()]);
    expect(blockers(p)[0]).toEqual(["Market USDTNGN is not available to this account: use USDTKES, USDTGHS."]);
  });

  it("an Add of a side the batch closes, with no Open of it before, has no hedge to add to: it is blocked and not quoted", async () => {
    const s = setup({ hedges: [hedge()], positions: [position({ size_usd: 10_000 })] });
    const p = await buildPreview(s.ctx, "column", [
      row({ rowNumber: 2, action: "close", notional: null, tenor: null }),
      row({ rowNumber: 3, action: "add", notional: 5_000, tenor: null }),
    ]);
    expect(blockers(p)).toEqual([[], ["No open hedge on USDTNGN buy: use Open first."]]);
    expect(s.quotes).toEqual([]);
  });

  it("a quote the service refuses blocks the rows that asked it, with the service's words, advice and code", async () => {
    const refusal = new HedgingApiError({ code: "market_not_allowed", status: 403, message: "Not for you." });
    // A code the add-in has no advice for: the service's words and the code alone.
    const plain = new HedgingApiError({ code: "quote_unavailable", status: 409, message: "No price now." });
    const failures = new Map<number, Error>([
      [100_000, refusal],
      [7, new Error("socket hang up")],
      [8, plain],
    ]);
    const markets = [market(), market({ market: "USDTKES" })];
    const p = await preview({ markets, quoteFails: (n) => failures.get(n) ?? null }, "open", [
      row(),
      row({ rowNumber: 3, side: "sell", notional: 7 }),
      row({ rowNumber: 4, market: "USDTNGN", side: "sell", notional: 50_000 }),
      row({ rowNumber: 5, market: "USDTKES", notional: 8 }),
    ]);
    expect(blockers(p)).toEqual([
      ["No quote: Not for you. This market is not enabled for the account. (market_not_allowed)"],
      ["No quote: socket hang up"],
      ["Row 3 already opens USDTNGN sell: one hedge per market and side — use Add for more."],
      ["No quote: No price now. (quote_unavailable)"],
    ]);
  });
});

describe("what is priced, and the checks", () => {
  it("rows asking the same question share one quote; totals add up the priced rows only", async () => {
    const s = setup();
    const p = await buildPreview(s.ctx, "open", [row({ rowNumber: 2, market: "USDTNGN" }), row({ rowNumber: 3, market: "USDTKES" })]);
    expect(s.quotes.length).toBe(1);
    expect(p.totals).toEqual({ rows: 2, priced: 1, notionalUsd: 100_000, collateralUsdc: 1_000, carryUsdc: 100, marginBackUsdc: 0 });
    expect(p.lines[0]).toMatchObject({ collateralUsdc: 1_000, carryUsdc: 100 });
    const shared = setup();
    const two = await buildPreview(shared.ctx, "column", [
      row(),
      row({ rowNumber: 3, side: "sell" }),
      row({ rowNumber: 4, action: "add", side: "sell", notional: 100_000, tenor: null }),
    ]);
    expect(shared.quotes.length).toBe(2);
    expect(two.quoteRequests).toBe(2);
  });

  it("two Adds asking the same question share its quote, and both are priced", async () => {
    const s = setup({ hedges: [hedge()] });
    const p = await buildPreview(s.ctx, "add", [
      row({ rowNumber: 2, action: "add", notional: 5_000, tenor: null }),
      row({ rowNumber: 3, action: "add", notional: 5_000, tenor: null }),
    ]);
    expect(s.quotes.length).toBe(1);
    expect(p.totals).toMatchObject({ priced: 2, notionalUsd: 10_000, collateralUsdc: 100 });
  });

  it("in a proposal, a reduce's side gets no capacity check, and a reduce without position or hedge has the position's blocker alone", async () => {
    const p = await preview(
      {
        hedges: [hedge({ notional_usd: 10_000 })],
        positions: [position({ size_usd: 10_000 })],
        markets: [market(), market({ market: "USDTKES" })],
      },
      "column",
      [
        row({ rowNumber: 2, action: "reduce", notional: 2_500, tenor: null }),
        row({ rowNumber: 3, market: "USDTKES", notional: 1_000 }),
        row({ rowNumber: 4, action: "reduce", market: "USDTNGN", side: "sell", notional: 1, tenor: null }),
      ],
    );
    expect(p.checks.map((c) => c.label)).toEqual(["Balance (USDC)", "Exposure headroom (USD)", "Capacity USDTKES buy (USD)"]);
    expect(blockers(p)).toEqual([[], [], ["No open sell position on USDTNGN: nothing to reduce."]]);
  });

  it("balance, headroom and each side's capacity: a check that fails is a batch blocker naming what is needed and available", async () => {
    const p = await preview(
      { balance: 1_500, headroom: 150_000, markets: [market({ available_capacity_usd: { buy: 99_999.99, sell: 1e6 } })] },
      "open",
      [row(), row({ rowNumber: 3, side: "sell", notional: 60_000 })],
    );
    expect(p.checks).toEqual([
      { label: "Balance (USDC)", unit: "USDC", needed: 1_600, available: 1_500, ok: false },
      { label: "Exposure headroom (USD)", unit: "USD", needed: 160_000, available: 150_000, ok: false },
      { label: "Capacity USDTNGN buy (USD)", unit: "USD", needed: 100_000, available: 99_999.99, ok: false },
      { label: "Capacity USDTNGN sell (USD)", unit: "USD", needed: 60_000, available: 1_000_000, ok: true },
    ]);
    expect(p.blockers).toEqual([
      "Balance (USDC): the batch needs 1,600.00 USDC but 1,500.00 USDC is available. Remove rows or reduce amounts.",
      "Exposure headroom (USD): the batch needs 160,000.00 USD but 150,000.00 USD is available. Remove rows or reduce amounts.",
      "Capacity USDTNGN buy (USD): the batch needs 100,000.00 USD but 99,999.99 USD is available. Remove rows or reduce amounts.",
    ]);
    const exact = await preview(
      { balance: 1_000, headroom: 100_000, markets: [market({ available_capacity_usd: { buy: 100_000, sell: 0 } })] },
      "open",
      [row()],
    );
    expect(exact.checks.map((c) => c.ok)).toEqual([true, true, true]);
    expect(exact.blockers).toEqual([]);
  });

  it("in a proposal, closes and reduces free balance, headroom and their side's capacity before the opens are counted", async () => {
    const p = await preview(
      {
        balance: 0,
        headroom: 0,
        markets: [market({ available_capacity_usd: { buy: 0, sell: 0 } })],
        hedges: [hedge({ side: "sell", notional_usd: 30_000 }), hedge({ id: "h-2", market: "USDTKES", notional_usd: 50_000 })],
        positions: [
          position({ side: "sell", size_usd: 30_000, net_margin_usd: 3_000 }),
          position({ market: "USDTKES", size_usd: 50_000, net_margin_usd: 500 }),
        ],
      },
      "column",
      [
        row({ rowNumber: 2, action: "close", side: "sell", notional: null, tenor: null }),
        row({ rowNumber: 3, action: "reduce", market: "USDTKES", notional: 10_000, tenor: null }),
        row({ rowNumber: 4, side: "sell", notional: 20_000 }),
      ],
    );
    expect(blockers(p)).toEqual([[], ["Market USDTKES is not available to this account: use USDTNGN."], []]);
    // The reduce is blocked (its market): only the close frees.
    expect(p.checks).toEqual([
      { label: "Balance (USDC)", unit: "USDC", needed: 200, available: 3_000, ok: true },
      { label: "Exposure headroom (USD)", unit: "USD", needed: 20_000, available: 30_000, ok: true },
      { label: "Capacity USDTNGN sell (USD)", unit: "USD", needed: 20_000, available: 30_000, ok: true },
    ]);
    // The close and the open of the sell side are a roll: its notional counted once (the Open's), not 30,000 + 20,000.
    expect(p.totals).toMatchObject({ rows: 3, priced: 2, notionalUsd: 20_000, marginBackUsdc: 3_000 });
  });

  it("in a proposal, a reduce frees its own notional (not its position's) of headroom, and capacity of its own side only", async () => {
    const p = await preview(
      {
        balance: 0,
        headroom: 0,
        // USDTKES listed first: each side's capacity is its own market's.
        markets: [
          market({ market: "USDTKES", available_capacity_usd: { buy: 7_000, sell: 0 } }),
          market({ available_capacity_usd: { buy: 0, sell: 0 } }),
        ],
        hedges: [hedge({ notional_usd: 50_000 }), hedge({ id: "h-kes", market: "USDTKES", side: "sell", notional_usd: 40_000 })],
        positions: [
          position({ size_usd: 50_000, net_margin_usd: 1_000 }),
          position({ market: "USDTKES", side: "sell", size_usd: 40_000, net_margin_usd: 400 }),
        ],
      },
      "column",
      [
        row({ rowNumber: 2, action: "reduce", notional: 10_000, tenor: null }),
        row({ rowNumber: 3, action: "close", market: "USDTKES", side: "sell", notional: null, tenor: null }),
        row({ rowNumber: 4, action: "add", notional: 5_000, tenor: null }),
      ],
    );
    expect(blockers(p)).toEqual([[], [], []]);
    expect(p.checks).toEqual([
      { label: "Balance (USDC)", unit: "USDC", needed: 50, available: 600, ok: true },
      // the reduce's 10,000 and the close's whole position, 40,000
      { label: "Exposure headroom (USD)", unit: "USD", needed: 5_000, available: 50_000, ok: true },
      // the reduce of this side alone; the USDTKES sell close frees nothing here
      { label: "Capacity USDTNGN buy (USD)", unit: "USD", needed: 5_000, available: 10_000, ok: true },
    ]);
  });

  it("a batch of closes and reduces alone has no checks, and reads no quote", async () => {
    const s = setup({ hedges: [hedge()], positions: [position({ size_usd: 10_000, net_margin_usd: 1_000 })] });
    const p = await buildPreview(s.ctx, "reduce", [row({ action: "reduce", notional: 2_500, tenor: null })]);
    expect(p.checks).toEqual([]);
    expect(s.quotes).toEqual([]);
    expect(p.lines[0]).toMatchObject({ marginBackUsdc: 250, blockers: [], warnings: [], notionalBefore: 10_000 });
  });

  it("a batch of closes and reduces alone is answered whole: no progress is published before it", async () => {
    const s = setup({ hedges: [hedge()], positions: [position()] });
    const seen: Preview[] = [];
    await buildPreview(s.ctx, "close", [row({ action: "close", notional: null, tenor: null })], { onProgress: (p) => seen.push(p) });
    expect(seen).toEqual([]);
  });

  it("opens and adds alone read no positions", async () => {
    const s = setup();
    await buildPreview(s.ctx, "open", [row()]);
    expect(s.positionReads()).toBe(0);
  });
});

describe("reduces and closes: the position each acts on", () => {
  const positions = [position({ size_usd: 10_000, net_margin_usd: 1_000 }), position({ side: "sell", size_usd: 0 })];
  const hedges = [hedge({ notional_usd: 10_000 })];

  it("reduces one after another take from what is left; more than is left says so, naming the rows above; 99 % or more closes", async () => {
    const p = await preview({ positions, hedges }, "reduce", [
      row({ rowNumber: 2, action: "reduce", notional: 4_000, tenor: null }),
      row({ rowNumber: 3, action: "reduce", notional: 7_000, tenor: null }),
      row({ rowNumber: 4, action: "reduce", notional: 5_940, tenor: null }),
      row({ rowNumber: 5, action: "reduce", notional: 60.004, tenor: null }),
    ]);
    expect(blockers(p)).toEqual([
      [],
      ["Reduce 7,000.00 is more than the 6,000.00 left open on USDTNGN buy after the rows above: reduce at most 6,000.00, or use Close."],
      [],
      [],
    ]);
    const whole = "This reduces the whole USDTNGN buy position: it will be closed.";
    expect(p.lines.map((l) => l.warnings)).toEqual([[], [], [whole], [whole]]);
    expect(p.lines.map((l) => l.marginBackUsdc)).toEqual([400, 0, 594, 1_000 * (60.004 / 10_000)]);
    // (After a blocked row the figures are moot: a batch with a blocked row is not approved, and a send reads the side again.)
    expect(p.lines.slice(0, 2).map((l) => l.notionalBefore)).toEqual([10_000, 6_000]);
    const first = await preview({ positions, hedges }, "reduce", [row({ action: "reduce", notional: 10_000.01, tenor: null })]);
    expect(blockers(first)).toEqual([
      ["Reduce 10,000.01 is more than the 10,000.00 left open on USDTNGN buy: reduce at most 10,000.00, or use Close."],
    ]);
    const cent = await preview({ positions, hedges }, "reduce", [row({ action: "reduce", notional: 10_000.005, tenor: null })]);
    expect(blockers(cent)).toEqual([[]]);
  });

  it("a close gets the margin of what is left; a second close of the side, or a reduce after it, is refused; no position says so", async () => {
    const p = await preview({ positions, hedges }, "column", [
      row({ rowNumber: 2, action: "reduce", notional: 2_500, tenor: null }),
      row({ rowNumber: 3, action: "close", notional: null, tenor: null }),
      row({ rowNumber: 4, action: "close", notional: null, tenor: null }),
      row({ rowNumber: 5, action: "reduce", notional: 1, tenor: null }),
      row({ rowNumber: 6, action: "close", side: "sell", notional: null, tenor: null }),
      row({ rowNumber: 7, action: "reduce", market: "USDTKES", notional: 1, tenor: null }),
    ]);
    expect(blockers(p)).toEqual([
      [],
      [],
      ["Row 3 already closes USDTNGN buy."],
      ["Row 3 already closes USDTNGN buy."],
      ["No open sell position on USDTNGN: nothing to close."],
      ["Market USDTKES is not available to this account: use USDTNGN.", "No open buy position on USDTKES: nothing to reduce."],
    ]);
    expect(p.lines.map((l) => l.marginBackUsdc)).toEqual([250, 750, 0, 0, 0, 0]);
    expect(p.lines.map((l) => l.position?.size_usd ?? null)).toEqual([10_000, 10_000, 10_000, 10_000, null, null]);
    expect(p.lines.map((l) => l.notionalBefore)).toEqual([10_000, 7_500, 0, 0, 0, 0]);
    expect(p.totals).toMatchObject({ priced: 2, notionalUsd: 2_500 + 10_000, marginBackUsdc: 1_000 });
  });

  it("a reduce of exactly 99 % of what is held closes the hedge: the next row finds 0; with the lists cut short nothing before is known", async () => {
    const p = await preview({ positions, hedges }, "reduce", [
      row({ rowNumber: 2, action: "reduce", notional: 9_900, tenor: null }),
      row({ rowNumber: 3, action: "reduce", notional: 1, tenor: null }),
    ]);
    expect(p.lines.map((l) => l.notionalBefore)).toEqual([10_000, 0]);
    const cut = await preview({ endless: true }, "add", [
      row({ rowNumber: 2, action: "add", notional: 10, tenor: null }),
      row({ rowNumber: 3, action: "add", notional: 10, tenor: null }),
    ]);
    expect(cut.lines.map((l) => l.notionalBefore)).toEqual([null, null]);
  });

  it("a reduce or close blocked before its position is read (its side busy) is not counted against the position", async () => {
    const busy = new Map([["USDTNGN|buy", { reason: "Waits for row 9.", blocking: true }]]);
    const p = await preview({ positions, hedges, busy }, "reduce", [row({ action: "reduce", notional: 20_000, tenor: null })]);
    expect(p.lines[0]).toMatchObject({ blockers: ["Waits for row 9."], warnings: [], marginBackUsdc: 0 });
    const closes = await preview({ positions, hedges, busy }, "close", [
      row({ rowNumber: 2, action: "close", notional: null, tenor: null }),
      row({ rowNumber: 3, action: "close", notional: null, tenor: null }),
    ]);
    expect(blockers(closes)).toEqual([["Waits for row 9."], ["Waits for row 9."]]);
  });

  it("a side with no hedge held is 0 before; an Add after an Open is its notional; rounded to the cent", async () => {
    const p = await preview(
      { hedges: [hedge({ market: "USDTKES", notional_usd: 1_000.005 })], markets: [market(), market({ market: "USDTKES" })] },
      "column",
      [
        row({ rowNumber: 2, action: "add", notional: 10, tenor: null, market: "USDTKES" }),
        row({ rowNumber: 3, action: "add", notional: 10, tenor: null, market: "USDTKES" }),
        row({ rowNumber: 4, action: "reduce", notional: 5, tenor: null, side: "sell" }),
      ],
    );
    expect(p.lines.map((l) => l.notionalBefore)).toEqual([1_000.01, 1_010.01, 0]);
  });
});

describe("duplicates, the log read, progress and a cancel", () => {
  const done = (over: Partial<TradeRow>, loggedAt: string, hedgeId: string | null) => {
    const i = intentFromRow(row(over), `k-${loggedAt}`, "sandbox", loggedAt, ACCOUNT);
    return { ...intentToLogRecord(i), status: "filled", hedgeId };
  };

  it("a row done today, or on the hedge the row acts on, is a duplicate; the log is read for today and for those hedges only", async () => {
    const log = [
      done({}, "2026-11-23T08:00:00.000Z", "h-x"),
      done({ action: "add", tenor: null, notional: 5_000 }, "2026-11-20T08:00:00.000Z", "hdg_01"),
    ];
    const s = setup({
      log,
      hedges: [hedge({ id: "h-kes", market: "USDTKES" }), hedge({ id: "hdg_01", side: "sell" })],
      markets: [market(), market({ market: "USDTKES" })],
    });
    const p = await buildPreview(s.ctx, "column", [
      row({ market: "USDTKES", rowNumber: 2 }),
      row({ rowNumber: 3 }),
      row({ rowNumber: 4, action: "add", side: "sell", notional: 5_000, tenor: null }),
    ]);
    expect(s.logQueries).toEqual([{ loggedSince: "2026-11-23T00:00:00.000Z", hedgeIds: ["hdg_01"] }]);
    expect(p.lines.map((l) => l.duplicateOf?.reason ?? null)).toEqual([null, "same_day", null]);
    expect(p.duplicates).toBe(1);
    const noHedges = setup();
    await buildPreview(noHedges.ctx, "open", [row()]);
    expect(noHedges.logQueries).toEqual([{ loggedSince: "2026-11-23T00:00:00.000Z" }]);
  });

  it("a row the desk knows and the log does not hold yet counts; of two done rows the newest is named, whatever order they are read in", async () => {
    const older = done({}, "2026-11-23T08:00:00.000Z", "h-1");
    const newer = done({}, "2026-11-23T09:00:00.000Z", "h-2");
    const s = setup({ log: [newer, older] });
    const p = await buildPreview(s.ctx, "open", [row()]);
    expect(p.lines[0].duplicateOf).toMatchObject({ idempotencyKey: newer.idempotencyKey, hedgeId: "h-2" });
    const fresh = setup();
    const knownRow = done({}, "2026-11-23T10:00:00.000Z", "h-3");
    fresh.ctx.known = () => [knownRow];
    expect((await buildPreview(fresh.ctx, "open", [row()])).lines[0].duplicateOf?.idempotencyKey).toBe(knownRow.idempotencyKey);
  });

  it("progress is published as the rows that cannot go are known and as each quote arrives; a cancel leaves the unpriced rows blocked", async () => {
    const s = setup();
    s.ctx.concurrency = 1;
    const controller = new AbortController();
    const seen: number[] = [];
    const p = await buildPreview(s.ctx, "open", [row(), row({ rowNumber: 3, side: "sell" }), row({ rowNumber: 4, market: "USDTKES" })], {
      signal: controller.signal,
      onProgress: (snapshot) => {
        seen.push(snapshot.totals.priced);
        if (snapshot.totals.priced === 1) controller.abort();
      },
    });
    expect(seen[0]).toBe(0);
    expect(seen).toContain(1);
    expect(p.cancelled).toBe(true);
    expect(p.lines.map((l) => l.blockers.length > 0 && l.blockers[0])).toContain("Not priced: the preview was cancelled.");
    expect(p.lines[2].blockers).toEqual(["Market USDTKES is not available to this account: use USDTNGN."]);
    // A quote out when the user cancels fails with the abort: its rows are "not priced", not "no quote".
    const hanging = setup();
    const cancel = new AbortController();
    hanging.ctx.client.quote = ((_body: unknown, signal?: AbortSignal) => {
      const answer = new Promise((_resolve, reject) =>
        signal?.addEventListener("abort", () => reject(new Error("The operation was aborted."))),
      );
      setTimeout(() => cancel.abort(), 0);
      return answer;
    }) as HedgingClient["quote"];
    const pending = buildPreview(hanging.ctx, "open", [row()], { signal: cancel.signal });
    expect((await pending).lines[0].blockers).toEqual(["Not priced: the preview was cancelled."]);
    // Each snapshot holds every line, the blocked ones with their reasons.
    const snapshots: Preview[] = [];
    await buildPreview(setup().ctx, "open", [row(), row({ rowNumber: 3, market: "USDTKES" })], {
      onProgress: (snap) => snapshots.push(snap),
    });
    expect(snapshots[0].lines.map((l) => [l.row.rowNumber, l.blockers])).toEqual([
      [2, []],
      [3, ["Market USDTKES is not available to this account: use USDTNGN."]],
    ]);
    const calm = await buildPreview(setup().ctx, "open", [row()]);
    expect(calm.cancelled).toBe(false);
    expect(calm).toMatchObject({ action: "open", environment: "sandbox", createdAt: NOW.toISOString() });
  });
});

describe("a roll's price (a Close, then an Open of its side) and the notional counted once", () => {
  const held = { hedges: [hedge({ id: "h-old", tenor_days: 3 })], positions: [position({ size_usd: 10_000, closing_fee_usd: 5.004 })] };
  const rollRows = [
    row({ rowNumber: 2, action: "close", notional: null, tenor: null }),
    row({ rowNumber: 3, notional: 30_000, tenor: 7 }),
    row({ rowNumber: 4, action: "add", notional: 5_000, tenor: null }),
  ];

  it("exit impact from a quote of the position at the closing hedge's tenor, the fee pair, the cost their sum to the cent", async () => {
    const s = setup(held);
    const p = await buildPreview(s.ctx, "column", rollRows);
    expect(s.quotes).toContainEqual({ market: "USDTNGN", side: "buy", notional_usd: 10_000, tenor_days: 3 });
    // exit 1 × 1.03 = 1.03; Close's fee 5.004 → 5.00; Open's fee 30,000 / 2,000 = 15
    expect(p.rolls).toEqual([
      { market: "USDTNGN", side: "buy", closeRow: 2, openRow: 3, exitImpactUsd: 1.03, closeFeeUsd: 5, openFeeUsdc: 15, costUsd: 21.03 },
    ]);
    expect(p.quoteRequests).toBe(3);
    expect(p.totals.notionalUsd).toBe(35_000);
  });

  it("an Open above its Close is the same roll; the hedge not listed: the exit is quoted at the Open's tenor", async () => {
    const s = setup({ positions: held.positions });
    const p = await buildPreview(s.ctx, "column", [rollRows[1], rollRows[0]]);
    expect(s.quotes).toContainEqual({ market: "USDTNGN", side: "buy", notional_usd: 10_000, tenor_days: 7 });
    expect(p.rolls.map((r) => [r.closeRow, r.openRow, r.exitImpactUsd])).toEqual([[2, 3, 1.07]]);
    expect(p.totals.notionalUsd).toBe(30_000);
  });

  it("an exit quote refused: the roll's cost is not known, said on the Close's line; the fee pair still shown", async () => {
    const s = setup({
      ...held,
      quoteFails: (n) => (n === 10_000 ? new HedgingApiError({ status: 503, code: "price_unavailable", message: "Feed down." }) : null),
    });
    const p = await buildPreview(s.ctx, "column", rollRows);
    expect(p.rolls).toEqual([
      { market: "USDTNGN", side: "buy", closeRow: 2, openRow: 3, exitImpactUsd: null, closeFeeUsd: 5, openFeeUsdc: 15, costUsd: null },
    ]);
    expect(p.lines[0].warnings).toEqual([
      expect.stringMatching(/^The roll's exit impact is not known: Feed down\..*\(price_unavailable\)$/),
    ]);
    expect(p.lines[0].blockers).toEqual([]);
  });

  it("a roll whose Open is blocked, or whose Close has no position, is no roll: nothing asked for it, nothing counted of the blocked line", async () => {
    const busy = new Map([["USDTNGN|sell", { reason: "Waits for row 9.", blocking: true }]]);
    const s = setup({ ...held, busy });
    const sell = (r: TradeRow) => ({ ...r, side: "sell" as const });
    const p = await buildPreview(s.ctx, "column", [...rollRows.slice(0, 2), sell(rollRows[0]), sell(rollRows[1])]);
    expect(p.rolls.map((r) => r.side)).toEqual(["buy"]);
    const none = setup({ hedges: held.hedges });
    const q = await buildPreview(none.ctx, "column", rollRows.slice(0, 2));
    expect(q.rolls).toEqual([]);
    expect(none.quotes).toHaveLength(1);
    expect(q.totals.notionalUsd).toBe(30_000);
  });

  it("an Open whose own quote is refused is blocked: the Close alone is no roll, and its exit is not asked", async () => {
    const refused = new HedgingApiError({ status: 502, code: "quote_failed", message: "No quote." });
    const s = setup({ ...held, quoteFails: (n) => (n === 30_000 ? refused : null) });
    const p = await buildPreview(s.ctx, "column", rollRows.slice(0, 2));
    expect(p.lines[1].blockers).toEqual([expect.stringMatching(/^No quote: No quote\./)]);
    expect(p.rolls).toEqual([]);
    expect(s.quotes.map((q) => q.notional_usd)).toEqual([30_000]);
  });

  it("a batch of two sides: a Close of one and an Open of the other count both; a Close and a Reduce count both", async () => {
    const s = setup({ positions: [position({ size_usd: 10_000 }), position({ side: "sell", size_usd: 4_000 })] });
    const p = await buildPreview(s.ctx, "column", [
      row({ rowNumber: 2, action: "close", notional: null, tenor: null }),
      row({ rowNumber: 3, action: "reduce", side: "sell", notional: 1_000, tenor: null }),
      row({ rowNumber: 4, side: "sell", notional: 30_000, tenor: 7 }),
    ]);
    expect(p.rolls).toEqual([]);
    expect(p.totals.notionalUsd).toBe(10_000 + 1_000 + 30_000);
  });

  it("cancelled while the exit is asked: the Close's line says nothing of an exit impact not known", async () => {
    const s = setup(held);
    const cancel = new AbortController();
    const quote = s.ctx.client.quote;
    s.ctx.client.quote = ((body: { tenor_days: number }, signal?: AbortSignal) => {
      if (body.tenor_days !== 3) return quote(body as Parameters<HedgingClient["quote"]>[0], signal);
      setTimeout(() => cancel.abort(), 0);
      return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("The operation was aborted."))));
    }) as HedgingClient["quote"];
    const p = await buildPreview(s.ctx, "column", rollRows, { signal: cancel.signal });
    expect(p.cancelled).toBe(true);
    expect(p.lines[0].warnings).toEqual([]);
  });

  it("cancelled while pricing: no roll is priced", async () => {
    const s = setup(held);
    const cancel = new AbortController();
    const p = await buildPreview(s.ctx, "column", rollRows, {
      signal: cancel.signal,
      onProgress: (snap) => {
        if (snap.totals.priced >= 2) cancel.abort();
      },
    });
    expect(p.rolls).toEqual([]);
    expect(s.quotes.some((q) => q.tenor_days === 3)).toBe(false);
  });
});
