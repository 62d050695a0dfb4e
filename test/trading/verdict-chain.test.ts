// The chain judgment's edges, one table line per case: which rows of a market side took effect, did not, or stay unclear, the evidence the pane shows for each, and the unexplained change before a side's first unfinished row.
import { chainGaps, nextInChain, type ChainResult, type Evidence } from "../../src/trading/verdict";
import type { Intent } from "../../src/trading/intent";
import { final, hedge, judged, now, results, row } from "../support/side-chain";

const says = (side: Intent[], evidence: Evidence): string[] =>
  judged(side, evidence).links.map((l) => ("says" in l.verdict ? l.verdict.says : `needs records of ${l.verdict.hedge.id}`));

describe("a row judged by what the next row of its side found: the evidence the pane shows, word for word", () => {
  const open = () => row("open", 100_000, "filled", null, "10:00:00");
  it.each<[string, () => Intent[], number, ChainResult[], string[]]>([
    [
      "an Add the next row found at before + amount took effect",
      () => [open(), row("add", 50_000, "submitted", 100_000, "10:01:00"), row("reduce", 30_000, "submitting", 150_000, "10:02:00")],
      120_000,
      ["took_effect", "took_effect"],
      [
        "Hedge h-1 is filled at 120,000.00 USD. The next row of this side (reduce sell 30,000.00 USD logged 2026-11-25 10:02:00 UTC) found it at 150,000.00 USD; before this row it was 100,000.00 USD.",
        "Hedge h-1 is filled at 120,000.00 USD.",
      ],
    ],
    [
      "an Add the next row found at before did not take effect",
      () => [open(), row("add", 50_000, "submitted", 100_000, "10:01:00"), row("reduce", 30_000, "submitting", 100_000, "10:02:00")],
      100_000,
      ["did_not", "did_not"],
      [
        "Hedge h-1 is filled at 100,000.00 USD. The next row of this side (reduce sell 30,000.00 USD logged 2026-11-25 10:02:00 UTC) found it at 100,000.00 USD; before this row it was 100,000.00 USD. This row had not taken effect when it left.",
        "Hedge h-1 is filled at 100,000.00 USD. Its notional is the one before this row.",
      ],
    ],
    [
      "a Reduce the next row found at before + amount (the wrong way) is unclear",
      () => [open(), row("reduce", 20_000, "submitted", 100_000, "10:01:00"), row("add", 10_000, "submitting", 120_000, "10:02:00")],
      130_000,
      ["unclear", "took_effect"],
      [
        "Hedge h-1 is filled at 130,000.00 USD. The next row of this side (add sell 10,000.00 USD logged 2026-11-25 10:02:00 UTC) found it at 120,000.00 USD; before this row it was 100,000.00 USD. The change does not match the row.",
        "Hedge h-1 is filled at 130,000.00 USD.",
      ],
    ],
    [
      "a Close the next row found the hedge unchanged did not take effect (a Close is never before ± an amount)",
      () => [open(), row("close", null, "submitted", 100_000, "10:01:00"), row("add", 10_000, "submitting", 100_000, "10:02:00")],
      110_000,
      ["did_not", "took_effect"],
      [
        "Hedge h-1 is filled at 110,000.00 USD. The next row of this side (add sell 10,000.00 USD logged 2026-11-25 10:02:00 UTC) found it at 100,000.00 USD; before this row it was 100,000.00 USD. This row had not taken effect when it left.",
        "Hedge h-1 is filled at 110,000.00 USD.",
      ],
    ],
    [
      "a Reduce the next row (a Close, no amount) found at before − amount took effect",
      () => [open(), row("reduce", 40_000, "submitted", 100_000, "10:01:00"), row("close", null, "submitting", 60_000, "10:02:00")],
      60_000,
      ["took_effect", "did_not"],
      [
        "Hedge h-1 is filled at 60,000.00 USD. The next row of this side (close sell logged 2026-11-25 10:02:00 UTC) found it at 60,000.00 USD; before this row it was 100,000.00 USD.",
        "Hedge h-1 is filled at 60,000.00 USD. Its notional is the one before this row.",
      ],
    ],
  ])("%s", (_name, side, notional, expected, evidence) => {
    const rows = side();
    expect(results(rows, now(hedge(notional)))).toEqual(expected);
    expect(says(rows, now(hedge(notional)))).toEqual(evidence);
  });

  it("a row the next row found unchanged is not settled: an accepted one is still followed, never recorded as dropped", () => {
    const rows = [open(), row("add", 50_000, "submitted", 100_000, "10:01:00"), row("reduce", 30_000, "submitting", 100_000, "10:02:00")];
    expect(judged(rows, now(hedge(100_000))).links[0].verdict).toMatchObject({ kind: "absent", settled: false });
  });

  it("a side's rows given out of order are judged in the order they left, from the same start", () => {
    const rows = [open(), row("add", 50_000, "submitted", 100_000, "10:01:00"), row("reduce", 30_000, "submitting", 150_000, "10:02:00")];
    const chain = judged([...rows].reverse(), now(hedge(120_000)));
    expect(chain.start).toBe(rows[0]);
    expect(chain.links.map((l) => [l.intent, l.result])).toEqual([
      [rows[1], "took_effect"],
      [rows[2], "took_effect"],
    ]);
  });

  it("a row that took effect by the chain is recorded filled, and its message says what the next row found", () => {
    const rows = [open(), row("add", 50_000, "submitted", 100_000, "10:01:00"), row("reduce", 30_000, "submitting", 150_000, "10:02:00")];
    const [first] = judged(rows, now(hedge(120_000))).links;
    expect(first.verdict).toEqual(
      expect.objectContaining({
        kind: "effect",
        patch: { status: "filled", message: "Filled: the next row of this side found the hedge at 150,000.00 USD." },
      }),
    );
  });
});

describe("which row speaks for which: the next row of the same side that left strictly later and wrote what it found", () => {
  it.each<[string, (add: Intent) => Intent[], ChainResult]>([
    // The hedge is now at 100,000 (the Add's before): judged alone the Add did not take effect; the chain would say it did.
    [
      "a later row that found 150,000 speaks for the Add",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:02:00")],
      "took_effect",
    ],
    [
      "a later row sent at the same instant is no chain",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:02:00", { sentAt: add.sentAt })],
      "did_not",
    ],
    [
      "a row logged and sent at the same instant is no chain, and no row after it speaks past it",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:01:00"), row("reduce", 70_000, "submitting", 150_000, "10:03:00")],
      "did_not",
    ],
    [
      "a later row without a Notional before (an older version's row) speaks for nothing",
      (add) => [add, row("reduce", 50_000, "submitting", null, "10:02:00")],
      "did_not",
    ],
    [
      "a row that never left speaks for nothing, nor hides the row after it",
      (add) => [
        add,
        row("reduce", 50_000, "rejected", null, "10:02:00", { sentAt: null }),
        row("reduce", 70_000, "submitting", 150_000, "10:03:00"),
      ],
      "took_effect",
    ],
    [
      "a row of another side naming the same hedge (a log edited by hand) speaks for nothing",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:02:00", { side: "buy" })],
      "did_not",
    ],
    [
      "a row of another market naming the same hedge speaks for nothing",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:02:00", { market: "USDTKES" as Intent["market"] })],
      "did_not",
    ],
    [
      "a row on another hedge of the side (opened after a close) speaks for nothing",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:02:00", { hedgeId: "h-2" })],
      "did_not",
    ],
    [
      "an Open that wrote a Notional before (a log edited by hand) speaks for nothing",
      (add) => [add, row("open", 50_000, "submitting", 150_000, "10:02:00")],
      "did_not",
    ],
    [
      "a later row without a hedge id speaks for nothing",
      (add) => [add, row("reduce", 50_000, "submitting", 150_000, "10:02:00", { hedgeId: null })],
      "did_not",
    ],
  ])("%s", (_name, side, expected) => {
    const add = row("add", 50_000, "submitted", 100_000, "10:01:00");
    const link = judged(side(add), now(hedge(100_000))).links.find((l) => l.intent === add)!;
    expect(link.result).toBe(expected);
  });

  it("a row without a Notional before is no next row, even where the row is judged by the hedge now", () => {
    const add = row("add", 50_000, "submitted", 100_000, "10:01:00");
    expect(nextInChain(add, [add, row("reduce", 50_000, "submitting", null, "10:02:00")])).toBeNull();
  });

  it("rows given in any order are put in the order they left: the next row is the one right after, not the last", () => {
    const add = row("add", 50_000, "submitted", 100_000, "10:01:00");
    const second = row("add", 20_000, "submitted", 150_000, "10:02:00");
    const third = row("reduce", 10_000, "submitting", 170_000, "10:03:00");
    expect(nextInChain(add, [third, second, add])).toBe(second);
    expect(nextInChain(second, [third, add, second])).toBe(third);
    expect(nextInChain(third, [third, add, second])).toBeNull();
  });

  it("a row the side's rows do not hold (judged against another copy of the journal) takes the first row that left after it", () => {
    const add = row("add", 50_000, "submitted", 100_000, "10:01:00");
    const earlier = row("add", 10_000, "filled", 90_000, "10:00:30");
    const second = row("add", 20_000, "submitted", 150_000, "10:02:00");
    const third = row("reduce", 10_000, "submitting", 170_000, "10:03:00");
    expect(nextInChain(add, [third, earlier, second])).toBe(second);
    expect(nextInChain(add, [earlier])).toBeNull();
  });

  it("an Open, a row without a hedge id, and a row that never left have no next row", () => {
    const later = row("reduce", 50_000, "submitting", 150_000, "10:02:00");
    for (const i of [
      row("open", 100_000, "submitted", null, "10:01:00"),
      row("add", 50_000, "submitted", 100_000, "10:01:00", { hedgeId: null }),
      row("add", 50_000, "submitting", 100_000, "10:01:00", { sentAt: null }),
    ])
      expect(nextInChain(i, [i, later])).toBeNull();
  });
});

describe("what each unfinished row's verdict means for the chain", () => {
  it.each<[string, () => Intent[], Evidence, ChainResult[]]>([
    [
      "a failed hedge: the row did not take effect",
      () => [row("add", 10_000, "submitted", 100_000, "10:01:00")],
      now(hedge(100_000, "failed")),
      ["did_not"],
    ],
    [
      "an Open the service accepted and has not filled: accepted",
      () => [row("open", 100_000, "submitting", null, "10:00:00")],
      now(hedge(100_000, "submitted")),
      ["accepted"],
    ],
    ["an Open filled: took effect", () => [row("open", 100_000, "submitting", null, "10:00:00")], now(hedge(100_000)), ["took_effect"]],
    [
      "a closed hedge whose records were not read: unclear until they are",
      () => [row("add", 10_000, "submitted", 100_000, "10:01:00")],
      now(hedge(0, "closed")),
      ["unclear"],
    ],
    [
      "a Close of a hedge now closed: took effect",
      () => [row("close", null, "submitted", 100_000, "10:01:00")],
      now(hedge(0, "closed"), []),
      ["took_effect"],
    ],
  ])("%s", (_name, side, evidence, expected) => {
    expect(results(side(), evidence)).toEqual(expected);
  });
});

describe("where the chain starts: the side's last final row, and only the unfinished rows after it are judged", () => {
  it.each<[string, () => Intent[], string | null, string[]]>([
    [
      "every row final: the last one starts it, nothing is judged",
      () => [row("open", 100_000, "filled", null, "10:00:00"), row("add", 10_000, "filled", 100_000, "10:01:00")],
      "add",
      [],
    ],
    [
      "the first row unfinished: no start",
      () => [row("add", 10_000, "submitted", 100_000, "10:01:00"), row("reduce", 5_000, "submitting", 110_000, "10:02:00")],
      null,
      ["add", "reduce"],
    ],
    [
      "a final row after the first unfinished one is not judged again",
      () => [
        row("open", 100_000, "filled", null, "10:00:00"),
        row("add", 10_000, "submitted", 100_000, "10:01:00"),
        row("reduce", 5_000, "rejected", 110_000, "10:02:00"),
      ],
      "open",
      ["add"],
    ],
  ])("%s", (_name, side, start, judgedActions) => {
    const chain = judged(side(), now(hedge(110_000)));
    expect(chain.start?.action ?? null).toBe(start);
    expect(chain.links.map((l) => l.intent.action)).toEqual(judgedActions);
  });
});

describe("a change before the side's first unfinished row that no row of this log explains (what the last final row left, against what the first found)", () => {
  const first = (found: number | null, over: Partial<Intent> = {}) => row("add", 10_000, "submitting", found, "10:05:00", over);
  it.each<[string, Intent | null, Intent, string | null]>([
    ["a filled Open left its notional: found the same, no gap", row("open", 100_000, "filled", null, "10:00:00"), first(100_000), null],
    [
      "a filled Open left its notional: found another, a gap",
      row("open", 100_000, "filled", null, "10:00:00"),
      first(90_000),
      "The open before it left the hedge at 100,000.00 USD, but this add found it at 90,000.00 USD",
    ],
    ["a failed Open left nothing to compare", row("open", 100_000, "failed", null, "10:00:00"), first(90_000), null],
    ["a filled Add left before + amount", row("add", 20_000, "filled", 100_000, "10:00:00"), first(120_000), null],
    [
      "a filled Add, then another size found: a gap",
      row("add", 20_000, "filled", 100_000, "10:00:00"),
      first(100_000),
      "The add before it left the hedge at 120,000.00 USD, but this add found it at 100,000.00 USD",
    ],
    ["a filled Reduce left before − amount", row("reduce", 20_000, "filled", 100_000, "10:00:00"), first(80_000), null],
    [
      "a filled Reduce, then another size found: a gap",
      row("reduce", 20_000, "filled", 100_000, "10:00:00"),
      first(120_000),
      "The reduce before it left the hedge at 80,000.00 USD, but this add found it at 120,000.00 USD",
    ],
    ["a rejected Add left the hedge as it found it", row("add", 20_000, "rejected", 100_000, "10:00:00"), first(100_000), null],
    [
      "a rejected Add, then another size found: a gap",
      row("add", 20_000, "rejected", 100_000, "10:00:00"),
      first(120_000),
      "The add before it left the hedge at 100,000.00 USD, but this add found it at 120,000.00 USD",
    ],
    ["a Close leaves nothing to compare (the hedge is gone)", row("close", null, "closed", 100_000, "10:00:00"), first(50_000), null],
    [
      "a final row without a Notional before (an older version's) leaves nothing to compare",
      row("add", 20_000, "filled", null, "10:00:00"),
      first(50_000),
      null,
    ],
    [
      "the first unfinished row without a Notional before: nothing to compare",
      row("open", 100_000, "filled", null, "10:00:00"),
      first(null),
      null,
    ],
    [
      "the first unfinished row on another hedge (opened after the last one closed): no gap",
      row("open", 100_000, "filled", null, "10:00:00"),
      first(50_000, { hedgeId: "h-2" }),
      null,
    ],
    [
      "the final row without a hedge id is still compared",
      row("open", 100_000, "filled", null, "10:00:00", { hedgeId: null }),
      first(50_000),
      "The open before it left the hedge at 100,000.00 USD, but this add found it at 50,000.00 USD",
    ],
    [
      "the first row without a hedge id is still compared",
      row("open", 100_000, "filled", null, "10:00:00"),
      first(50_000, { hedgeId: null }),
      "The open before it left the hedge at 100,000.00 USD, but this add found it at 50,000.00 USD",
    ],
    ["no final row before it: no gap", null, first(50_000), null],
  ])("%s", (_name, start, firstRow, gap) => {
    const side = start ? [start, firstRow] : [firstRow];
    const expected = gap === null ? null : `${gap}: a change no row of this log explains (another workbook or person).`;
    expect(judged(side, now(hedge(60_000))).gap).toBe(expected);
    // The list on opening finds the same gap, under the first unfinished row's key.
    expect(chainGaps(side, final).get(firstRow.idempotencyKey) ?? null).toBe(expected);
  });

  it("sides are kept apart by market and by side: each side's gap is its own", () => {
    const sell = [row("open", 100_000, "filled", null, "10:00:00"), row("add", 10_000, "submitting", 90_000, "10:05:00")];
    // The same side on another market, and the other side of the same market, interleaved in time: none explains the others.
    const kes = [
      row("open", 90_000, "filled", null, "10:01:00", { market: "USDTKES" as Intent["market"], hedgeId: "h-2" }),
      row("add", 10_000, "submitting", 90_000, "10:04:00", { market: "USDTKES" as Intent["market"], hedgeId: "h-2" }),
    ];
    const buy = [
      row("open", 90_000, "filled", null, "10:02:00", { side: "buy", hedgeId: "h-3" }),
      row("add", 10_000, "submitting", 90_000, "10:03:00", { side: "buy", hedgeId: "h-3" }),
    ];
    const gaps = chainGaps([...sell, ...kes, ...buy], final);
    expect([...gaps.keys()]).toEqual([sell[1].idempotencyKey]);
    expect(chainGaps([...kes, ...buy], final).size).toBe(0);
  });

  it("a side's rows given out of order: the gap is still found before its first unfinished row", () => {
    const side = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 10_000, "submitting", 90_000, "10:05:00"),
      row("reduce", 5_000, "submitting", 100_000, "10:06:00"),
    ];
    expect([...chainGaps([...side].reverse(), final).keys()]).toEqual([side[1].idempotencyKey]);
  });

  it("a side with every row final has no gap to show", () => {
    const side = [row("open", 100_000, "filled", null, "10:00:00"), row("add", 10_000, "rejected", 90_000, "10:05:00")];
    expect(chainGaps(side, final).size).toBe(0);
  });
});
