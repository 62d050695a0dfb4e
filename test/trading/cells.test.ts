// Excel serial dates to and from ISO 8601 UTC: the day count from 1899-12-30, the time of day as its fraction, and the clear refusal of a time that is not one.
import { fromExcelDate, toExcelDate } from "../../src/trading/cells";

describe("Excel serial dates", () => {
  it("counts days from 1899-12-30 UTC, the time of day as the fraction", () => {
    expect(toExcelDate("1899-12-30T00:00:00.000Z")).toBe(0);
    expect(toExcelDate("1900-01-01T00:00:00.000Z")).toBe(2);
    expect(toExcelDate("2026-11-30T18:00:00.000Z")).toBe(46356.75);
    expect(fromExcelDate(46356.75)).toBe("2026-11-30T18:00:00.000Z");
    expect(fromExcelDate(0)).toBe("1899-12-30T00:00:00.000Z");
  });

  it("reads a time with an offset as its UTC instant", () => {
    expect(toExcelDate("2026-12-01T01:00:00+02:00")).toBe(toExcelDate("2026-11-30T23:00:00.000Z"));
  });

  it("gives back the millisecond written, rounding the serial's float error away", () => {
    for (const iso of ["2026-11-27T23:59:59.999Z", "2026-01-01T00:00:00.001Z", "2031-06-15T12:34:56.789Z"]) {
      expect(fromExcelDate(toExcelDate(iso))).toBe(iso);
    }
    expect(fromExcelDate(46356.75 + 0.4 / 86_400_000)).toBe("2026-11-30T18:00:00.000Z");
    expect(fromExcelDate(46356.75 + 0.6 / 86_400_000)).toBe("2026-11-30T18:00:00.001Z");
  });

  it("refuses a text that is not a time, naming it", () => {
    expect(() => toExcelDate("30/11/2026")).toThrow(new RangeError("Not an ISO 8601 time: 30/11/2026"));
  });
});
