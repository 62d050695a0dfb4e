// The fill judgement for Add, Reduce and Close: the open's fill details are not copied onto them, and an add whose hedge closed first is not called filled.
import { judge } from "../../src/trading/fills";
import { intentFromRow } from "../../src/trading/intent";
import type { Hedge } from "../../src/api/schemas";
import type { Action } from "../../src/trading/types";

const LOGGED = "2025-03-04T10:00:00.000Z";
const OPEN_FILL = { fill_tx_hash: "0xopenfill", struck_rate: 1500.5, filled_at: "2025-03-04T09:00:00.000Z" };

function intent(action: Action, expected: number | null) {
  const i = intentFromRow(
    {
      rowNumber: 2,
      action,
      market: "USDTNGN",
      side: "buy",
      notional: action === "close" ? null : 10_000,
      tenor: null,
      clientReference: null,
    },
    `k-${action}`,
    "sandbox",
    LOGGED,
  );
  i.status = "submitted";
  i.hedgeId = "h-1";
  i.expectedNotional = expected;
  return i;
}

const hedge = (over: Partial<Hedge>): Hedge =>
  ({
    id: "h-1",
    market: "USDTNGN",
    side: "buy",
    status: "filled",
    notional_usd: 110_000,
    tenor_days: 7,
    order_tx_hash: "0xo",
    ...OPEN_FILL,
    ...over,
  }) as unknown as Hedge;

describe("fill details of add, reduce and close", () => {
  it("leaves the open's fill tx, struck rate and filled-at off an add or reduce that filled", () => {
    for (const [action, expected, notional] of [
      ["add", 110_000, 110_000],
      ["reduce", 90_000, 90_000],
    ] as const) {
      const patch = judge(intent(action, expected), hedge({ notional_usd: notional }))!;
      expect(patch.status).toBe("filled");
      expect(patch).not.toHaveProperty("fillTxHash");
      expect(patch).not.toHaveProperty("struckRate");
      expect(patch).not.toHaveProperty("filledAt");
    }
    expect(judge(intent("close", 0), hedge({ status: "closed" }))).toEqual({ status: "closed", message: "Closed." });
  });

  it("records them when the hedge shows a fill made after the row was journalled", () => {
    const later = { fill_tx_hash: "0xaddfill", struck_rate: 1501.25, filled_at: "2025-03-04T10:00:05.000Z" };
    expect(judge(intent("add", 110_000), hedge(later))).toMatchObject({
      status: "filled",
      fillTxHash: "0xaddfill",
      struckRate: 1501.25,
      filledAt: later.filled_at,
    });
  });

  it("an open still records its own fill", () => {
    expect(judge(intent("open", null), hedge({}))).toMatchObject({
      status: "filled",
      fillTxHash: "0xopenfill",
      struckRate: 1500.5,
      filledAt: OPEN_FILL.filled_at,
    });
  });

  it("an add whose hedge is closed before the add was confirmed is closed, not filled", () => {
    expect(judge(intent("add", 110_000), hedge({ status: "closed" }))).toEqual({
      status: "closed",
      message: expect.stringContaining("closed before the add was confirmed"),
    });
  });
});
