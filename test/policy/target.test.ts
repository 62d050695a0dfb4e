// The hedge-to-target rule through its ranges: a table of the cases, bad cells named, and a property test that applying a proposal meets the policy and leaves nothing to do.
import fc from "fast-check";
import { readExposures, readHoldings, readPolicy, TargetInputError, type InputCell } from "../../src/policy/inputs";
import { proposalSpill, propose, type ProposalRow } from "../../src/policy/target";
import { PROPOSAL_HEADERS } from "../../src/trading/rows";

const DAY = "2026-11-25";
type Exp = [string, string, number];
type Pol = { market?: string; ratio?: number; tenor?: number; round?: number; min?: number; max?: number | string; net?: string };

function policyGrid(rows: Pol[]): InputCell[][] {
  return [
    ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Min trade (USD)", "Max trade (USD)", "Net sides"],
    ...rows.map((p) => [p.market ?? "USDTNGN", p.ratio ?? 100, p.tenor ?? 7, p.round ?? 1000, p.min ?? 0, p.max ?? "", p.net ?? "yes"]),
  ];
}

function run(exposures: Exp[], policy: Pol[], positions: Exp[] = []): ProposalRow[] {
  return propose({
    exposures: readExposures({ values: [["Market", "Side", "Amount (USD)"], ...exposures] }),
    policy: readPolicy({ values: policyGrid(policy) }),
    holdings: readHoldings({ values: [["market", "side", "size_usd"], ...positions] }),
    day: DAY,
  });
}

/** A row as the user reads it: "Open USDTNGN buy 750000 7d". */
const brief = (r: ProposalRow) =>
  [r.action, r.market, r.side, r.amountUsd ?? "", r.tenor ? `${r.tenor}d` : ""].filter((x) => x !== "").join(" ");

describe("the rule, case by case", () => {
  test.each<[string, Exp[], Pol[], Exp[], string[]]>([
    ["a first hedge opens the target", [["USDTNGN", "buy", 1_000_000]], [{ ratio: 75 }], [], ["open USDTNGN buy 750000 7d"]],
    [
      "exposure rows of one side add up",
      [
        ["USDTNGN", "buy", 600_000],
        ["USDTNGN", "buy", 400_000],
      ],
      [{ ratio: 50 }],
      [],
      ["open USDTNGN buy 500000 7d"],
    ],
    [
      "netting: buy minus sell, the target on the sign's side, the other side closed",
      [
        ["USDTNGN", "buy", 300_000],
        ["USDTNGN", "sell", 1_000_000],
      ],
      [{ ratio: 100 }],
      [["USDTNGN", "buy", 200_000]],
      ["close USDTNGN buy", "open USDTNGN sell 700000 7d"],
    ],
    [
      "rounding at exactly .5 goes away from zero",
      [["USDTNGN", "buy", 3_000]],
      [{ ratio: 50, round: 1000 }],
      [],
      ["open USDTNGN buy 2000 7d"],
    ],
    ["rounding below .5 goes down", [["USDTNGN", "buy", 2_998]], [{ ratio: 50, round: 1000 }], [], ["open USDTNGN buy 1000 7d"]],
    [
      "a difference of exactly Min trade is traded",
      [["USDTNGN", "buy", 110_000]],
      [{ min: 10_000 }],
      [["USDTNGN", "buy", 100_000]],
      ["add USDTNGN buy 10000"],
    ],
    [
      "a difference a cent below Min trade is left alone",
      [["USDTNGN", "buy", 110_000]],
      [{ min: 10_000.01 }],
      [["USDTNGN", "buy", 100_000]],
      [],
    ],
    ["a smaller target reduces", [["USDTNGN", "buy", 80_000]], [{}], [["USDTNGN", "buy", 100_000]], ["reduce USDTNGN buy 20000"]],
    [
      "Max trade splits an Open into Open then Adds, the full rows first",
      [["USDTNGN", "buy", 1_250_000]],
      [{ max: 500_000 }],
      [],
      ["open USDTNGN buy 500000 7d", "add USDTNGN buy 500000", "add USDTNGN buy 250000"],
    ],
    [
      "Max trade splits a Reduce",
      [["USDTNGN", "buy", 100_000]],
      [{ max: 400_000 }],
      [["USDTNGN", "buy", 1_000_000]],
      ["reduce USDTNGN buy 400000", "reduce USDTNGN buy 400000", "reduce USDTNGN buy 100000"],
    ],
    [
      "the * row is the default for markets without their own",
      [
        ["USDTKES", "buy", 100_000],
        ["USDTNGN", "buy", 100_000],
      ],
      [
        { market: "*", ratio: 50, tenor: 3 },
        { market: "USDTNGN", ratio: 100 },
      ],
      [],
      ["open USDTKES buy 50000 3d", "open USDTNGN buy 100000 7d"],
    ],
    [
      "Net sides no: each side its own target",
      [
        ["USDTNGN", "buy", 300_000],
        ["USDTNGN", "sell", 1_000_000],
      ],
      [{ net: "no" }],
      [["USDTNGN", "buy", 200_000]],
      ["add USDTNGN buy 100000", "open USDTNGN sell 1000000 7d"],
    ],
    [
      "a target of 0 closes even below Min trade",
      [["USDTNGN", "buy", 0]],
      [{ min: 50_000 }],
      [["USDTNGN", "buy", 20_000]],
      ["close USDTNGN buy"],
    ],
    ["a target of 0 with nothing open proposes nothing", [["USDTNGN", "buy", 0]], [{}], [], []],
    [
      "a market the policy names with no exposure is closed",
      [],
      [{ market: "USDTNGN" }],
      [["USDTNGN", "sell", 20_000]],
      ["close USDTNGN sell"],
    ],
    [
      "an open hedge of a market out of scope is left alone",
      [["USDTNGN", "buy", 1_000]],
      [{}],
      [
        ["USDTKES", "buy", 5_000],
        ["USDTNGN", "buy", 1_000],
      ],
      [],
    ],
    [
      "closes and reduces first, then opens and adds, by market A to Z, buy before sell",
      [
        ["USDTZAR", "buy", 100_000],
        ["USDTKES", "sell", 100_000],
        ["USDTKES", "buy", 50_000],
        ["USDTNGN", "buy", 10_000],
      ],
      [{ market: "*", net: "no" }],
      [
        ["USDTZAR", "buy", 50_000],
        ["USDTNGN", "buy", 40_000],
        ["USDTKES", "sell", 150_000],
      ],
      ["reduce USDTKES sell 50000", "reduce USDTNGN buy 30000", "open USDTKES buy 50000 7d", "add USDTZAR buy 50000"],
    ],
  ])("%s", (_name, exposures, policy, positions, expected) => {
    expect(run(exposures, policy, positions).map(brief)).toEqual(expected);
  });

  test("every row of a split shows the side's Current and Target, and the references are the day's, numbered", () => {
    const rows = run([["USDTNGN", "buy", 1_250_000]], [{ max: 500_000 }], [["USDTNGN", "buy", 100_000]]);
    expect(rows.map((r) => [r.currentUsd, r.targetUsd, r.clientReference])).toEqual([
      [100_000, 1_250_000, "TARGET-2026-11-25-USDTNGN-BUY-1"],
      [100_000, 1_250_000, "TARGET-2026-11-25-USDTNGN-BUY-2"],
      [100_000, 1_250_000, "TARGET-2026-11-25-USDTNGN-BUY-3"],
    ]);
    expect(rows[2].reason).toContain("part 3 of 3");
  });

  test("the spill: its header, Amount empty for a Close, Tenor for Opens only; nothing to do is the header alone", () => {
    const spill = proposalSpill(run([["USDTNGN", "sell", 1_000_000]], [{ ratio: 75 }], [["USDTNGN", "buy", 5_000]]));
    expect(spill[0]).toEqual([...PROPOSAL_HEADERS]);
    expect(spill.slice(1).map((r) => r.slice(0, 8))).toEqual([
      ["Close", "USDTNGN", "buy", "", "", "TARGET-2026-11-25-USDTNGN-BUY-1", 5_000, 0],
      ["Open", "USDTNGN", "sell", 750_000, 7, "TARGET-2026-11-25-USDTNGN-SELL-1", 0, 750_000],
    ]);
    expect(spill[2][8]).toMatch(/75% of net exposure 0\.00 buy − 1,000,000\.00 sell/);
    expect(proposalSpill(run([["USDTNGN", "buy", 1_000]], [{}], [["USDTNGN", "buy", 1_000]]))).toEqual([[...PROPOSAL_HEADERS]]);
  });

  test("amounts are to the cent", () => {
    expect(run([["USDTNGN", "buy", 1_000.01]], [{ ratio: 33.3, round: 0.01 }]).map(brief)).toEqual(["open USDTNGN buy 333 7d"]);
    expect(run([["USDTNGN", "buy", 1_000.05]], [{ ratio: 50, round: 0.01 }]).map(brief)).toEqual(["open USDTNGN buy 500.03 7d"]);
  });
});

describe("headers are matched as the pane matches them", () => {
  test("case, spaces and punctuation are ignored, and synonyms are read", () => {
    const rows = propose({
      exposures: readExposures({
        values: [
          ["PAIR", "direction", "exposure_usd"],
          ["usdt/ngn", "BUY", "1,000,000"],
        ],
      }),
      policy: readPolicy({
        values: [
          ["symbol", "Ratio %", "tenor"],
          ["*", "75%", "7d"],
        ],
      }),
      holdings: readHoldings({ values: [["Market", "Side", "Notional (USD)"]] }),
      day: DAY,
    });
    expect(rows.map(brief)).toEqual(["open USDTNGN buy 750000 7d"]);
  });
});

describe("bad input names its cell and the fix", () => {
  test("a Max trade that would split a change into more than 1,000 rows is refused with the least that would do, not proposed row by row", () => {
    expect(() => run([["USDTNGN", "buy", 1_000_000]], [{ max: 0.01, round: 0.01 }])).toThrow(
      new TargetInputError(
        "Max trade 0.01 USD would split 1,000,000.00 USD into 100,000,000 trades; at most 1,000 are made: raise Max trade to at least 1,000.00 USD, or leave it empty.",
      ),
    );
    // 1,000 rows exactly are still proposed.
    expect(run([["USDTNGN", "buy", 1_000_000]], [{ max: 1_000 }])).toHaveLength(1_000);
    expect(() => run([["USDTNGN", "buy", 1_000_010]], [{ max: 1_000, round: 10 }])).toThrow(/into 1,001 trades/);
  });

  const at = { row: 4, column: 2, sheet: "Model" };
  test.each<[string, () => unknown, RegExp]>([
    [
      "a bad amount, by cell",
      () =>
        readExposures({
          values: [
            ["Market", "Side", "Amount"],
            ["USDTNGN", "buy", "lots"],
          ],
          origin: at,
        }),
      /exposures, cell Model!D5 \(row 5, column Amount \(USD\)\): "lots" is not a number: give the USD amount/,
    ],
    [
      "a bad amount, by the range's row without a position",
      () =>
        readExposures({
          values: [
            ["Market", "Side", "Amount"],
            [null, null, null],
            ["USDTNGN", "buy", -5],
          ],
        }),
      /exposures, row 3 of the range, column Amount \(USD\): -5 is out of range/,
    ],
    [
      "a bad side",
      () =>
        readExposures({
          values: [
            ["Market", "Side", "Amount"],
            ["USDTNGN", "long", 5],
          ],
          origin: at,
        }),
      /cell Model!C5 .*"long": use buy or sell/,
    ],
    ["a missing column", () => readExposures({ values: [["Market", "Amount"]] }), /exposures: no Side column\. Add a column headed Side/],
    [
      "a ratio over 100",
      () => readPolicy({ values: policyGrid([{ ratio: 120 }]), origin: at }),
      /policy, cell Model!C5 \(row 5, column Hedge ratio \(%\)\): 120 is more than 100/,
    ],
    [
      "a tenor of 5",
      () => readPolicy({ values: policyGrid([{ tenor: 5 }]) }),
      /policy, row 2 of the range, column Tenor \(days\): 5: use 1, 3 or 7/,
    ],
    ["Net sides maybe", () => readPolicy({ values: policyGrid([{ net: "maybe" }]) }), /column Net sides: "maybe": use yes or no/],
    [
      "a market twice",
      () => readPolicy({ values: policyGrid([{}, {}]) }),
      /row 3 of the range, column Market: USDTNGN also has a policy row above/,
    ],
    [
      "a market without a policy row",
      () => run([["USDTKES", "buy", 5]], [{ market: "USDTNGN" }]),
      /policy: no row for market USDTKES and no \* row/,
    ],
  ])("%s", (_name, call, message) => {
    expect(call).toThrow(TargetInputError);
    expect(call).toThrow(message);
  });
});

describe("property: applying a proposal meets the policy, and applying it again proposes nothing", () => {
  const MARKETS = ["USDTAAA", "USDTBBB", "USDTCCC"];
  const side = fc.constantFrom("buy", "sell");
  const money = fc.integer({ min: 0, max: 300_000_000 }).map((c) => c / 100);
  const arb = fc.record({
    exposures: fc.array(fc.tuple(fc.constantFrom(...MARKETS), side, money), { maxLength: 12 }),
    positions: fc.uniqueArray(fc.tuple(fc.constantFrom(...MARKETS), side, money), { maxLength: 6, selector: ([m, s]) => `${m}|${s}` }),
    policy: fc.record({
      // 0, or 1 % to 100 %: a number between 0 and 1 is refused (a percentage-formatted cell's 0.75 is not 0.75 %).
      ratio: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 100, max: 10_000 }).map((x) => x / 100),
      ),
      round: fc.constantFrom(0.01, 1, 1000, 25_000),
      min: fc.constantFrom(0, 500, 10_000, 100_000),
      max: fc.constantFrom("", 100_000, 777_777.77),
      net: fc.constantFrom("yes", "no"),
    }),
  });

  /** The positions after the rows: what the service would hold once each row filled. */
  function apply(positions: Map<string, number>, rows: ProposalRow[]): Map<string, number> {
    const next = new Map(positions);
    for (const r of rows) {
      const k = `${r.market}|${r.side}`;
      const now = next.get(k) ?? 0;
      if (r.action === "open") expect(now).toBe(0);
      if (r.action !== "open") expect(now).toBeGreaterThan(0);
      const amount = Math.round((r.amountUsd ?? 0) * 100);
      next.set(k, r.action === "close" ? 0 : r.action === "reduce" ? now - amount : now + amount);
    }
    return next;
  }

  test("for random exposures, policies and positions", () => {
    fc.assert(
      fc.property(arb, ({ exposures, positions, policy }) => {
        const pol = [{ market: "*", ...policy }];
        const before = new Map(positions.map(([m, s, size]) => [`${m}|${s}`, Math.round(size * 100)]));
        const rows = run(exposures, pol, positions);
        const after = apply(before, rows);
        const held: Exp[] = [...after].filter(([, c]) => c > 0).map(([k, c]) => [...(k.split("|") as [string, string]), c / 100]);
        for (const r of rows) {
          if (policy.max !== "" && r.amountUsd !== null) expect(r.amountUsd).toBeLessThanOrEqual(Number(policy.max));
          const c = after.get(`${r.market}|${r.side}`) ?? 0;
          expect(Math.abs(c - Math.round(r.targetUsd * 100))).toBeLessThan(Math.max(1, Math.round(policy.min * 100)));
        }
        // Every side in scope is within Min trade of its target: a second run on the new positions proposes nothing.
        expect(run(exposures, pol, held)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
