// Geometry of the pane's two drawings: the exposure-versus-cap bar and the rate sparkline (pure numbers, no DOM).

interface ExposureBarGeometry {
  /** Width of the used part, 0..width. */
  usedWidth: number;
  /** Share of the cap in use, 0..1 (clamped); NaN-free. */
  fraction: number;
  /** Above this share the bar is drawn as a warning. */
  level: "ok" | "warning" | "full";
  /** Text alternative for the drawing. */
  label: string;
}

const EXPOSURE_WARNING_SHARE = 0.8;

/** The used part of a bar of `width` for `exposure` against `cap`; a cap of zero counts as full. */
export function exposureBar(exposure: number, cap: number, width: number): ExposureBarGeometry {
  const safeExposure = Number.isFinite(exposure) && exposure > 0 ? exposure : 0;
  const fraction = cap > 0 && Number.isFinite(cap) ? Math.min(1, safeExposure / cap) : safeExposure > 0 || cap <= 0 ? 1 : 0;
  const level = fraction >= 1 ? "full" : fraction >= EXPOSURE_WARNING_SHARE ? "warning" : "ok";
  const percent = Math.round(fraction * 1000) / 10;
  return { usedWidth: fraction * width, fraction, level, label: `Exposure ${percent}% of the cap` };
}

export interface Point {
  /** Epoch milliseconds. */
  t: number;
  value: number;
}

interface SparklineGeometry {
  /** SVG path data ("M x y L x y ..."), empty when there are no points. */
  path: string;
  min: number;
  max: number;
  first: number;
  last: number;
  /** Coordinates of the last point, for a marker. */
  lastX: number;
  lastY: number;
}

/**
 * A sparkline of `points` inside width × height with `pad` pixels of margin: time on x over [from, to],
 * value on y scaled between the lowest and highest value (a flat series is drawn across the middle).
 */
export function sparkline(
  points: readonly Point[],
  width: number,
  height: number,
  span: { from: number; to: number },
  pad = 2,
): SparklineGeometry | null {
  const inWindow = points.filter((p) => p.t >= span.from && p.t <= span.to && Number.isFinite(p.value));
  if (inWindow.length === 0) return null;
  const values = inWindow.map((p) => p.value);
  const min = Math.min(...values);
  const max = Math.max(...values);
  const duration = span.to - span.from;
  const innerW = width - 2 * pad;
  const innerH = height - 2 * pad;
  const x = (t: number) => pad + (duration > 0 ? ((t - span.from) / duration) * innerW : innerW);
  const y = (v: number) => (max === min ? pad + innerH / 2 : pad + (1 - (v - min) / (max - min)) * innerH);
  const coords = inWindow.map((p) => [round2(x(p.t)), round2(y(p.value))] as const);
  const path = coords.map(([cx, cy], i) => `${i === 0 ? "M" : "L"}${cx} ${cy}`).join(" ");
  const [lastX, lastY] = coords[coords.length - 1];
  return { path, min, max, first: values[0], last: values[values.length - 1], lastX, lastY };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** A maturity on the overview's timeline: where its dot stands and what it says. */
export interface TimelineDot {
  x: number;
  side: string;
  label: string;
}

const DAY_MS = 86_400_000;

/**
 * The overview's timeline of maturities over `width`: from now to the last maturity (at least 7 days, whole days), a
 * tick per day, a dot per maturity (one already past stands at now).
 */
export function maturityTimeline(
  maturities: ReadonlyArray<{ atMs: number; side: string; label: string }>,
  nowMs: number,
  width: number,
  pad = 6,
): { dots: TimelineDot[]; ticks: number[]; days: number } {
  const last = Math.max(nowMs, ...maturities.map((m) => m.atMs));
  const days = Math.max(7, Math.ceil((last - nowMs) / DAY_MS));
  const inner = width - 2 * pad;
  const x = (t: number) => round2(pad + (Math.max(0, t - nowMs) / (days * DAY_MS)) * inner);
  const ticks = Array.from({ length: days + 1 }, (_, d) => x(nowMs + d * DAY_MS));
  return { dots: maturities.map((m) => ({ x: x(m.atMs), side: m.side, label: m.label })), ticks, days };
}
