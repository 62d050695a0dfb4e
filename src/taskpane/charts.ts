// The pane's SVG drawings: exposure against the cap, the last hour of the rate, and the timeline of maturities.
import { exposureBar, maturityTimeline, sparkline, type Point } from "./chart-geometry";
import { s } from "./dom";
import { formatRate, formatUtcTime } from "./format";

const BAR_WIDTH = 280;
const BAR_HEIGHT = 12;

/** A bar of exposure against max_exposure_usd; scales with its container (viewBox), labelled for screen readers. */
export function exposureBarSvg(exposure: number, cap: number): SVGElement {
  const g = exposureBar(exposure, cap, BAR_WIDTH);
  return s(
    "svg",
    {
      class: `exposure-bar level-${g.level}`,
      viewBox: `0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": g.label,
      "data-fraction": g.fraction.toFixed(4),
    },
    s("title", {}, g.label),
    s("rect", { class: "track", x: 0, y: 0, width: BAR_WIDTH, height: BAR_HEIGHT, rx: 3 }),
    s("rect", { class: "used", x: 0, y: 0, width: g.usedWidth.toFixed(2), height: BAR_HEIGHT, rx: 3 }),
  );
}

const SPARK_WIDTH = 280;
const SPARK_HEIGHT = 40;

/** The rate over the window as a line, with its low, high and last values in the text alternative. */
export function sparklineSvg(market: string, points: readonly Point[], span: { from: number; to: number }): SVGElement {
  const g = sparkline(points, SPARK_WIDTH, SPARK_HEIGHT, span, 3);
  const label = g
    ? `${market} over the last hour: ${points.length} readings since ${formatUtcTime(span.from)}, low ${formatRate(g.min)}, high ${formatRate(g.max)}, last ${formatRate(g.last)}`
    : `${market}: no readings yet`;
  return s(
    "svg",
    {
      class: "sparkline",
      viewBox: `0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": label,
      "data-points": points.length,
    },
    s("title", {}, label),
    s("line", { class: "baseline", x1: 0, y1: SPARK_HEIGHT - 0.5, x2: SPARK_WIDTH, y2: SPARK_HEIGHT - 0.5 }),
    g ? s("path", { class: "line", d: g.path, fill: "none", "vector-effect": "non-scaling-stroke" }) : null,
    g ? s("circle", { class: "last", cx: g.lastX, cy: g.lastY, r: 2.5 }) : null,
  );
}

const TIMELINE_WIDTH = 280;
const TIMELINE_HEIGHT = 28;

/** Every open hedge's maturity on a line from now (a tick a day, buy and sell dots), each dot titled with its line of the list. */
export function maturityTimelineSvg(items: ReadonlyArray<{ atMs: number; side: string; text: string }>, nowMs: number): SVGElement {
  const g = maturityTimeline(
    items.map((i) => ({ atMs: i.atMs, side: i.side, label: i.text })),
    nowMs,
    TIMELINE_WIDTH,
  );
  const label = `Maturities over the next ${g.days} days: ${items.map((i) => i.text).join("; ")}`;
  const mid = TIMELINE_HEIGHT / 2;
  return s(
    "svg",
    {
      class: "maturity-timeline",
      viewBox: `0 0 ${TIMELINE_WIDTH} ${TIMELINE_HEIGHT}`,
      role: "img",
      "aria-label": label,
      "data-dots": g.dots.length,
      "data-days": g.days,
    },
    s("title", {}, label),
    s("line", { class: "axis", x1: g.ticks[0], y1: mid, x2: g.ticks[g.ticks.length - 1], y2: mid }),
    ...g.ticks.map((x) => s("line", { class: "tick", x1: x, y1: mid - 3, x2: x, y2: mid + 3 })),
    ...g.dots.map((d) => s("circle", { class: `dot ${d.side}`, cx: d.x, cy: mid, r: 4 }, s("title", {}, d.label))),
  );
}
