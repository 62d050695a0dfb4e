// The words and tolerances month end's check of the log against the service shares: a finding at its row, how a cell is shown, and when a cell's value is the service's (text, time, rate, the window an action completes in).
import { utcMs } from "../api/time";
import { CLOCK_SKEW_MS } from "../trading/verdict";
import type { PlacedLogRow } from "../trading/workbook";
import type { ServiceFindingKind, ServiceLine } from "./recon-model";

/** How long after a row was logged its action may still complete at the service (a few seconds as a rule; a retry within the doubt limit). */
export const ACTION_WINDOW_MS = 10 * 60_000;

/**
 * Rates equal as the service gives them: up to the last binary digits of a double read back from a cell (a cell keeps 15
 * significant digits, so 1e-12 of the rate is far above what a read-back moves and far below a digit the service gives).
 */
export const sameRate = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
/** Times equal to the second (what a cell keeps of a time). */
export const sameSecond = (a: string, b: string) => Math.round(utcMs(a) / 1000) === Math.round(utcMs(b) / 1000);
export const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
export const shown = (v: unknown) => (v === null || v === undefined || v === "" ? "(empty)" : String(v));

/** An action the service dates at `atMs` is the one a row logged (or sent) at `rowAt` asked for: at most the clock skew before it, at most ACTION_WINDOW_MS after. */
export const actedWithin = (rowAt: string, atMs: number) => {
  const row = utcMs(rowAt);
  return atMs >= row - CLOCK_SKEW_MS && atMs <= row + ACTION_WINDOW_MS;
};

/** A line at a row. */
export function line(
  p: PlacedLogRow,
  kind: ServiceFindingKind,
  field: string | null,
  logSays: string,
  serviceSays: string,
  why: string,
): ServiceLine {
  return { kind, field, sheet: p.sheet, rowNumber: p.rowNumber, logSays, serviceSays, message: `Row ${p.rowNumber}: ${why}` };
}

/** A cell that differs from the service, at its row: both values shown, then `why` (empty, or why it is compared only sometimes). */
export const differsLine = (p: PlacedLogRow, field: string, log: unknown, service: unknown, why: string): ServiceLine =>
  line(p, "differs", field, shown(log), shown(service), `${field}: the log says ${shown(log)}, the service ${shown(service)}.${why}`);
