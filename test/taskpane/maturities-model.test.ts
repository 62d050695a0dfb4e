// The overview's maturities list (MaturityWatch): every open hedge's maturity with time left and notional and its plan (mode, next tenor, this roll's cost, issue 39 item 9), and sides flat since a maturity that the last proposal wanted hedged.
import { MaturityWatch } from "../../src/taskpane/maturities-model";
import type { QuoteRequest } from "../../src/api/schemas";
import { readExposures, readPolicy } from "../../src/policy/inputs";
import { rollCost } from "../../src/policy/rollcost";
import { position } from "../support/builders";
import { POLICY_HEADER } from "../policy/policy-header";

const NOW = Date.parse("2026-11-30T08:00:00.000Z");
const H = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

describe("every open hedge's maturity (not only the next 24 hours)", () => {
  it.each([
    ["9 h 00 min left", at(NOW + 9 * H), ["USDTNGN sell 50,000.00 USD matures in 9 h 00 min (2026-11-30 17:00 UTC)"]],
    ["23 h 59 min left", at(NOW + 24 * H - 60_000), ["USDTNGN sell 50,000.00 USD matures in 23 h 59 min (2026-12-01 07:59 UTC)"]],
    ["exactly 24 h left", at(NOW + 24 * H), ["USDTNGN sell 50,000.00 USD matures in 24 h 00 min (2026-12-01 08:00 UTC)"]],
    [
      "24 h and a minute left: listed, in days",
      at(NOW + 24 * H + 60_000),
      ["USDTNGN sell 50,000.00 USD matures in 1 d 00 h (2026-12-01 08:01 UTC)"],
    ],
    [
      "6 days 9 hours left",
      at(NOW + 6 * 24 * H + 9 * H + 59_000),
      ["USDTNGN sell 50,000.00 USD matures in 6 d 09 h (2026-12-06 17:00 UTC)"],
    ],
    ["12 minutes left", at(NOW + 12 * 60_000 + 30_000), ["USDTNGN sell 50,000.00 USD matures in 12 min (2026-11-30 08:12 UTC)"]],
    [
      "maturity passed, still listed by the service",
      at(NOW - 1000),
      ["USDTNGN sell 50,000.00 USD matured, settling (2026-11-30 07:59 UTC)"],
    ],
    ["an unreadable maturity: not listed", "soon", []],
  ])("%s", (_name, maturity, expected) => {
    const watch = new MaturityWatch();
    expect(watch.items([position({ maturity_at: maturity })], NOW).map((i) => i.text)).toEqual(expected);
  });

  it("the soonest first; a side of size 0 is not listed", () => {
    const watch = new MaturityWatch();
    const items = watch.items(
      [
        position({ side: "buy", size_usd: 600_000, maturity_at: at(NOW + 20 * H) }),
        position({ side: "sell", maturity_at: at(NOW + 2 * H) }),
        position({ market: "USDTKES", side: "buy", size_usd: 0, maturity_at: at(NOW + H) }),
      ],
      NOW,
    );
    expect(items.map((i) => `${i.kind} ${i.side}`)).toEqual(["maturing sell", "maturing buy"]);
    expect(items[1].text).toBe("USDTNGN buy 600,000.00 USD matures in 20 h 00 min (2026-12-01 04:00 UTC)");
  });
});

describe("sides left flat since a maturity", () => {
  const maturity = Date.parse("2026-11-30T06:02:00.000Z");
  const held = position({ side: "buy", size_usd: 600_000, maturity_at: at(maturity) });

  it("the last proposal wanted it hedged (its target was above 0): unhedged since the maturity, first in the list", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([{ market: "USDTNGN", side: "buy", targetUsd: 600_000 }], [held]);
    const other = position({ side: "sell", maturity_at: at(NOW + H) });
    expect(watch.items([other], NOW).map((i) => `${i.kind}: ${i.text}`)).toEqual([
      "unhedged: USDTNGN buy unhedged since 06:02",
      "maturing: USDTNGN sell 50,000.00 USD matures in 1 h 00 min (2026-11-30 09:00 UTC)",
    ]);
  });

  it("held at its target when proposed (no row): wanted hedged too; a day later the time says its date", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [held]);
    expect(watch.items([], NOW + 24 * H).map((i) => i.text)).toEqual(["USDTNGN buy unhedged since 2026-11-30 06:02 UTC"]);
  });

  it.each([
    ["the last proposal's target was 0", () => [{ market: "USDTNGN", side: "buy", targetUsd: 0 }], [held], []],
    ["no proposal was made", null, [held], []],
    [
      "the side was closed before its maturity (it is flat, but no maturity passed)",
      () => [],
      [position({ side: "buy", maturity_at: at(NOW + 5 * H) })],
      [],
    ],
  ])("not listed when %s", (_name, rows, seen, expected) => {
    const watch = new MaturityWatch();
    if (rows) watch.observeProposal(rows(), seen);
    else watch.observePositions(seen);
    expect(watch.items([], NOW).map((i) => i.text)).toEqual(expected);
  });

  it("a side closed before its maturity is not listed once the maturity has passed either; one seen held at it is", () => {
    const maturing = position({ side: "buy", size_usd: 600_000, maturity_at: at(NOW + 5 * H) });
    const closedEarly = new MaturityWatch();
    closedEarly.observeProposal([], [maturing]); // wanted hedged: held at its target
    expect(closedEarly.items([], NOW).map((i) => i.text)).toEqual([]); // closed by hand at NOW, five hours early
    expect(closedEarly.items([], NOW + 6 * H).map((i) => i.text)).toEqual([]);
    const settled = new MaturityWatch();
    settled.observeProposal([], [maturing]);
    expect(settled.items([maturing], NOW + 4 * H)).toHaveLength(1); // still held an hour before its maturity
    expect(settled.items([], NOW + 6 * H).map((i) => i.text)).toEqual(["USDTNGN buy unhedged since 13:00"]);
  });

  it("a side reopened since is hedged again: no longer unhedged, its new maturity listed", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [held]);
    expect(watch.items([], NOW)).toHaveLength(1);
    const reopened = position({ side: "buy", size_usd: 600_000, maturity_at: at(NOW + 7 * 24 * H) });
    expect(watch.items([reopened], NOW).map((i) => i.kind)).toEqual(["maturing"]);
    // Flat again after the new maturity: unhedged since that one.
    expect(watch.items([], NOW + 7 * 24 * H + H).map((i) => i.text)).toEqual(["USDTNGN buy unhedged since 08:00"]);
  });
});

describe("a proposal of one side (Propose beside it)", () => {
  const maturity = Date.parse("2026-11-30T06:02:00.000Z");
  const buy = position({ side: "buy", size_usd: 600_000, maturity_at: at(maturity) });
  const sell = position({ side: "sell", size_usd: 50_000, maturity_at: at(maturity) });

  it("changes only that side's wish: the other side, wanted by the full proposal before, is still listed unhedged", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [buy, sell]); // both held: both wanted
    // The sell side has settled since; the buy side's proposal says nothing of it.
    watch.observeProposal([{ market: "USDTNGN", side: "buy", targetUsd: 0 }], [buy], { market: "USDTNGN", side: "buy" });
    expect(watch.items([], NOW).map((i) => `${i.kind} ${i.side}`)).toEqual(["unhedged sell"]);
  });
});

describe("each maturity's plan: the mode, the next tenor, this roll's cost", () => {
  // Monday 2026-11-30 17:00 UTC: the buy hedge's maturity.
  const maturity = NOW + 9 * H;
  const held = position({ side: "buy", size_usd: 600_000, maturity_at: at(maturity) });
  const policy = (over: { roll?: string; max?: number | string; within?: number; days?: string } = {}) =>
    readPolicy({
      values: [
        POLICY_HEADER,
        ["*", 100, 7, 1_000, 10_000, over.max ?? "", "no", over.within ?? 24, over.roll ?? "at maturity", over.days ?? "Mon-Fri"],
      ],
    });
  const exposures = (valueDate: string | null = null) =>
    readExposures({
      values: [
        ["Market", "Side", "Amount (USD)", "Value date"],
        ["USDTNGN", "buy", 600_000, valueDate ?? ""],
      ],
    });
  /** A quote by size and tenor: fee 0.05 %, carry 0.01 % a day, impact −0.01 % (a cost). */
  const quoteOf = (q: QuoteRequest) => ({
    upfront: { platform_fee_usdc: q.notional_usd * 0.0005 },
    carry: { total_usdc: q.notional_usd * 0.0001 * q.tenor_days },
    pricing: { price_impact_usd: -q.notional_usd * 0.0001 },
  });
  const watched = (inputs: { policy: ReturnType<typeof policy>; exposures: ReturnType<typeof exposures> }) => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [held], undefined, inputs);
    return watch;
  };

  it("before any proposal: the maturity, and how to get its plan", () => {
    const items = new MaturityWatch().items([held], NOW, quoteOf);
    expect(items.map((i) => [i.text, i.plan, i.planText])).toEqual([
      [
        "USDTNGN buy 600,000.00 USD matures in 9 h 00 min (2026-11-30 17:00 UTC)",
        null,
        "Plan: Propose once to read your policy (its Roll, Tenor and Working days).",
      ],
    ]);
  });

  it("at maturity, undated: the policy's 7 days (Monday + 7 is a Monday), priced as ROLLCOST prices one hedge of 7 days", () => {
    const watch = watched({ policy: policy(), exposures: exposures() });
    const [item] = watch.items([held], NOW, quoteOf);
    // fee 300 + carry 420 + impact 60 = 780.00, as rollCost prices the one 7-day hedge from the same quotes
    const expected = rollCost(600_000, 7, [7], (t, usd) => quoteOf({ market: "USDTNGN", side: "buy", notional_usd: usd, tenor_days: t }));
    expect(expected.totalUsd).toBe(780);
    expect(item.plan).toEqual({
      mode: "at maturity",
      nextTenor: 7,
      costUsd: 780,
      questions: [{ market: "USDTNGN", side: "buy", notional_usd: 600_000, tenor_days: 7 }],
    });
    expect(item.planText).toBe("Plan: roll at maturity into 7 days · this roll costs 780.00 USD");
    expect(watch.questions([held])).toEqual(item.plan!.questions);
  });

  it("early: the exit impact of the whole position added (one question: the same size at the same tenor)", () => {
    const [item] = watched({ policy: policy({ roll: "early", within: 12 }), exposures: exposures() }).items([held], NOW, quoteOf);
    expect(item.plan).toMatchObject({ mode: "early", nextTenor: 7, costUsd: 840 });
    expect(item.plan!.questions).toHaveLength(1);
    expect(item.planText).toBe("Plan: roll early (Close, then Open, inside Roll within) into 7 days · this roll costs 840.00 USD");
  });

  it("a value date ahead and working days: the tenor rule at the maturity (4 days 7 hours left: 3 days, ending on a Thursday)", () => {
    const [item] = watched({ policy: policy(), exposures: exposures("2026-12-05") }).items([held], NOW, quoteOf);
    expect(item.plan?.nextTenor).toBe(3);
    expect(item.planText).toBe("Plan: roll at maturity into 3 days · this roll costs 540.00 USD");
    // Mon–Wed only: a 3-day hedge would end on a Thursday, not a working day; the 1-day one ends on a Tuesday.
    const [monThu] = watched({ policy: policy({ days: "Mon-Wed" }), exposures: exposures("2026-12-05") }).items([held], NOW, quoteOf);
    expect(monThu.plan?.nextTenor).toBe(1);
    expect(monThu.planText).toBe("Plan: roll at maturity into 1 day · this roll costs 420.00 USD");
  });

  it("the exposure paid by the maturity: nothing follows; a quote not in yet: pricing", () => {
    const [paid] = watched({ policy: policy(), exposures: exposures("2026-11-30") }).items([held], NOW, quoteOf);
    expect(paid.plan).toEqual({ mode: "at maturity", nextTenor: null, costUsd: null, questions: [] });
    expect(paid.planText).toBe("Plan: settles at maturity; nothing follows (the exposure is paid by then).");
    const [pending] = watched({ policy: policy(), exposures: exposures() }).items([held], NOW);
    expect(pending.plan?.costUsd).toBeNull();
    expect(pending.planText).toBe("Plan: roll at maturity into 7 days · this roll's cost: pricing…");
  });

  it("Max trade splits the Open: each piece's quote asked once, the cost summed over the pieces", () => {
    const watch = watched({ policy: policy({ max: 250_000 }), exposures: exposures() });
    const [item] = watch.items([held], NOW, quoteOf);
    expect(item.plan?.questions.map((q) => q.notional_usd)).toEqual([250_000, 100_000]);
    expect(item.plan?.costUsd).toBe(780);
  });
});
