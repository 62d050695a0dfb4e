// Month end's rolls and unhedged time per side (sideTimeline through reconcile, and the recon sheet's section): a table of the cases.
import type { ClosedHedge, Hedge } from "../../src/api/schemas";
import { reconcile } from "../../src/monthend/reconcile";
import { reconContent } from "../../src/monthend/recon-layout";
import { durationText } from "../../src/monthend/side-time";
import { closed, hedge, monthData } from "../support/builders";

const T = Date.parse("2026-11-10T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const H = 3_600_000;
const DEC_1 = Date.UTC(2026, 11, 1);
const NOV_1 = Date.UTC(2026, 10, 1);

/** A hedge of the list and, when it ended, its closing record. */
function held(
  id: string,
  from: number,
  end: number | null,
  over: Partial<Hedge> = {},
  exit = "close",
): { hedges: Hedge[]; history: ClosedHedge[] } {
  const h = hedge({
    id,
    client_reference: `REF-${id}`,
    opened_at: iso(from - 2000),
    filled_at: iso(from),
    status: end === null ? "filled" : "closed",
    ...over,
  });
  const record = closed({
    hedge_id: id,
    client_reference: `REF-${id}`,
    market: h.market,
    side: h.side,
    opened_at: iso(from - 2000),
    closed_at: iso(end ?? 0),
    exit_type: exit,
  });
  return { hedges: [h], history: end === null ? [] : [record] };
}

function timeline(parts: Array<{ hedges: Hedge[]; history: ClosedHedge[] }>, generatedAtMs = DEC_1 + 10 * H) {
  const recon = reconcile(
    monthData({ hedges: parts.flatMap((p) => p.hedges), history: parts.flatMap((p) => p.history).reverse(), generatedAtMs }),
  );
  return {
    recon,
    rows: recon.sideTime.map((e) => [e.side, e.hedgeId, e.endedBy, e.kind, e.next?.hedgeId ?? null, e.gapMs, e.stillUnhedged]),
  };
}

describe("rolls and unhedged time of a side", () => {
  it.each([
    [
      "a Close, then the roll's Open filled 2 s later: a roll of 2 s",
      [held("h1", T - 7 * 24 * H, T), held("h2", T + 2000, null)],
      [["buy", "h1", "close", "roll", "h2", 2000, false]],
    ],
    [
      "held to maturity, the next opened 3 hours later: a roll whose unhedged time is 3 h",
      [held("h1", T - 3 * 24 * H, T, {}, "maturity"), held("h2", T + 3 * H, null)],
      [["buy", "h1", "maturity", "roll", "h2", 3 * H, false]],
    ],
    [
      "matured and never reopened, the sheet made after the month: unhedged to the month's end",
      [held("h1", T - 24 * H, T, {}, "maturity")],
      [["buy", "h1", "maturity", "unhedged", null, DEC_1 - T, false]],
    ],
    [
      "an opening on the other side is not the next hedge of this side",
      [held("h1", T - 24 * H, T, {}, "maturity"), held("s1", T + H, null, { side: "sell" })],
      [["buy", "h1", "maturity", "unhedged", null, DEC_1 - T, false]],
    ],
    [
      "a failed open after the end covers nothing: the gap runs on to the hedge that filled",
      [
        held("h1", T - 24 * H, T, {}, "maturity"),
        held("f1", T + H, null, { status: "failed", filled_at: null }),
        held("h2", T + 5 * H, null),
      ],
      [["buy", "h1", "maturity", "roll", "h2", 5 * H, false]],
    ],
    [
      "three hedges in a row: two rolls, each with its own gap; the last one still open",
      [held("h1", T - 24 * H, T, {}, "maturity"), held("h2", T + 1000, T + 24 * H, {}, "maturity"), held("h3", T + 24 * H + 4000, null)],
      [
        ["buy", "h1", "maturity", "roll", "h2", 1000, false],
        ["buy", "h2", "maturity", "roll", "h3", 4000, false],
      ],
    ],
    [
      "the next hedge opened only after the month: unhedged to the month's end",
      [held("h1", T - 24 * H, T, {}, "maturity"), held("h2", DEC_1 + H, null)],
      [["buy", "h1", "maturity", "unhedged", null, DEC_1 - T, false]],
    ],
    [
      "a reduction that took the whole hedge ends it too",
      [held("h1", T - 24 * H, T, {}, "decrease"), held("h2", T + 6000, null)],
      [["buy", "h1", "decrease", "roll", "h2", 6000, false]],
    ],
    ["a hedge that ended in December is not November's", [held("h1", T - 24 * H, DEC_1 + H, {}, "maturity")], []],
    ["a hedge that ended at the very start of December is not November's", [held("h1", T - 24 * H, DEC_1, {}, "maturity")], []],
    ["a hedge that ended in October is not November's", [held("h1", NOV_1 - 9 * 24 * H, NOV_1 - 1000, {}, "maturity")], []],
    [
      "a hedge that ended at the very start of November is November's",
      [held("h1", NOV_1 - 9 * 24 * H, NOV_1, {}, "maturity"), held("h2", NOV_1 + 3000, null)],
      [["buy", "h1", "maturity", "roll", "h2", 3000, false]],
    ],
    [
      "the next hedge filled at the very start of December: not November's roll",
      [held("h1", T - 24 * H, T, {}, "maturity"), held("h2", DEC_1, null)],
      [["buy", "h1", "maturity", "unhedged", null, DEC_1 - T, false]],
    ],
    [
      "the next hedge filled before the last one closed (open first, then close): a roll with no unhedged time",
      [held("h1", T - 24 * H, T), held("h2", T - 5000, null)],
      [["buy", "h1", "close", "roll", "h2", 0, false]],
    ],
  ])("%s", (_name, parts, expected) => {
    expect(timeline(parts).rows).toEqual(expected);
  });

  it("a side still flat when the sheet is made inside the month: the gap runs to that time, and says so", () => {
    const { rows } = timeline([held("h1", T - 24 * H, T, {}, "maturity")], T + 5 * H);
    expect(rows).toEqual([["buy", "h1", "maturity", "unhedged", null, 5 * H, true]]);
  });

  it("a side still flat when the sheet is made at the very end of the month is not 'still unhedged': the month is over", () => {
    const { rows } = timeline([held("h1", T - 24 * H, T, {}, "maturity")], DEC_1);
    expect(rows).toEqual([["buy", "h1", "maturity", "unhedged", null, DEC_1 - T, false]]);
  });

  it("lists markets A to Z, then sides, then by the time each hedge ended, whatever order the service gave", () => {
    const parts = [
      held("n-b2", T + 2 * H, T + 3 * H, { market: "USDTNGN" }, "maturity"),
      held("n-s1", T - 24 * H, T + H, { market: "USDTNGN", side: "sell" }, "maturity"),
      held("n-b1", T - 24 * H, T, { market: "USDTNGN" }, "maturity"),
      held("k-s1", T - 24 * H, T + 5 * H, { market: "USDTKES", side: "sell" }, "maturity"),
      held("g-b1", T - 24 * H, T + 4 * H, { market: "USDTGHS" }, "maturity"),
    ];
    const { recon } = timeline(parts);
    expect(recon.sideTime.map((e) => [e.market, e.side, e.hedgeId, e.next?.hedgeId ?? null])).toEqual([
      ["USDTGHS", "buy", "g-b1", null],
      ["USDTKES", "sell", "k-s1", null],
      ["USDTNGN", "buy", "n-b1", "n-b2"],
      ["USDTNGN", "buy", "n-b2", null],
      ["USDTNGN", "sell", "n-s1", null],
    ]);
  });

  it("two hedges filled at the same instant: the same roll whatever order the service listed them in", () => {
    const parts = [held("h1", T - 24 * H, T, {}, "maturity"), held("h3", T + H, null), held("h2", T + H, null)];
    const one = timeline(parts).rows;
    expect(timeline([...parts].reverse()).rows).toEqual(one);
    expect(one).toEqual([["buy", "h1", "maturity", "roll", "h2", H, false]]);
    // Ties are broken by hedge id, the ended hedge's own too: the sheet never depends on the order of the service's list.
    const tied = [held("h2", T - 24 * H, T, {}, "maturity"), held("h1", T - 24 * H, null), held("h3", T + H, null)];
    expect(timeline(tied).rows).toEqual(timeline([...tied].reverse()).rows);
    expect(timeline(tied).rows).toEqual([["buy", "h2", "maturity", "roll", "h3", H, false]]);
  });

  it("a hedge known only from its record (not listed) covers from its opening time", () => {
    const { history } = held("h2", T + 9000, T + 24 * H);
    const { rows } = timeline([held("h1", T - 24 * H, T, {}, "maturity"), { hedges: [], history }]);
    // h2's record opened 2 s before its fill: without the list, its opening is what month end knows.
    expect(rows[0]).toEqual(["buy", "h1", "maturity", "roll", "h2", 7000, false]);
  });

  it("the recon sheet lists them in their section and counts them in the header", () => {
    const { recon } = timeline([held("h1", T - 24 * H, T, {}, "maturity"), held("h2", T + 2000, T + 24 * H, {}, "close")]);
    const sheet = reconContent(recon);
    const line = (label: string) => sheet.values.find((r) => r[0] === label)?.[1];
    expect([line("Rolls"), line("Hedge ends not reopened")]).toEqual([1, 1]);
    const title = sheet.values.findIndex((r) => String(r[0]).startsWith("Rolls and unhedged time"));
    expect(sheet.values[title + 1].slice(0, 12)).toEqual([
      "Market",
      "Side",
      "Hedge id",
      "Client reference",
      "Ended at (UTC)",
      "Ended by",
      "Followed by",
      "Next hedge id",
      "Next client reference",
      "Next filled at (UTC)",
      "Unhedged for",
      "Unhedged (hours)",
    ]);
    const body = sheet.values.slice(title + 2, title + 4).map((r) => [r[2], r[5], r[6], r[7], r[10]]);
    expect(body).toEqual([
      ["h1", "maturity", "Roll", "h2", "2 s"],
      ["h2", "close", "Unhedged to the month's end", "", "19 d 12 h"],
    ]);
    expect(sheet.sections.map((s) => s.title)).toContain("Rolls and unhedged time: each hedge that ended in the period");
  });
});

describe("durationText", () => {
  it.each([
    [0, "0 s"],
    [1499, "1 s"],
    [59_000, "59 s"],
    [60_000, "1 min 00 s"],
    [245_000, "4 min 05 s"],
    [3 * H + 5 * 60_000, "3 h 05 min"],
    [2 * 24 * H + 3 * H + 59 * 60_000, "2 d 03 h"],
    [59_499, "59 s"],
    [59_500, "1 min 00 s"],
    [H - 1000, "59 min 59 s"],
    [H, "1 h 00 min"],
    [24 * H - 60_000, "23 h 59 min"],
    [24 * H, "1 d 00 h"],
    [-5000, "0 s"],
  ])("%d ms reads %s", (ms, text) => expect(durationText(ms)).toBe(text));
});
