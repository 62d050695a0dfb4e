// The armed roll's rule as a table (issue 39 item 2), one line per case as src/trading/README.md ("Armed rolls") states it: what an armed side's poll does once its maturity is reached, from what the service shows and what the pane knows; and the roll's reference and key, written once.
import { rollStep, type RollFacts, type RollStep } from "../../../src/trading/desk/rule";
import { rollKey, rollReference, settledAtMaturity } from "../../../src/trading/rolls";

/** Settled at maturity, armed while the workbook was open, nothing on the service, one row to send, no four-eyes. */
const SETTLED: RollFacts = { hedge: "settled", armedBefore: true, rolledOnService: false, sideTaken: false, rows: 1, approval: "direct" };

describe("the armed roll's rule", () => {
  test.each<[string, Partial<RollFacts>, RollStep]>([
    ["not settled yet: wait for the next poll", { hedge: "open" }, { kind: "wait" }],
    ["the service could not be asked: wait", { hedge: "unreachable" }, { kind: "wait" }],
    [
      "not settled outranks everything else",
      { hedge: "open", rolledOnService: true, sideTaken: true, rows: 0, armedBefore: false },
      { kind: "wait" },
    ],
    ["closed before its maturity: not a roll", { hedge: "closed_early" }, { kind: "disarm", why: "closed_early" }],
    [
      "closed early outranks a roll on the service",
      { hedge: "closed_early", rolledOnService: true },
      { kind: "disarm", why: "closed_early" },
    ],
    ["settled, armed, nothing on the service, one row: send at once", {}, { kind: "send" }],
    ["an Open and Max trade's Adds: send", { rows: 3 }, { kind: "send" }],
    ["the roll's reference on the service: rolled elsewhere, nothing sent", { rolledOnService: true }, { kind: "rolled_elsewhere" }],
    ["rolled elsewhere outranks its own hedge holding the side", { rolledOnService: true, sideTaken: true }, { kind: "rolled_elsewhere" }],
    [
      "rolled elsewhere, under four-eyes too",
      { rolledOnService: true, approval: "needed", armedBefore: false },
      { kind: "rolled_elsewhere" },
    ],
    ["another hedge holds the side: not rolled", { sideTaken: true }, { kind: "disarm", why: "side_taken" }],
    ["a side taken outranks a target of 0", { sideTaken: true, rows: 0 }, { kind: "disarm", why: "side_taken" }],
    ["target 0 (the exposure is paid): nothing to roll", { rows: 0 }, { kind: "disarm", why: "target_zero" }],
    ["no model yet (no proposal): proposed, never sent", { rows: null }, { kind: "propose", why: "no_model" }],
    [
      "no model outranks four-eyes and a side found settled",
      { rows: null, approval: "needed", armedBefore: false },
      { kind: "propose", why: "no_model" },
    ],
    ["a side taken outranks no model", { rows: null, sideTaken: true }, { kind: "disarm", why: "side_taken" }],
    ["target 0 outranks the proposal of a side found settled", { rows: 0, armedBefore: false }, { kind: "disarm", why: "target_zero" }],
    [
      "settled while the workbook was closed: proposed, never sent without a click",
      { armedBefore: false },
      { kind: "propose", why: "opened_after" },
    ],
    [
      "found settled under four-eyes: proposed (opened after)",
      { armedBefore: false, approval: "needed" },
      { kind: "propose", why: "opened_after" },
    ],
    ["four-eyes without a standing roll instruction: proposed for approval", { approval: "needed" }, { kind: "propose", why: "four_eyes" }],
    ["four-eyes with a standing roll instruction covering it: sent", { approval: "covered" }, { kind: "send" }],
  ])("%s", (_, facts, step) => {
    expect(rollStep({ ...SETTLED, ...facts })).toEqual(step);
  });
});

describe("the roll's reference and key, one rule", () => {
  const maturity = Date.parse("2026-11-30T17:00:42.123Z");

  it("names the side and the maturity to the minute, in UTC, with the row's place", () => {
    expect(rollReference(maturity, "USDTNGN", "buy", 1)).toBe("ROLL-2026-11-30T17:00Z-USDTNGN-BUY-1");
    expect(rollReference(maturity, "USDTNGN", "sell", 2)).toBe("ROLL-2026-11-30T17:00Z-USDTNGN-SELL-2");
  });

  it("derives the same key from the same reference on any computer, another from another reference or attempt", () => {
    const ref = rollReference(maturity, "USDTNGN", "buy", 1);
    expect(rollKey(ref)).toBe(rollKey(ref, 0));
    expect(rollKey(ref)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(
      new Set([
        rollKey(ref),
        rollKey(ref, 1),
        rollKey(rollReference(maturity, "USDTNGN", "buy", 2)),
        rollKey(rollReference(maturity + 60_000, "USDTNGN", "buy", 1)),
      ]).size,
    ).toBe(4);
    // Pinned: a key once sent must be derived the same by every later version, or two versions would both send.
    expect(rollKey("ROLL-2026-11-30T17:00Z-USDTNGN-BUY-1")).toBe("f84c8847-5f04-88ac-aed7-32069c530034");
  });

  it("reads a side settled at maturity only from its newest closed hedge", () => {
    const rec = (side: string, closed: string, exit: string, market = "USDTNGN") => ({ market, side, closed_at: closed, exit_type: exit });
    expect(
      settledAtMaturity([
        rec("buy", "2026-11-20T11:00:00Z", "maturity"),
        rec("buy", "2026-11-27T11:00:00Z", "maturity"),
        rec("sell", "2026-11-27T11:00:00Z", "close"),
        rec("sell", "2026-11-20T11:00:00Z", "maturity"),
        rec("both", "2026-11-27T11:00:00Z", "maturity"),
        rec("buy", "not a time", "maturity", "USDTKES"),
      ]),
    ).toEqual([{ market: "USDTNGN", side: "buy", maturedAtMs: Date.parse("2026-11-27T11:00:00Z") }]);
  });

  it("reads each market side on its own: two sides settled at their maturities are both rolled", () => {
    const rec = (market: string, side: string, closed: string) => ({ market, side, closed_at: closed, exit_type: "maturity" });
    expect(
      settledAtMaturity([
        rec("USDTNGN", "sell", "2026-11-28T11:00:00Z"),
        rec("USDTNGN", "buy", "2026-11-27T11:00:00Z"),
        rec("USDTKES", "buy", "2026-11-26T11:00:00Z"),
      ]),
    ).toEqual([
      { market: "USDTNGN", side: "sell", maturedAtMs: Date.parse("2026-11-28T11:00:00Z") },
      { market: "USDTNGN", side: "buy", maturedAtMs: Date.parse("2026-11-27T11:00:00Z") },
      { market: "USDTKES", side: "buy", maturedAtMs: Date.parse("2026-11-26T11:00:00Z") },
    ]);
  });
});
