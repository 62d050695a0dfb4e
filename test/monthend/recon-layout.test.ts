// The recon sheet's layout (reconContent): what a history read cut short puts first, and the minute the open positions' section names.
import { reconcile } from "../../src/monthend/reconcile";
import { reconContent } from "../../src/monthend/recon-layout";
import { closed, monthData } from "../support/builders";

describe("a history read cut short", () => {
  it("is the header's first line, bold, and says what may be missing; absent when the read was whole", () => {
    const cut = reconContent(
      reconcile(
        monthData({
          history: [closed()],
          historyComplete: false,
          historyIncompleteReason: "it stopped at the limit of 40 pages of 500 records",
        }),
      ),
    );
    expect(cut.values[1].slice(0, 2)).toEqual([
      "WARNING: history incomplete",
      expect.stringMatching(
        /read only in part \(it stopped at the limit of 40 pages.*the 1 records read are the newest ones, older records of the month are missing/,
      ),
    ]);
    expect(cut.boldRows).toContain(1);
    const whole = reconContent(reconcile(monthData({ history: [closed()] })));
    expect(whole.values.some((r) => r[0] === "WARNING: history incomplete")).toBe(false);
    expect(whole.values[1][0]).toBe("Environment");
  });
});

describe("the open positions' section", () => {
  it("is titled with the minute the sheet was made, in UTC, the seconds cut off", () => {
    const at = Date.UTC(2026, 11, 1, 10, 4, 59, 999);
    const sheet = reconContent(reconcile(monthData({ generatedAtMs: at })));
    expect(sheet.values.filter((r) => String(r[0]).startsWith("Open positions at")).map((r) => r[0])).toEqual([
      "Open positions at 2026-12-01 10:04 UTC",
    ]);
  });
});
