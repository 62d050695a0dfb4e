// Calendar months in UTC: "YYYY-MM" parsing, the month's [start, end) window, the recon sheet's name, and the months a picker offers.
import { utcMs } from "../api/time";

export interface Month {
  year: number;
  /** 1–12. */
  month: number;
}

export interface MonthWindow {
  /** "2026-11". */
  label: string;
  /** First instant of the month, UTC (inclusive), epoch ms. */
  startMs: number;
  /** First instant of the next month, UTC (exclusive), epoch ms. */
  endMs: number;
}

const MONTH_PATTERN = /^(\d{4})-(\d{2})$/;

/** "2026-11" → { year: 2026, month: 11 }; anything else is a clear error naming the expected form. */
export function parseMonth(text: string): Month {
  const m = MONTH_PATTERN.exec(String(text).trim());
  const month = m ? Number(m[2]) : NaN;
  if (!m || month < 1 || month > 12) {
    throw new RangeError(`Month "${text}" is not a month: use the form YYYY-MM, for example 2026-11.`);
  }
  return { year: Number(m[1]), month };
}

export function monthLabel(m: Month): string {
  return `${String(m.year).padStart(4, "0")}-${String(m.month).padStart(2, "0")}`;
}

/** The month's window in UTC: from its first midnight (inclusive) to the next month's first midnight (exclusive). */
export function monthWindow(m: Month | string): MonthWindow {
  const month = typeof m === "string" ? parseMonth(m) : m;
  return {
    label: monthLabel(month),
    startMs: Date.UTC(month.year, month.month - 1, 1),
    endMs: Date.UTC(month.year, month.month, 1),
  };
}

/** The UTC month holding an instant. */
export function monthOf(ms: number): Month {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

/** The month `delta` months after `m` (negative for before). */
export function addMonths(m: Month, delta: number): Month {
  const index = m.year * 12 + (m.month - 1) + delta;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** True when an ISO 8601 instant falls inside the window; an unreadable time is outside. */
export function inWindow(iso: string | null | undefined, month: Pick<MonthWindow, "startMs" | "endMs">): boolean {
  const ms = utcMs(iso);
  return Number.isFinite(ms) && ms >= month.startMs && ms < month.endMs;
}

/** The month-end close usually happens in the first days of the next month: the previous month is the default from the 1st to the 10th. */
export function defaultMonth(nowMs: number): Month {
  const current = monthOf(nowMs);
  return new Date(nowMs).getUTCDate() <= 10 ? addMonths(current, -1) : current;
}

/** The months a picker offers: the current one and the `count - 1` before it, newest first. */
export function recentMonths(nowMs: number, count = 13): string[] {
  const current = monthOf(nowMs);
  return Array.from({ length: count }, (_, i) => monthLabel(addMonths(current, -i)));
}

/** Excel sheet names are at most 31 characters. */
const SHEET_NAME_MAX = 31;

/** "Hedge Recon 2026-11": the sheet the month's reconciliation is written to (see uniqueSheetName when it exists). */
export function reconSheetName(m: Month | string): string {
  return `Hedge Recon ${typeof m === "string" ? monthLabel(parseMonth(m)) : monthLabel(m)}`;
}

/** `base`, or "base (2)", "base (3)"… when taken; names compare case-insensitively, as Excel's do. Never replaces a sheet. */
export function uniqueSheetName(base: string, existing: readonly string[]): string {
  const taken = new Set(existing.map((n) => n.toLowerCase()));
  if (!taken.has(base.toLowerCase())) return base;
  for (let i = 2; ; i++) {
    const name = `${base} (${i})`;
    if (name.length > SHEET_NAME_MAX) throw new RangeError(`Too many sheets named ${base}: delete or rename some.`);
    if (!taken.has(name.toLowerCase())) return name;
  }
}
