// Propose and a batch from the Action column as the pane shows them: the Hedge Proposal sheet's content, bad cells named by their sheet cell, and the mixed batch's wording.
import { proposalContent, PROPOSAL_SHEET, tradeRowsOf } from "../../src/policy/proposal";
import { proposalSummary } from "../../src/taskpane/propose-control";
import { batchTitle, confirmation, previewTotals } from "../../src/taskpane/trade-model";
import type { SelectedRows } from "../../src/trading/workbook";
import type { CellValue } from "../../src/trading/cells";
import { openLine, position, preview, row } from "./fixtures";

function selection(sheetName: string, address: string, headerRowNumber: number, grid: CellValue[][], rowNumbers?: number[]): SelectedRows {
  return {
    sheetName,
    address,
    tableName: null,
    headers: grid[0].map(String),
    headerRowNumber,
    rows: grid.slice(1).map((values, i) => ({ rowNumber: rowNumbers?.[i] ?? headerRowNumber + 1 + i, values })),
    hiddenRowsSkipped: 0,
  };
}
const NOW = new Date("2026-11-25T09:30:00Z");
const POLICY = selection("Policy", "Policy!B3:E3", 2, [
  ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)"],
  ["*", 75, 7, 1_000],
]);

describe("Propose: the Hedge Proposal sheet", () => {
  test("a live position on a side the spec does not list is refused, naming it: no proposal counts it as buy, sell or nothing", () => {
    const model = selection("Model", "Model!A2:C2", 1, [
      ["Market", "Side", "Amount (USD)"],
      ["USDTNGN", "buy", 1_000_000],
    ]);
    expect(() =>
      proposalContent(
        model,
        POLICY,
        [
          { ...position, side: "buy", size_usd: 500_000 },
          { ...position, side: "long" },
        ],
        NOW,
      ),
    ).toThrow(
      'The service shows an open USDTNGN position on the side "long", which is neither buy nor sell: no proposal is made until it is closed or the add-in understands that side.',
    );
  });

  test("the proposal from the live positions as plain values: header bold, USD columns as amounts, the day's references", () => {
    const model = selection("Model", "Model!A2:C3", 1, [
      ["Market", "Side", "Amount (USD)"],
      ["USDTNGN", "buy", 1_000_000],
      ["USDTNGN", "sell", 200_000],
    ]);
    const { rows, content } = proposalContent(
      model,
      POLICY,
      [{ ...position, side: "buy", size_usd: 500_000, maturity_at: "2026-11-30T00:00:00Z" }],
      NOW,
    );
    expect(content.name).toBe(PROPOSAL_SHEET);
    expect(content.values.slice(1).map((r) => r.slice(0, 8))).toEqual([
      ["Add", "USDTNGN", "buy", 100_000, "", "TARGET-2026-11-25-USDTNGN-BUY-1", 500_000, 600_000],
    ]);
    expect(content.formats[1].slice(0, 8)).toEqual(["@", "@", "@", "#,##0.00", "0", "@", "#,##0.00", "#,##0.00"]);
    expect(content.boldRows).toEqual([0]);
    expect(content.columnWidths).toHaveLength(content.values[0].length);
    expect(proposalSummary(rows, "Hedge Proposal (2)")).toBe(
      "1 row proposed on Hedge Proposal (2) (1 Add). Review them, then select them and press Read selection to trade them as one batch.",
    );
    expect(proposalSummary([], PROPOSAL_SHEET)).toMatch(/^Nothing to do: every hedge is within Min trade of its target/);
  });

  test("a bad cell is named by its sheet cell, hidden rows counted as Excel numbers them", () => {
    // Rows 3 and 4 are hidden: the selection hands over rows 2 and 5.
    const model = selection(
      "Model",
      "Model!B2:D5",
      1,
      [
        ["Market", "Side", "Amount"],
        ["USDTNGN", "buy", 5],
        ["USDTNGN", "buy", "ten"],
      ],
      [2, 5],
    );
    expect(() => proposalContent(model, POLICY, [], NOW)).toThrow(
      /exposures, cell Model!D5 \(row 5, column Amount \(USD\)\): "ten" is not a number/,
    );
  });
});

describe("a batch from the Action column", () => {
  const close = openLine(2, {
    row: row(2, { action: "close", side: "sell", notional: null, tenor: null }),
    quote: null,
    position,
    marginBackUsdc: 9_000,
    collateralUsdc: 0,
    carryUsdc: 0,
  });
  const open = openLine(3, { row: row(3, { notional: 300_000 }) });
  const add = openLine(4, { row: row(4, { action: "add", notional: 75_000, tenor: null }) });
  const mixed = preview([close, open, add], { action: "column" });

  test("its title names the choice and the mix of actions in trading order", () => {
    expect(batchTitle(mixed)).toBe("From the Action column: 3 rows (1 Close, 1 Open, 1 Add)");
    expect(batchTitle(preview([open]))).toBe("Open 1 row");
  });

  test("its totals show both the collateral of the opens and adds and the margin back of the closes", () => {
    expect(previewTotals(mixed).map((c) => c.label)).toEqual([
      "Rows",
      "Total notional",
      "Collateral to lock",
      "Carry over tenors",
      "Margin expected back",
    ]);
    expect(previewTotals(preview([close], { action: "close" })).map((c) => c.label)).toEqual(["Rows", "Margin expected back"]);
  });

  test("the LIVE question names the rows' actions", () => {
    const c = confirmation("production", "column", 3, 475_000, 0, ["close", "open", "add"]);
    expect(c.steps).toBe(2);
    expect(c.dialog).toBe(
      "LIVE environment — production money. 3 rows from the Action column (1 Close, 1 Open, 1 Add), total notional 475,000.00 USD. Send these orders?",
    );
  });
});

describe("Propose rolls what matures within the policy's window", () => {
  const model = selection("Model", "Model!A1:C3", 1, [
    ["Market", "Side", "Amount (USD)"],
    ["USDTNGN", "buy", 800_000],
    ["USDTKES", "buy", 100_000],
  ]);
  const soon = { ...position, side: "buy" as const, size_usd: 600_000, maturity_at: "2026-11-25T20:00:00Z" };
  const early = selection("Policy", "Policy!B3:F3", 2, [
    ["Market", "Hedge ratio (%)", "Tenor (days)", "Round to (USD)", "Roll"],
    ["*", 75, 7, 1_000, "early"],
  ]);

  test("at maturity (the default): the side maturing within 24 h is left to settle; once the history shows it settled, its Open is the roll's", () => {
    expect(proposalContent(model, POLICY, [soon], NOW).rows.map((r) => r.clientReference)).toEqual(["TARGET-2026-11-25-USDTKES-BUY-1"]);
    const settled = {
      market: "USDTNGN",
      side: "buy" as const,
      size_usd: 600_000,
      collateral_usdc: 0,
      entry_price: 1,
      exit_price: 1,
      opened_at: "2026-11-18T20:00:00Z",
      closed_at: "2026-11-25T08:00:00Z",
      exit_type: "maturity" as const,
      gross_pnl_usd: 0,
      net_pnl_usd: 0,
      carry_usd: 0,
      fees_usd: 0,
    };
    const { rows } = proposalContent(model, POLICY, [], NOW, { history: [settled] });
    expect(rows.map((r) => [r.action, r.clientReference, r.amountUsd])).toEqual([
      ["open", "TARGET-2026-11-25-USDTKES-BUY-1", 75_000],
      ["open", "ROLL-2026-11-25T08:00Z-USDTNGN-BUY-1", 600_000],
    ]);
    expect(rows[1].reason).toMatch(/^Roll: matured 2026-11-25 08:00 UTC\. Open 600,000\.00/);
  });

  test("Propose beside one side: that side's rows only", () => {
    const { rows, content } = proposalContent(model, early, [soon], NOW, { only: { market: "USDTNGN", side: "buy" } });
    expect(rows.map((r) => r.clientReference)).toEqual(["ROLL-2026-11-25-USDTNGN-BUY-0", "ROLL-2026-11-25-USDTNGN-BUY-1"]);
    expect(content.values).toHaveLength(3);
  });

  test("Roll early: a live position maturing within 24 h of now is proposed as Close then Open, with ROLL references", () => {
    const { rows } = proposalContent(model, early, [soon], NOW, { only: { market: "USDTNGN", side: "buy" } });
    expect(rows.map((r) => [r.action, r.clientReference, r.amountUsd])).toEqual([
      ["close", "ROLL-2026-11-25-USDTNGN-BUY-0", null],
      ["open", "ROLL-2026-11-25-USDTNGN-BUY-1", 600_000],
    ]);
    expect(rows[0].reason).toMatch(/^Roll: matures 2026-11-25 20:00 UTC\./);
  });

  test("a proposal's rows as the desk's trade rows: in order, numbered from the first row given, a Close with no amount or tenor", () => {
    const { rows } = proposalContent(model, early, [soon], NOW, { only: { market: "USDTNGN", side: "buy" } });
    const trade = { market: "USDTNGN", side: "buy" };
    expect(tradeRowsOf(rows, 2)).toEqual([
      { ...trade, rowNumber: 2, action: "close", notional: null, tenor: null, clientReference: "ROLL-2026-11-25-USDTNGN-BUY-0" },
      { ...trade, rowNumber: 3, action: "open", notional: 600_000, tenor: 7, clientReference: "ROLL-2026-11-25-USDTNGN-BUY-1" },
    ]);
    expect(tradeRowsOf(rows).map((r) => r.rowNumber)).toEqual([1, 2]);
  });
});
