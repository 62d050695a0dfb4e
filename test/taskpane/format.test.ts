// Display formatting of the pane: amounts, signed P&L, rates, percentages and UTC times.
import {
  formatCompact,
  formatPct,
  formatRate,
  formatSignedUsd,
  formatUsd,
  formatUsdc,
  formatUtc,
  formatUtcTime,
  plural,
} from "../../src/taskpane/format";

describe("pane formatting", () => {
  test("amounts carry their currency, thousands separators and two decimals", () => {
    expect(formatUsdc(1234.5)).toBe("1,234.50 USDC");
    expect(formatUsd(1_000_000)).toBe("1,000,000.00 USD");
    expect(formatUsdc(0.005)).toBe("0.01 USDC");
  });

  test("missing or non-finite values show a dash, not NaN", () => {
    for (const f of [formatUsdc, formatUsd, formatSignedUsd, formatCompact, formatRate, formatPct]) {
      expect(f(null)).toBe("—");
      expect(f(undefined)).toBe("—");
      expect(f(Number.NaN)).toBe("—");
    }
    expect(formatUtc("not a date")).toBe("—");
  });

  test("P&L always shows its sign", () => {
    expect(formatSignedUsd(12.3)).toBe("+12.30 USD");
    expect(formatSignedUsd(-4)).toBe("−4.00 USD");
    expect(formatSignedUsd(0)).toBe("0.00 USD");
  });

  test("compact amounts for narrow columns", () => {
    expect(formatCompact(2_500_000)).toBe("2.5M");
    expect(formatCompact(250_000)).toBe("250k");
    expect(formatCompact(9_999)).toBe("9,999");
    expect(formatCompact(-1_200_000)).toBe("−1.2M");
  });

  test("rates keep four decimals and percentages their sign", () => {
    expect(formatRate(1502.35)).toBe("1502.3500");
    expect(formatPct(0.0123)).toBe("+0.0123 %");
    expect(formatPct(-0.5, 2)).toBe("−0.50 %");
  });

  test("times are shown in UTC whatever the input offset", () => {
    expect(formatUtc("2025-01-31T15:05:09+01:00")).toBe("2025-01-31 14:05:09 UTC");
    expect(formatUtcTime(Date.UTC(2025, 0, 1, 9, 7))).toBe("09:07 UTC");
  });

  test("plural", () => {
    expect(plural(1, "row")).toBe("1 row");
    expect(plural(3, "row")).toBe("3 rows");
  });
});
