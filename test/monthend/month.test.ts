// Months in UTC, the recon sheet's name, and exact sums of amounts.
import { defaultMonth, inWindow, monthWindow, parseMonth, reconSheetName, recentMonths, uniqueSheetName } from "../../src/monthend/month";
import { exactSum } from "../../src/monthend/exact-sum";

describe("months", () => {
  it("windows run from the first UTC midnight to the next month's, whatever the local zone", () => {
    const w = monthWindow("2026-12");
    expect(new Date(w.startMs).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(new Date(w.endMs).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(inWindow("2026-12-31T23:59:59.999Z", w)).toBe(true);
    expect(inWindow("2027-01-01T00:00:00.000Z", w)).toBe(false);
    expect(inWindow("2026-12-01T01:00:00+02:00", w)).toBe(false); // 2026-11-30 23:00 UTC
    expect(inWindow("not a time", w)).toBe(false);
  });

  it("refuses a month that is not YYYY-MM, saying the form", () => {
    expect(() => parseMonth("2026-13")).toThrow(/YYYY-MM, for example 2026-11/);
    expect(() => parseMonth("Nov 2026")).toThrow(/YYYY-MM/);
  });

  it("names the sheet and never takes a name already there", () => {
    expect(reconSheetName("2026-11")).toBe("Hedge Recon 2026-11");
    expect(uniqueSheetName("Hedge Recon 2026-11", ["hedge recon 2026-11", "Hedge Recon 2026-11 (2)"])).toBe("Hedge Recon 2026-11 (3)");
  });

  it("offers the previous month during the first ten days, and the last 13 months newest first", () => {
    expect(defaultMonth(Date.UTC(2026, 11, 3))).toEqual({ year: 2026, month: 11 });
    expect(defaultMonth(Date.UTC(2026, 0, 5))).toEqual({ year: 2025, month: 12 });
    expect(defaultMonth(Date.UTC(2026, 10, 20))).toEqual({ year: 2026, month: 11 });
    const months = recentMonths(Date.UTC(2026, 1, 15));
    expect(months.slice(0, 3)).toEqual(["2026-02", "2026-01", "2025-12"]);
    expect(months).toHaveLength(13);
  });
});

describe("exactSum", () => {
  it("adds amounts as the decimals they print as", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(exactSum([0.1, 0.2])).toBe(0.3);
    expect(exactSum([1_000_000.01, -0.01, 0.000001])).toBe(1_000_000.000001);
    expect(exactSum(Array.from({ length: 1000 }, () => 0.01))).toBe(10);
    expect(exactSum([1e21, 1])).toBe(1e21 + 1);
    expect(exactSum([-0.5, 0.5])).toBe(0);
    expect(exactSum([])).toBe(0);
  });

  it("keeps totals below 0.1 and negative totals (realized P&L can be either) at their decimal place", () => {
    expect(exactSum([0.02, 0.03])).toBe(0.05);
    expect(exactSum([0.001, 0.002])).toBe(0.003);
    expect(exactSum([0.07, -0.02])).toBe(0.05);
    expect(exactSum([-0.02, -0.03])).toBe(-0.05);
    expect(exactSum([-0.07, 0.02])).toBe(-0.05);
    expect(exactSum([-1_250.75, 0.5, -0.25])).toBe(-1_250.5);
    expect(exactSum([-3])).toBe(-3);
    expect(exactSum([1e-7, 2e-7])).toBe(3e-7);
    expect(exactSum([-1e-7, 0.5])).toBe(0.4999999);
    expect(exactSum([12, 30])).toBe(42);
  });

  it("refuses what is not a finite amount", () => {
    expect(() => exactSum([1, Number.NaN])).toThrow(/finite/);
  });
});
