// The extended hedge-to-target rule: dated exposures (a row counts until its value date), the tenor an Open takes before the earliest value date, and rolls of sides maturing inside the roll window; a table of cases, then the exact rows and sentences.
import { readExposures, readHoldings, readPolicy, TargetInputError, type InputCell } from "../../src/policy/inputs";
import { proposalSpill, propose, type ProposalRow } from "../../src/policy/target";
import { POLICY_HEADER } from "./policy-header";

const H = 3_600_000;
const D = 24 * H;
const AS_OF = Date.UTC(2026, 10, 29, 17); // 2026-11-29 17:00 UTC
const iso = (ms: number) => new Date(ms).toISOString();
/** An Excel date serial (UTC) of an instant. */
const serial = (ms: number) => (ms - Date.UTC(1899, 11, 30)) / D;

/** [market, side, amount, value date (ms, ISO text or an Excel serial)] */
type Exp = [string, string, number, InputCell?];
/** [market, side, size, maturity] */
type Pos = [string, string, number, InputCell?];
type Pol = {
  market?: string;
  ratio?: number;
  tenor?: number;
  min?: number;
  max?: number | string;
  net?: string;
  roll?: number | string;
  /** Roll: these cases are written for "early" (Close then Open inside the window) unless they say "at maturity". */
  mode?: string;
  days?: string;
};

function run(exposures: Exp[], policy: Pol[], positions: Pos[] = [], asOf = AS_OF): ProposalRow[] {
  const cell = (v: InputCell | undefined) => (typeof v === "number" && v > 1e9 ? iso(v) : (v ?? ""));
  return propose({
    exposures: readExposures({
      values: [["Market", "Side", "Amount (USD)", "Value date"], ...exposures.map(([m, s, a, d]) => [m, s, a, cell(d)])],
    }),
    policy: readPolicy({
      values: [
        POLICY_HEADER,
        ...policy.map((p) => [
          p.market ?? "*",
          p.ratio ?? 100,
          p.tenor ?? 7,
          1_000,
          p.min ?? 0,
          p.max ?? "",
          p.net ?? "yes",
          p.roll ?? "",
          p.mode ?? "early",
          p.days ?? "",
        ]),
      ],
    }),
    holdings: readHoldings({
      values: [["market", "side", "size_usd", "maturity_at"], ...positions.map(([m, s, a, d]) => [m, s, a, cell(d)])],
    }),
    day: iso(asOf).slice(0, 10),
    asOfMs: asOf,
  });
}

/** "open USDTNGN buy 750000 7d ROLL-…-1" */
const brief = (r: ProposalRow) =>
  [r.action, r.market, r.side, r.amountUsd ?? "", r.tenor ? `${r.tenor}d` : "", r.clientReference.startsWith("ROLL") ? "roll" : ""]
    .filter((x) => x !== "")
    .join(" ");

describe("the extended rule, case by case (as_of 2026-11-29 17:00 UTC)", () => {
  test.each<[string, Exp[], Pol[], Pos[], string[]]>([
    [
      "a dated row counts before its value date",
      [["USDTNGN", "buy", 1_000_000, AS_OF + 30 * D]],
      [{}],
      [],
      ["open USDTNGN buy 1000000 7d"],
    ],
    [
      "as_of on its value date: the row counts no more, so its hedge is closed (the market stays in scope)",
      [["USDTNGN", "buy", 1_000_000, AS_OF]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 3 * D]],
      ["close USDTNGN buy"],
    ],
    [
      "a value date given as a day alone is 00:00 UTC: on that day the row counts no more",
      [["USDTNGN", "buy", 1_000_000, "2026-11-29"]],
      [{}],
      [],
      [],
    ],
    [
      "a millisecond before the value date the row still counts; 1 day is the shortest tenor",
      [["USDTNGN", "buy", 1_000_000, AS_OF + 1]],
      [{}],
      [],
      ["open USDTNGN buy 1000000 1d"],
    ],
    [
      "a paid row is left out; the row still due is hedged",
      [
        ["USDTNGN", "buy", 1_000_000, AS_OF - D],
        ["USDTNGN", "buy", 400_000, AS_OF + 30 * D],
      ],
      [{}],
      [],
      ["open USDTNGN buy 400000 7d"],
    ],
    ["undated rows count always and never shorten the tenor", [["USDTNGN", "buy", 1_000_000]], [{}], [], ["open USDTNGN buy 1000000 7d"]],
    [
      "a value date exactly 7 days ahead: 7 days end on it",
      [["USDTNGN", "buy", 10_000, AS_OF + 7 * D]],
      [{}],
      [],
      ["open USDTNGN buy 10000 7d"],
    ],
    ["5 days ahead: 3 days", [["USDTNGN", "buy", 10_000, AS_OF + 5 * D]], [{}], [], ["open USDTNGN buy 10000 3d"]],
    ["exactly 3 days ahead: 3 days", [["USDTNGN", "buy", 10_000, AS_OF + 3 * D]], [{}], [], ["open USDTNGN buy 10000 3d"]],
    ["2 days ahead: 1 day", [["USDTNGN", "buy", 10_000, AS_OF + 2 * D]], [{}], [], ["open USDTNGN buy 10000 1d"]],
    [
      "12 hours ahead: 1 day, even though it ends after",
      [["USDTNGN", "buy", 10_000, AS_OF + 12 * H]],
      [{}],
      [],
      ["open USDTNGN buy 10000 1d"],
    ],
    [
      "never longer than the policy's tenor",
      [["USDTNGN", "buy", 10_000, AS_OF + 30 * D]],
      [{ tenor: 3 }],
      [],
      ["open USDTNGN buy 10000 3d"],
    ],
    [
      "Net sides no: a side's tenor is shortened by its own dated rows only, not by the other side's",
      [
        ["USDTNGN", "buy", 100_000, AS_OF + 30 * D],
        ["USDTNGN", "sell", 50_000, AS_OF + 4 * D],
        ["USDTKES", "buy", 100_000, AS_OF + 30 * D],
      ],
      [{ net: "no" }],
      [],
      ["open USDTKES buy 100000 7d", "open USDTNGN buy 100000 7d", "open USDTNGN sell 50000 3d"],
    ],
    [
      "Net sides no: an undated side is never shortened by the other side's value date",
      [
        ["USDTNGN", "buy", 100_000, AS_OF + 2 * D],
        ["USDTNGN", "sell", 50_000],
      ],
      [{ net: "no" }],
      [],
      ["open USDTNGN buy 100000 1d", "open USDTNGN sell 50000 7d"],
    ],
    [
      "Net sides yes: the one netted side takes the earliest value date of the market, whichever side it is on",
      [
        ["USDTNGN", "buy", 100_000, AS_OF + 30 * D],
        ["USDTNGN", "sell", 50_000, AS_OF + 4 * D],
      ],
      [{ net: "yes" }],
      [],
      ["open USDTNGN buy 50000 3d"],
    ],
    [
      "an undated row beside a dated one: the dated one still shortens",
      [
        ["USDTNGN", "buy", 100_000],
        ["USDTNGN", "buy", 50_000, AS_OF + 2 * D],
      ],
      [{}],
      [],
      ["open USDTNGN buy 150000 1d"],
    ],
    [
      "an Add keeps the hedge's maturity: no tenor",
      [["USDTNGN", "buy", 150_000, AS_OF + 2 * D]],
      [{}],
      [["USDTNGN", "buy", 100_000, AS_OF + 5 * D]],
      ["add USDTNGN buy 50000"],
    ],
    [
      "a side maturing within 24 h is rolled: Close, then Open of its target at the tenor",
      [["USDTNGN", "buy", 1_000_000]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 1000000 7d roll"],
    ],
    ["maturing outside the window: left alone", [["USDTNGN", "buy", 1_000_000]], [{}], [["USDTNGN", "buy", 1_000_000, AS_OF + 30 * H]], []],
    [
      "maturing exactly at the window's end: outside",
      [["USDTNGN", "buy", 1_000_000]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 24 * H]],
      [],
    ],
    [
      "maturity passed but still open: rolled",
      [["USDTNGN", "buy", 1_000_000]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF - H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 1000000 7d roll"],
    ],
    [
      "Roll within 2 hours: 3 hours ahead is left alone",
      [["USDTNGN", "buy", 1_000_000]],
      [{ roll: 2 }],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 3 * H]],
      [],
    ],
    [
      "Roll within 2 hours: 1 hour ahead is rolled",
      [["USDTNGN", "buy", 1_000_000]],
      [{ roll: 2 }],
      [["USDTNGN", "buy", 1_000_000, AS_OF + H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 1000000 7d roll"],
    ],
    [
      "a roll whose target changed: the Open is the new target, whatever the difference",
      [["USDTNGN", "buy", 1_200_000]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 1200000 7d roll"],
    ],
    [
      "a roll within Min trade of its target is still rolled",
      [["USDTNGN", "buy", 1_001_000]],
      [{ min: 50_000 }],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 1001000 7d roll"],
    ],
    [
      "a roll to 0: no roll, the side is closed",
      [["USDTNGN", "buy", 0]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy"],
    ],
    [
      "a dated exposure paid before the maturity: closed, not rolled",
      [["USDTNGN", "buy", 1_000_000, AS_OF - H]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy"],
    ],
    [
      "a roll's Open takes the shortened tenor",
      [["USDTNGN", "buy", 1_000_000, AS_OF + 4 * D]],
      [{}],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 1000000 3d roll"],
    ],
    [
      "a roll's Open split by Max trade: Open then Adds",
      [["USDTNGN", "buy", 1_200_000]],
      [{ max: 500_000 }],
      [["USDTNGN", "buy", 1_000_000, AS_OF + 12 * H]],
      ["close USDTNGN buy roll", "open USDTNGN buy 500000 7d roll", "add USDTNGN buy 500000 roll", "add USDTNGN buy 200000 roll"],
    ],
    ["a side with no maturity given is never rolled", [["USDTNGN", "buy", 1_000_000]], [{}], [["USDTNGN", "buy", 1_000_000]], []],
    [
      "the roll's Close goes with the closes and its Open with the opens, markets A to Z, buy before sell",
      [
        ["USDTZAR", "sell", 300_000],
        ["USDTKES", "buy", 100_000],
        ["USDTKES", "sell", 100_000],
        ["USDTNGN", "buy", 50_000],
      ],
      [{ net: "no" }],
      [
        ["USDTZAR", "sell", 300_000, AS_OF + H],
        ["USDTNGN", "buy", 80_000, AS_OF + 5 * D],
        ["USDTKES", "sell", 100_000, AS_OF + 2 * H],
        ["USDTKES", "buy", 100_000, AS_OF + 3 * H],
      ],
      [
        "close USDTKES buy roll",
        "close USDTKES sell roll",
        "reduce USDTNGN buy 30000",
        "close USDTZAR sell roll",
        "open USDTKES buy 100000 7d roll",
        "open USDTKES sell 100000 7d roll",
        "open USDTZAR sell 300000 7d roll",
      ],
    ],
  ])("%s", (_name, exposures, policy, positions, expected) => {
    expect(run(exposures, policy, positions).map(brief)).toEqual(expected);
  });

  test("value dates and maturities as Excel serials read as ISO text does", () => {
    const asText = run([["USDTNGN", "buy", 10_000, AS_OF + 5 * D]], [{}], [["USDTNGN", "sell", 5_000, AS_OF + H]]);
    const asSerial = run([["USDTNGN", "buy", 10_000, serial(AS_OF + 5 * D)]], [{}], [["USDTNGN", "sell", 5_000, serial(AS_OF + H)]]);
    expect(asSerial).toEqual(asText);
    expect(asText.map(brief)).toEqual(["close USDTNGN sell", "open USDTNGN buy 10000 3d"]);
  });
});

describe("a roll's rows, exactly", () => {
  test("Current and Target on both rows, ROLL references (n = 0 the Close, 1 the Open, 2… its Adds), Reason naming the maturity", () => {
    const rows = run([["USDTNGN", "sell", 700_000]], [{ max: 500_000 }], [["USDTNGN", "sell", 600_000, Date.UTC(2026, 10, 30, 9, 30)]]);
    expect(rows.map((r) => [r.action, r.amountUsd, r.tenor, r.clientReference, r.currentUsd, r.targetUsd, r.reason])).toEqual([
      [
        "close",
        null,
        null,
        "ROLL-2026-11-29-USDTNGN-SELL-0",
        600_000,
        700_000,
        "Roll: matures 2026-11-30 09:30 UTC. Close, then open the target again: target 700,000.00 (100% of net exposure 0.00 buy − 700,000.00 sell = −700,000.00, rounded to 1,000.00); open 600,000.00.",
      ],
      [
        "open",
        500_000,
        7,
        "ROLL-2026-11-29-USDTNGN-SELL-1",
        600_000,
        700_000,
        "Roll: matures 2026-11-30 09:30 UTC. Open 500,000.00 for 7 days once the Close is final: target 700,000.00 (100% of net exposure 0.00 buy − 700,000.00 sell = −700,000.00, rounded to 1,000.00); open 600,000.00 (part 1 of 2, at most 500,000.00 a row).",
      ],
      [
        "add",
        200_000,
        null,
        "ROLL-2026-11-29-USDTNGN-SELL-2",
        600_000,
        700_000,
        "Roll: matures 2026-11-30 09:30 UTC. Add 200,000.00: target 700,000.00 (100% of net exposure 0.00 buy − 700,000.00 sell = −700,000.00, rounded to 1,000.00); open 600,000.00 (part 2 of 2, at most 500,000.00 a row).",
      ],
    ]);
  });

  test("a shortened Open says why, in its Reason; a roll's Open too", () => {
    const [open] = run([["USDTNGN", "buy", 10_000, Date.UTC(2026, 11, 2, 12)]], [{ net: "no" }]);
    expect(open.reason).toBe(
      "Open 10,000.00: target 10,000.00 (100% of buy exposure 10,000.00, rounded to 1,000.00); open 0.00; difference 10,000.00; tenor 1 day, not 7: the earliest value date 2026-12-02 12:00 UTC comes first.",
    );
    const rolled = run([["USDTNGN", "buy", 10_000, AS_OF + 4 * D]], [{ net: "no" }], [["USDTNGN", "buy", 10_000, AS_OF + H]]);
    expect(rolled[1].reason).toBe(
      "Roll: matures 2026-11-29 18:00 UTC. Open 10,000.00 for 3 days once the Close is final: target 10,000.00 (100% of buy exposure 10,000.00, rounded to 1,000.00); open 10,000.00; tenor 3 days, not 7: the earliest value date 2026-12-03 17:00 UTC comes first.",
    );
  });

  test("the spill of a roll: Close first with its Current, then the Open with its tenor", () => {
    const spill = proposalSpill(run([["USDTNGN", "buy", 100_000]], [{}], [["USDTNGN", "buy", 100_000, AS_OF + H]]));
    expect(spill.slice(1).map((r) => r.slice(0, 8))).toEqual([
      ["Close", "USDTNGN", "buy", "", "", "ROLL-2026-11-29-USDTNGN-BUY-0", 100_000, 100_000],
      ["Open", "USDTNGN", "buy", 100_000, 7, "ROLL-2026-11-29-USDTNGN-BUY-1", 100_000, 100_000],
    ]);
  });

  test("the earliest maturity of a side's rows is its maturity; sizes add up", () => {
    const rows = run(
      [["USDTNGN", "buy", 300_000]],
      [{}],
      [
        ["USDTNGN", "buy", 100_000, AS_OF + 3 * D],
        ["USDTNGN", "buy", 200_000, AS_OF + 2 * H],
        ["USDTNGN", "buy", 0],
      ],
    );
    expect(rows.map(brief)).toEqual(["close USDTNGN buy roll", "open USDTNGN buy 300000 7d roll"]);
    expect(rows[0].reason).toMatch(/^Roll: matures 2026-11-29 19:00 UTC\./);
  });

  test("left out, as_of is 00:00 UTC of the day", () => {
    const rows = propose({
      exposures: readExposures({
        values: [
          ["Market", "Side", "Amount", "Due"],
          ["USDTNGN", "buy", 1_000, "2026-11-29T00:00:01Z"],
        ],
      }),
      policy: readPolicy({
        values: [
          ["Market", "Ratio", "Tenor"],
          ["*", 100, 7],
        ],
      }),
      holdings: [],
      day: "2026-11-29",
    });
    expect(rows.map(brief)).toEqual(["open USDTNGN buy 1000 1d"]);
  });
});

describe("dates and Roll within read from their cells", () => {
  test.each<[string, () => unknown, RegExp]>([
    [
      "a value date that is no date",
      () =>
        readExposures({
          values: [
            ["Market", "Side", "Amount", "Due date"],
            ["USDTNGN", "buy", 5, "next week"],
          ],
        }),
      /exposures, row 2 of the range, column Value date: "next week" is not a date: give the day it is paid/,
    ],
    [
      "a value date of 30 February",
      () =>
        readExposures({
          values: [
            ["Market", "Side", "Amount", "Settlement date"],
            ["USDTNGN", "buy", 5, "2026-02-30"],
          ],
        }),
      /"2026-02-30" is not a date/,
    ],
    [
      "a serial below 1",
      () =>
        readExposures({
          values: [
            ["Market", "Side", "Amount", "Value date"],
            ["USDTNGN", "buy", 5, 0],
          ],
        }),
      /0 is not a date/,
    ],
    [
      "a maturity that is no date",
      () =>
        readHoldings({
          values: [
            ["Market", "Side", "Size", "Maturity"],
            ["USDTNGN", "buy", 5, true],
          ],
        }),
      /positions, row 2 of the range, column Maturity: true is not a date: give the hedge's maturity/,
    ],
    [
      "Roll within over 24 hours",
      () =>
        readPolicy({
          values: [
            ["Market", "Ratio", "Tenor", "Roll within (hours)"],
            ["*", 100, 7, 48],
          ],
        }),
      /column Roll within \(hours\): 48 is more than 24: give hours from 0 to 24/,
    ],
    [
      "Roll within below 0",
      () =>
        readPolicy({
          values: [
            ["Market", "Ratio", "Tenor", "Roll window"],
            ["*", 100, 7, -1],
          ],
        }),
      /column Roll within \(hours\): -1 is out of range: give the hours before a maturity/,
    ],
    [
      "two value date columns",
      () => readExposures({ values: [["Market", "Side", "Amount", "Due", "Value date"]] }),
      /columns Due and Value date both mean Value date/,
    ],
  ])("%s", (_name, call, message) => {
    expect(call).toThrow(TargetInputError);
    expect(call).toThrow(message);
  });

  test("Roll within: empty is 24, 0 and 24 are allowed, the headers' synonyms are read", () => {
    const hours = (header: string, v: InputCell) =>
      readPolicy({
        values: [
          ["Market", "Ratio", "Tenor", header],
          ["*", 100, 7, v],
        ],
      })[0].rollWithinHours;
    expect(hours("Roll within (hours)", "")).toBe(24);
    expect(hours("roll_within", 0)).toBe(0);
    expect(hours("Roll window (hours)", 24)).toBe(24);
    expect(hours("Note", 5)).toBe(24);
  });
});

describe("every Reason sentence of the rule, exactly", () => {
  const reasons = (exposures: Exp[], policy: Pol[], positions: Pos[] = []) => run(exposures, policy, positions).map((r) => r.reason);

  test("Open, split by Max trade into parts", () => {
    expect(reasons([["USDTNGN", "buy", 1_250_000]], [{ ratio: 33.3, max: 300_000 }])).toEqual([
      "Open 300,000.00: target 416,000.00 (33.3% of net exposure 1,250,000.00 buy − 0.00 sell = 1,250,000.00, rounded to 1,000.00); open 0.00; difference 416,000.00 (part 1 of 2, at most 300,000.00 a row).",
      "Add 116,000.00: target 416,000.00 (33.3% of net exposure 1,250,000.00 buy − 0.00 sell = 1,250,000.00, rounded to 1,000.00); open 0.00; difference 416,000.00 (part 2 of 2, at most 300,000.00 a row).",
    ]);
  });

  test("Reduce with its negative difference; Close of the netted side", () => {
    expect(
      reasons(
        [["USDTNGN", "sell", 80_000]],
        [{}],
        [
          ["USDTNGN", "sell", 100_000],
          ["USDTNGN", "buy", 5_000],
        ],
      ),
    ).toEqual([
      "Close: target 0.00 (net exposure 0.00 buy − 80,000.00 sell = −80,000.00: nothing to hedge on the buy side); open 5,000.00.",
      "Reduce 20,000.00: target 80,000.00 (100% of net exposure 0.00 buy − 80,000.00 sell = −80,000.00, rounded to 1,000.00); open 100,000.00; difference −20,000.00.",
    ]);
  });

  test("Net sides no: each side's own sentence; Add; a Close below Min trade", () => {
    expect(
      reasons(
        [
          ["USDTNGN", "buy", 150_000],
          ["USDTNGN", "sell", 0],
        ],
        [{ net: "no", ratio: 50, min: 10_000 }],
        [
          ["USDTNGN", "buy", 50_000],
          ["USDTNGN", "sell", 5_000],
        ],
      ),
    ).toEqual([
      "Close: target 0.00 (50% of sell exposure 0.00, rounded to 1,000.00); open 5,000.00.",
      "Add 25,000.00: target 75,000.00 (50% of buy exposure 150,000.00, rounded to 1,000.00); open 50,000.00; difference 25,000.00.",
    ]);
  });
});

test("sides netting to 0: the target is on the buy side, the sell side has nothing to hedge, and 0 has no minus sign", () => {
  const rows = run(
    [
      ["USDTNGN", "buy", 100_000],
      ["USDTNGN", "sell", 100_000],
    ],
    [{}],
    [
      ["USDTNGN", "buy", 5_000],
      ["USDTNGN", "sell", 7_000],
    ],
  );
  expect(rows.map((r) => r.reason)).toEqual([
    "Close: target 0.00 (100% of net exposure 100,000.00 buy − 100,000.00 sell = 0.00, rounded to 1,000.00); open 5,000.00.",
    "Close: target 0.00 (net exposure 100,000.00 buy − 100,000.00 sell = 0.00: nothing to hedge on the sell side); open 7,000.00.",
  ]);
});

describe("the earliest date wins, in whatever order the rows come", () => {
  test.each<[string, Exp[], string]>([
    [
      "the earlier row first",
      [
        ["USDTNGN", "buy", 10_000, AS_OF + 2 * D],
        ["USDTNGN", "buy", 10_000, AS_OF + 30 * D],
      ],
      "open USDTNGN buy 20000 1d",
    ],
    [
      "the earlier row last",
      [
        ["USDTNGN", "buy", 10_000, AS_OF + 30 * D],
        ["USDTNGN", "buy", 10_000, AS_OF + 2 * D],
      ],
      "open USDTNGN buy 20000 1d",
    ],
  ])("value dates, %s", (_name, exposures, expected) => {
    expect(run(exposures, [{}]).map(brief)).toEqual([expected]);
  });

  test.each<[string, Pos[]]>([
    [
      "the earlier first",
      [
        ["USDTNGN", "buy", 100_000, AS_OF + 2 * H],
        ["USDTNGN", "buy", 100_000, AS_OF + 3 * D],
      ],
    ],
    [
      "the earlier last",
      [
        ["USDTNGN", "buy", 100_000, AS_OF + 3 * D],
        ["USDTNGN", "buy", 100_000, AS_OF + 2 * H],
      ],
    ],
  ])("maturities, %s", (_name, positions) => {
    const rows = run([["USDTNGN", "buy", 200_000]], [{}], positions);
    expect(rows.map(brief)).toEqual(["close USDTNGN buy roll", "open USDTNGN buy 200000 7d roll"]);
    expect(rows[0].reason).toMatch(/^Roll: matures 2026-11-29 19:00 UTC\./);
  });
});

describe("what is said only where it applies", () => {
  test("a dated Open at the policy's own tenor says nothing of its tenor", () => {
    const [open] = run([["USDTNGN", "buy", 10_000, AS_OF + 30 * D]], [{ net: "no" }]);
    expect(open.reason).toBe(
      "Open 10,000.00: target 10,000.00 (100% of buy exposure 10,000.00, rounded to 1,000.00); open 0.00; difference 10,000.00.",
    );
  });

  test("an Add of a dated market says nothing of a tenor; only the Open of a split does", () => {
    const [add] = run([["USDTNGN", "buy", 150_000, AS_OF + 2 * D]], [{ net: "no" }], [["USDTNGN", "buy", 100_000, AS_OF + 5 * D]]);
    expect(add.reason).toBe(
      "Add 50,000.00: target 150,000.00 (100% of buy exposure 150,000.00, rounded to 1,000.00); open 100,000.00; difference 50,000.00.",
    );
    const split = run([["USDTNGN", "buy", 150_000, AS_OF + 2 * D]], [{ net: "no", max: 100_000 }]);
    expect(split.map((r) => r.reason.includes("tenor 1 day, not 7"))).toEqual([true, false]);
    const rolled = run(
      [["USDTNGN", "buy", 150_000, AS_OF + 2 * D]],
      [{ net: "no", max: 100_000, roll: 2 }], // Roll within 2: the 1-day hedge the roll opens is not inside its own window
      [["USDTNGN", "buy", 150_000, AS_OF + H]],
    );
    expect(rolled.map((r) => r.reason.includes("tenor 1 day, not 7"))).toEqual([false, true, false]);
  });

  test("a side listed with size 0 and a near maturity is no hedge to roll: its target is opened", () => {
    expect(run([["USDTNGN", "buy", 100_000]], [{}], [["USDTNGN", "buy", 0, AS_OF + H]]).map(brief)).toEqual(["open USDTNGN buy 100000 7d"]);
  });
});

test("a ratio is shown as typed, without binary noise (7 %, not 7.000000000000001 %)", () => {
  const [open] = run([["USDTNGN", "buy", 100_000]], [{ ratio: 7, net: "no" }]);
  expect(open.reason).toMatch(/^Open 7,000\.00: target 7,000\.00 \(7% of buy exposure 100,000\.00, rounded to 1,000\.00\)/);
});

test("60 markets given in no order: closes and reduces first, then opens and adds, each by market A to Z, buy before sell, a split's rows in sequence", () => {
  // Letters ordered by a stride through the alphabet: no two neighbours in A-to-Z order.
  const names = Array.from({ length: 60 }, (_, i) => {
    const n = (i * 37) % 60;
    return `USDT${String.fromCharCode(65 + Math.floor(n / 26))}${String.fromCharCode(65 + (n % 26))}X`;
  });
  const exposures: Exp[] = names.flatMap((m): Exp[] => [
    [m, "buy", 100_000],
    [m, "sell", 250_000],
  ]);
  const positions: Pos[] = names.map((m): Pos => [m, "buy", 300_000]);
  const rows = run(exposures, [{ net: "no", max: 100_000 }], positions);
  const sorted = [...names].sort();
  expect(rows.map(brief)).toEqual([
    ...sorted.flatMap((m) => [`reduce ${m} buy 100000`, `reduce ${m} buy 100000`]),
    ...sorted.flatMap((m) => [`open ${m} sell 100000 7d`, `add ${m} sell 100000`, `add ${m} sell 50000`]),
  ]);
  expect(rows.filter((r) => r.side === "sell").map((r) => r.clientReference.slice(-1))).toEqual(sorted.flatMap(() => ["1", "2", "3"]));
});
