// The proposal built once (src/policy/proposal.ts) on its own: an armed roll's rows (rollRowsAt) and a selection read as one of HEDGE.TARGET's ranges (rangeOfSelection).
import { proposalContent, rangeOfSelection, rollRowsAt } from "../../src/policy/proposal";
import type { PolicyRow } from "../../src/policy/inputs";
import type { SelectedRows } from "../../src/trading/workbook";

const HOUR = 3_600_000;
const MATURED = Date.parse("2026-11-25T08:00:00.000Z");
const policy = (over: Partial<PolicyRow> = {}): PolicyRow => ({
  market: "*",
  ratio: 0.75,
  tenor: 7,
  roundToUsd: 1_000,
  minTradeUsd: 0,
  maxTradeUsd: 250_000,
  netSides: false,
  rollWithinHours: 24,
  roll: "at maturity",
  workingDays: [0, 1, 2, 3, 4, 5, 6],
  ...over,
});
const exposures = [
  { market: "USDTNGN", side: "buy" as const, amountUsd: 800_000 },
  { market: "USDTNGN", side: "sell" as const, amountUsd: 400_000 },
  { market: "USDTKES", side: "buy" as const, amountUsd: 100_000 },
];

describe("rollRowsAt: an armed roll's rows", () => {
  it("the side's target opened again, split by Max trade, named by its maturity, as trade rows; nothing of the other sides", () => {
    const rows = rollRowsAt(
      { exposures, policy: [policy()] },
      [
        { market: "USDTNGN", side: "buy", sizeUsd: 600_000, maturityMs: MATURED }, // the hedge that settled: no longer held
        { market: "USDTNGN", side: "sell", sizeUsd: 100_000 }, // another side, under its target: left alone
      ],
      { market: "USDTNGN", side: "buy" },
      MATURED,
      MATURED + HOUR,
    );
    expect(rows).toEqual([
      {
        rowNumber: 1,
        action: "open",
        market: "USDTNGN",
        side: "buy",
        notional: 250_000,
        tenor: 7,
        clientReference: "ROLL-2026-11-25T08:00Z-USDTNGN-BUY-1",
      },
      {
        rowNumber: 2,
        action: "add",
        market: "USDTNGN",
        side: "buy",
        notional: 250_000,
        tenor: null,
        clientReference: "ROLL-2026-11-25T08:00Z-USDTNGN-BUY-2",
      },
      {
        rowNumber: 3,
        action: "add",
        market: "USDTNGN",
        side: "buy",
        notional: 100_000,
        tenor: null,
        clientReference: "ROLL-2026-11-25T08:00Z-USDTNGN-BUY-3",
      },
    ]);
  });

  it("the rolled side's own holding is the hedge that settled: not counted, its whole target opens (Max trade none: one row)", () => {
    const rows = rollRowsAt(
      { exposures, policy: [policy({ maxTradeUsd: null })] },
      [
        { market: "USDTNGN", side: "sell", sizeUsd: 100_000 },
        { market: "USDTNGN", side: "buy", sizeUsd: 600_000 },
      ],
      { market: "USDTNGN", side: "sell" },
      MATURED,
      MATURED + HOUR,
    );
    expect(rows.map((r) => [r.action, r.notional, r.clientReference])).toEqual([
      ["open", 300_000, "ROLL-2026-11-25T08:00Z-USDTNGN-SELL-1"],
    ]);
  });
});

describe("rangeOfSelection", () => {
  it("the selection's header row and rows, at its sheet, its header row and its first column, with each row's sheet row", () => {
    const selection: SelectedRows = {
      sheetName: "Model",
      address: "Model!C5:E9",
      tableName: null,
      headers: ["Market", "Side", "Amount (USD)"],
      headerRowNumber: 4,
      rows: [
        { rowNumber: 5, values: ["USDTNGN", "buy", 1] },
        { rowNumber: 9, values: ["USDTKES", "sell", 2] },
      ],
      hiddenRowsSkipped: 3,
    };
    expect(rangeOfSelection(selection)).toEqual({
      values: [
        ["Market", "Side", "Amount (USD)"],
        ["USDTNGN", "buy", 1],
        ["USDTKES", "sell", 2],
      ],
      origin: { row: 4, column: 3, sheet: "Model", rowNumbers: [4, 5, 9] },
    });
    // An address that is no cell reference: column A.
    expect(rangeOfSelection({ ...selection, address: "" }).origin).toEqual({ row: 4, column: 1, sheet: "Model", rowNumbers: [4, 5, 9] });
  });
});

describe("proposalContent: the Hedge Proposal sheet", () => {
  const sel = (sheetName: string, grid: (string | number)[][]): SelectedRows => ({
    sheetName,
    address: `${sheetName}!A1:D${grid.length}`,
    tableName: null,
    headers: grid[0].map(String),
    headerRowNumber: 1,
    rows: grid.slice(1).map((values, i) => ({ rowNumber: i + 2, values })),
    hiddenRowsSkipped: 0,
  });
  it("a header row of text in bold, amounts as USD and the tenor as a count below it, widths for every column, the inputs it read", () => {
    const model = sel("Model", [
      ["Market", "Side", "Amount (USD)"],
      ["USDTNGN", "buy", 400_000],
    ]);
    const pol = sel("Policy", [
      ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)"],
      ["*", 50, 7, 1_000],
    ]);
    const { content, inputs } = proposalContent(model, pol, [], new Date("2026-11-25T09:30:00Z"), { history: undefined });
    expect(content.name).toBe("Hedge Proposal");
    expect(content.formats[0].every((f) => f === "@")).toBe(true);
    expect(content.formats[1]).toEqual(["@", "@", "@", "#,##0.00", "0", "@", "#,##0.00", "#,##0.00", "@"]);
    expect(content.values[1].slice(0, 5)).toEqual(["Open", "USDTNGN", "buy", 200_000, 7]);
    expect(content.columnWidths).toHaveLength(9);
    expect(content.columnWidths.every((w) => typeof w === "number" && w > 0)).toBe(true);
    expect([content.boldRows, content.sections]).toEqual([[0], []]);
    expect(inputs.exposures).toEqual([{ market: "USDTNGN", side: "buy", amountUsd: 400_000 }]);
    expect(inputs.policy.map((p) => [p.market, p.ratio])).toEqual([["*", 0.5]]);
  });
});
