// The recon's figures on their own: realized lines of the month with exact totals, and open positions with their hedge.
import { attributeRecords } from "../../src/monthend/attribute-records";
import { openLines, openTotals, realizedLines, realizedTotals } from "../../src/monthend/sections";
import { NOV, closed, hedge, position } from "../support/builders";

describe("realized and open sections", () => {
  it("realized: only records closed in the month, newest first, with the hedge's client reference when the record has none", () => {
    const history = [
      closed({ hedge_id: "a", client_reference: undefined, closed_at: "2026-11-03T00:00:00.000Z" }),
      closed({ hedge_id: "b", closed_at: "2026-11-20T00:00:00.000Z" }),
      closed({ hedge_id: "c", closed_at: "2026-12-01T00:00:00.000Z" }),
    ];
    const book = attributeRecords([hedge({ id: "a", client_reference: "DEAL-A" })], history);
    const lines = realizedLines(history, NOV, book);
    expect(lines.map((l) => [l.hedgeId, l.clientReference])).toEqual([
      ["b", "DEAL-1"],
      ["a", "DEAL-A"],
    ]);
  });

  it("totals are exact decimal sums per side (0.1 + 0.2 is 0.3), negative P&L included", () => {
    const history = [
      closed({ side: "buy", net_pnl_usd: 0.1 }),
      closed({ side: "buy", net_pnl_usd: 0.2 }),
      closed({ side: "sell", net_pnl_usd: -0.05 }),
    ];
    const totals = realizedTotals(realizedLines(history, NOV, attributeRecords([], history)));
    expect(totals.map((t) => [t.label, t.count, t.netPnlUsd])).toEqual([
      ["buy", 2, 0.3],
      ["sell", 1, -0.05],
      ["all", 3, 0.25],
    ]);
  });

  it("open: each position with the open hedge of its market and side, and exact totals", () => {
    const book = attributeRecords([hedge({ id: "open-sell", side: "sell", status: "filled" }), hedge({ id: "gone", side: "buy" })], []);
    const lines = openLines([position({ side: "sell", net_pnl_usd: 0.1 }), position({ side: "buy", net_pnl_usd: 0.2 })], book);
    expect(lines.map((l) => l.hedgeId)).toEqual(["open-sell", null]);
    expect(openTotals(lines)).toMatchObject({ count: 2, netPnlUsd: 0.3 });
  });

  it("open: a position takes only an open hedge of its own market, not one of its side in another market", () => {
    const book = attributeRecords([hedge({ id: "kes-sell", market: "USDTKES", side: "sell", status: "filled" })], []);
    const lines = openLines([position({ market: "USDTNGN", side: "sell" }), position({ market: "USDTKES", side: "sell" })], book);
    expect(lines.map((l) => [l.position.market, l.hedgeId])).toEqual([
      ["USDTNGN", null],
      ["USDTKES", "kes-sell"],
    ]);
  });
});
