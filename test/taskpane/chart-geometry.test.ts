// Geometry of the exposure bar, the rate sparkline and the overview's timeline of maturities.
import { exposureBar, maturityTimeline, sparkline } from "../../src/taskpane/chart-geometry";
import { PriceHistory, HISTORY_WINDOW_MS } from "../../src/taskpane/price-history";

describe("exposure bar", () => {
  test("the used width is exposure over cap, scaled to the bar", () => {
    const bar = exposureBar(250_000, 1_000_000, 200);
    expect(bar.usedWidth).toBeCloseTo(50);
    expect(bar.level).toBe("ok");
    expect(bar.label).toBe("Exposure 25% of the cap");
  });

  test("near the cap it warns, at or over the cap it is full and never wider than the bar", () => {
    expect(exposureBar(850, 1000, 100).level).toBe("warning");
    const over = exposureBar(1500, 1000, 100);
    expect(over.level).toBe("full");
    expect(over.usedWidth).toBe(100);
  });

  test("no exposure draws nothing; a zero cap with exposure is full", () => {
    expect(exposureBar(0, 1000, 100).usedWidth).toBe(0);
    expect(exposureBar(10, 0, 100).fraction).toBe(1);
    expect(exposureBar(Number.NaN, 1000, 100).usedWidth).toBe(0);
  });
});

describe("sparkline", () => {
  const span = { from: 0, to: 100 };

  test("maps time to x and value to y with the highest value at the top", () => {
    const g = sparkline(
      [
        { t: 0, value: 10 },
        { t: 50, value: 20 },
        { t: 100, value: 15 },
      ],
      104,
      24,
      span,
      2,
    )!;
    expect(g.path).toBe("M2 22 L52 2 L102 12");
    expect([g.min, g.max, g.first, g.last]).toEqual([10, 20, 10, 15]);
    expect([g.lastX, g.lastY]).toEqual([102, 12]);
  });

  test("a flat series is drawn across the middle; points outside the window are left out", () => {
    const g = sparkline(
      [
        { t: -10, value: 99 },
        { t: 20, value: 5 },
        { t: 80, value: 5 },
      ],
      104,
      24,
      span,
      2,
    )!;
    expect(g.path).toBe("M22 12 L82 12");
    expect(g.max).toBe(5);
  });

  test("no points gives no drawing", () => {
    expect(sparkline([], 100, 20, span)).toBeNull();
  });
});

describe("price history", () => {
  test("keeps the last hour only, in time order, one reading per timestamp", () => {
    const h = new PriceHistory();
    const t0 = Date.UTC(2025, 0, 1);
    h.add(t0, 1500);
    h.add(t0 + 60_000, 1501);
    h.add(t0 + 30_000, 1500.5);
    h.add(t0 + 60_000, 1502);
    expect(h.window(t0 + 60_000).points.map((p) => p.value)).toEqual([1500, 1500.5, 1502]);
    h.add(t0 + HISTORY_WINDOW_MS + 45_000, 1510);
    expect(h.window(t0 + HISTORY_WINDOW_MS + 45_000).points.map((p) => p.value)).toEqual([1502, 1510]);
    expect(h.size).toBe(2);
  });
});

describe("timeline of maturities", () => {
  const DAY = 86_400_000;
  const now = Date.parse("2026-11-30T08:00:00.000Z");

  test("at least a week, a tick a day; each maturity at its share of the span (a past one at now)", () => {
    const g = maturityTimeline(
      [
        { atMs: now + 3.5 * DAY, side: "buy", label: "b" },
        { atMs: now - 1_000, side: "sell", label: "s" },
      ],
      now,
      150,
      5,
    );
    expect(g.days).toBe(7);
    expect(g.ticks).toEqual([5, 25, 45, 65, 85, 105, 125, 145]);
    expect(g.dots).toEqual([
      { x: 75, side: "buy", label: "b" },
      { x: 5, side: "sell", label: "s" },
    ]);
  });

  test("a maturity past a week stretches the line to its whole day", () => {
    const g = maturityTimeline([{ atMs: now + 9.2 * DAY, side: "buy", label: "b" }], now, 106, 3);
    expect(g.days).toBe(10);
    expect(g.ticks).toHaveLength(11);
    expect(g.dots[0].x).toBe(95);
  });
});
