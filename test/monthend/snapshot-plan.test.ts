// Which formulas Snapshot to values replaces, what they become, and the note that records when.
import { appendNote, findHedgeFormulas, isHedgeFormula, planSnapshot, snapshotNote } from "../../src/monthend/snapshot-plan";

const AT = new Date("2026-11-30T17:00:42Z");

describe("isHedgeFormula", () => {
  it.each([
    ['=HEDGE.PRICE("USDTNGN")', true],
    ["=hedge.positions()", true],
    ['=SUM(HEDGE.QUOTE("USDTNGN","buy",1000,7,"carry.total_usdc"), 1)', true],
    ["=HEDGE.HISTORY ( )", true],
    ["=SUM(A1:A3)", false],
    ['="HEDGE.PRICE(" & A1', false],
    ["='HEDGE.PRICE('!A1", false],
    ["=MYHEDGE.PRICE(1)", false],
    ["=MY.HEDGE.PRICE(1)", false],
    ["=MY_HEDGE.PRICE(1)", false],
    ["=X1HEDGE.PRICE(1)", false],
    ["=HEDGE.PRICE", false], // a name, not a call
    ["=A1+HEDGE.PRICE(1)", true],
    ["HEDGE.PRICE(1)", false], // text, not a formula
    [42, false],
  ])("%p → %p", (formula, expected) => {
    expect(isHedgeFormula(formula)).toBe(expected);
  });
});

describe("findHedgeFormulas", () => {
  it("gives sheet coordinates from the block's top-left cell", () => {
    const formulas = [
      ["Price", '=HEDGE.PRICE("USDTNGN")'],
      ["=1+1", 3],
    ];
    expect(findHedgeFormulas(formulas, 4, 2)).toEqual([{ row: 4, column: 3, formula: '=HEDGE.PRICE("USDTNGN")' }]);
  });

  it("numbers the rows below the first from the block's top row", () => {
    const formulas = [["=1"], ["=2"], ["=HEDGE.POSITIONS()"]];
    expect(findHedgeFormulas(formulas, 10, 0)).toEqual([{ row: 12, column: 0, formula: "=HEDGE.POSITIONS()" }]);
  });
});

describe("planSnapshot", () => {
  it("replaces a single formula by its value and a spill by its whole block, with a note naming the formula and the minute", () => {
    const plan = planSnapshot(
      [
        {
          row: 0,
          column: 0,
          formula: '=HEDGE.PRICE("USDTNGN")',
          shown: { row: 0, column: 0, values: [[1502.35]], valueTypes: [["Double"]] },
        },
        {
          row: 2,
          column: 1,
          formula: "=HEDGE.POSITIONS()",
          shown: {
            row: 2,
            column: 1,
            values: [
              ["market", "side"],
              ["USDTNGN", null],
            ],
            valueTypes: [
              ["String", "String"],
              ["String", "Empty"],
            ],
          },
        },
      ],
      AT,
    );
    expect(plan.writes.map((w) => [w.row, w.column, w.values])).toEqual([
      [0, 0, [[1502.35]]],
      [
        2,
        1,
        [
          ["market", "side"],
          ["USDTNGN", ""],
        ],
      ],
    ]);
    expect(plan.writes[0].note).toBe('HEDGE.PRICE("USDTNGN") snapshot at 2026-11-30 17:00 UTC');
    expect(plan.cellCount).toBe(5);
    expect(plan.skipped).toEqual([]);
  });

  it("leaves a formula that shows an error or is still busy, and says why", () => {
    const plan = planSnapshot(
      [
        {
          row: 1,
          column: 1,
          formula: "=HEDGE.POSITIONS()",
          shown: { row: 1, column: 1, values: [["a"], ["#BUSY!"]], valueTypes: [["String"], ["Error"]] },
        },
      ],
      AT,
    );
    expect(plan.writes).toEqual([]);
    expect(plan.skipped[0].reason).toMatch(/#BUSY!/);
  });

  it("keeps what a note already says", () => {
    expect(appendNote("checked by AB", "x")).toBe("checked by AB\nx");
    expect(appendNote("", "x")).toBe("x");
    expect(snapshotNote("=HEDGE.PRICE(A1)", AT)).toBe("HEDGE.PRICE(A1) snapshot at 2026-11-30 17:00 UTC");
  });

  it("leaves a formula whose spill Excel reports elsewhere than its own cell, saying so", () => {
    const at = (row: number, column: number) => ({ row, column, values: [[1]], valueTypes: [["Double"]] });
    const plan = planSnapshot(
      [
        { row: 3, column: 2, formula: "=HEDGE.POSITIONS()", shown: at(4, 2) },
        { row: 3, column: 2, formula: "=HEDGE.HISTORY()", shown: at(3, 1) },
      ],
      AT,
    );
    expect(plan.writes).toEqual([]);
    expect(plan.cellCount).toBe(0);
    expect(plan.skipped).toEqual(
      ["=HEDGE.POSITIONS()", "=HEDGE.HISTORY()"].map((formula) => ({
        row: 3,
        column: 2,
        formula,
        reason: "Excel reported a spill that does not start at the formula's cell",
      })),
    );
  });

  it("names the first error it shows, in its first cell too, in the reason", () => {
    const plan = planSnapshot(
      [
        {
          row: 0,
          column: 0,
          formula: "=HEDGE.PRICE(A1)",
          shown: { row: 0, column: 0, values: [["#N/A", 2]], valueTypes: [["Error", "Double"]] },
        },
      ],
      AT,
    );
    expect(plan.skipped.map((s) => s.reason)).toEqual([
      "it shows #N/A (still calculating or an error): wait for a value, then snapshot again",
    ]);
  });

  it("cuts a long formula in the note at 900 characters, and keeps a note of only spaces no more than an empty one", () => {
    const long = `=HEDGE.QUOTE("${"x".repeat(2_000)}")`;
    expect(snapshotNote(long, AT)).toBe(`${long.slice(1, 901)}… snapshot at 2026-11-30 17:00 UTC`);
    const exact = `HEDGE.PRICE("${"y".repeat(900 - 15)}")`;
    expect(exact).toHaveLength(900);
    expect(snapshotNote(`=${exact}`, AT)).toBe(`${exact} snapshot at 2026-11-30 17:00 UTC`);
    expect(snapshotNote("HEDGE.PRICE(A1)", AT)).toBe("HEDGE.PRICE(A1) snapshot at 2026-11-30 17:00 UTC");
    expect(appendNote("   ", "x")).toBe("x");
    expect(appendNote(null, "x")).toBe("x");
  });
});
