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

  test('amounts read as Intl.NumberFormat("en-US") writes them (grouped by hand, so the pane\'s start does not start ICU)', () => {
    const twoDecimals = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
    // Halves at the shortest decimal form (1.005, 2.675), just under a half (1.4749999999999999), carries (999.995,
    // 9999.5), negative zero and what rounds to it, under 1e-6 and from 1e21 (exponent forms), and a seeded spread.
    const values = [0, -0, 1.005, -1.005, 2.675, 0.125, 0.005, -0.004, 1.4749999999999999, -0.024999999999999998];
    values.push(999.995, 9999.5, -9999.5, 0.5, 1.5, 2.5, -2.5, 5e-7, -5e-7, 1e20, 9.99e20, 1e21, 1.5e22, 123456789.555);
    let seed = 41;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3_000; i++) {
      const v = (next() - 0.5) * 10 ** Math.floor(next() * 14 - 4);
      values.push(v, Math.round(v * 100) / 100 + 0.005, Math.round(v * 1000) / 1000);
    }
    for (const v of values) {
      expect([v, formatUsd(v)]).toEqual([v, `${twoDecimals.format(v)} USD`]);
      if (Math.abs(v) < 10_000) expect([v, formatCompact(v)]).toEqual([v, `${v < 0 ? "−" : ""}${whole.format(Math.abs(v))}`]);
    }
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
