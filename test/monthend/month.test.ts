// Months in UTC, the recon sheet's name, and exact sums of amounts.
import {
  addMonths,
  defaultMonth,
  inWindow,
  monthOf,
  monthWindow,
  parseMonth,
  reconSheetName,
  recentMonths,
  uniqueSheetName,
} from "../../src/monthend/month";
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

describe("months at their edges", () => {
  it("reads every month from January to December, with spaces around it, and refuses anything around or inside the form", () => {
    expect(parseMonth(" 2026-01 ")).toEqual({ year: 2026, month: 1 });
    expect(parseMonth("2026-12")).toEqual({ year: 2026, month: 12 });
    for (const text of ["2026-00", "2026-1", "x2026-11", "2026-11x", "12026-11", "2026-11-01", ""]) {
      expect(() => parseMonth(text)).toThrow(`Month "${text}" is not a month: use the form YYYY-MM, for example 2026-11.`);
    }
  });

  it("labels a month as it was typed, the year and month zero-padded", () => {
    for (const text of ["0999-03", "2026-01", "2026-10"]) expect(monthWindow(text).label).toBe(text);
    expect(reconSheetName({ year: 2026, month: 3 })).toBe("Hedge Recon 2026-03");
    expect(monthWindow({ year: 2026, month: 1 }).startMs).toBe(Date.UTC(2026, 0, 1));
  });

  it("holds its first instant and not the last instant before it; an empty or missing time is in no month", () => {
    const w = monthWindow("2026-11");
    expect(inWindow("2026-11-01T00:00:00.000Z", w)).toBe(true);
    expect(inWindow("2026-10-31T23:59:59.999Z", w)).toBe(false);
    expect(inWindow("", w)).toBe(false);
    expect(inWindow(null, w)).toBe(false);
    expect(inWindow(undefined, w)).toBe(false);
  });

  it("steps months across years both ways, and tells the month of an instant", () => {
    expect(addMonths({ year: 2026, month: 11 }, 2)).toEqual({ year: 2027, month: 1 });
    expect(addMonths({ year: 2026, month: 1 }, -13)).toEqual({ year: 2024, month: 12 });
    expect(addMonths({ year: 2026, month: 12 }, 0)).toEqual({ year: 2026, month: 12 });
    expect(monthOf(Date.UTC(2026, 0, 1))).toEqual({ year: 2026, month: 1 });
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toEqual({ year: 2026, month: 12 });
  });

  it("offers the previous month up to the 10th's last instant and the current one from the 11th", () => {
    expect(defaultMonth(Date.UTC(2026, 10, 10, 23, 59))).toEqual({ year: 2026, month: 10 });
    expect(defaultMonth(Date.UTC(2026, 10, 11))).toEqual({ year: 2026, month: 11 });
    expect(recentMonths(Date.UTC(2026, 1, 15), 2)).toEqual(["2026-02", "2026-01"]);
  });

  it("keeps a free name, numbers a taken one whatever its case, and stops at Excel's 31 characters", () => {
    expect(uniqueSheetName("Hedge Recon 2026-11", ["Hedge Recon 2026-10"])).toBe("Hedge Recon 2026-11");
    expect(uniqueSheetName("Hedge Recon 2026-11", ["HEDGE RECON 2026-11", "hedge recon 2026-11 (2)"])).toBe("Hedge Recon 2026-11 (3)");
    const base27 = "Hedge Recon 2026-11 ABCDEFG"; // with " (2)", 31 characters: Excel's longest name
    expect(uniqueSheetName(base27, [base27])).toBe(`${base27} (2)`);
    const base28 = `${base27}H`;
    expect(() => uniqueSheetName(base28, [base28])).toThrow(`Too many sheets named ${base28}: delete or rename some.`);
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
