// The tenor rule: the longest of 1, 3 or 7 days, at most the policy's, that ends on or before a date and on a working day; the roll window and modes; and the hedges of a program as the desk runs it.
import { TENORS, type Tenor } from "../api/schemas";

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Roll within (hours) when the policy leaves it out; also the most it may be (the shortest tenor, 24 h: see rollDue). */
export const ROLL_WITHIN_DEFAULT_HOURS = 24;
export const ROLL_WITHIN_MAX_HOURS = 24;

/** How a maturing side is rolled: left to settle and opened anew at once (the default), or closed and opened inside Roll within. */
export type RollMode = "at maturity" | "early";

/** Every UTC weekday, 0 (Sunday) to 6: the working days when the policy names none. */
export const EVERY_DAY: readonly number[] = [0, 1, 2, 3, 4, 5, 6];

/**
 * The tenor of an Open at `asOfMs`: among the tenors allowed — 1, 3 and 7 days, at most the policy's, and, when `msLeft`
 * bounds it (a value date), ending on or before `msLeft` from now, or less than `slackMs` after it — the longest whose
 * maturity (`asOfMs` + the tenor) falls on a working day (its UTC weekday); 1 day when none does (or when even 1 day
 * ends too late). `slackMs`: at maturity, Roll within (a hedge ending that little after its value date is, at the value
 * date, a paid-up side inside its window, left to settle), so the hour a desk takes to open the next hedge after each
 * settlement never costs its program a tenor; early, 0.
 */
export function tenorFor(
  policyTenor: Tenor,
  msLeft: number | null,
  asOfMs = 0,
  workingDays: readonly number[] = EVERY_DAY,
  slackMs = 0,
): Tenor {
  let best: Tenor = 1;
  for (const t of TENORS) {
    const allowed = t <= policyTenor && (msLeft === null || t * DAY_MS <= msLeft || t * DAY_MS < msLeft + slackMs);
    if (allowed && workingDays.includes(new Date(asOfMs + t * DAY_MS).getUTCDay())) best = t;
  }
  return best;
}

/**
 * Whether an Open of `tenor` is inside its own roll window from the moment it opens (its whole life is within Roll
 * within of its maturity): an `early` roll never opens one, or every later look would roll it again.
 */
export function opensInsideWindow(tenor: Tenor, rollWithinHours: number): boolean {
  return tenor * DAY_MS <= rollWithinHours * HOUR_MS;
}

/**
 * Whether a hedge maturing at `maturityMs` is to be rolled at `asOfMs`: it matures before as_of + Roll within (an
 * instant already past counts: the service has not settled it yet). Strictly before, and Roll within at most 24 h, so
 * the hedge a roll opens (1 day at least) is never itself inside the window at the same as_of.
 */
export function rollDue(maturityMs: number, asOfMs: number, rollWithinHours: number): boolean {
  return maturityMs < asOfMs + rollWithinHours * HOUR_MS;
}

/**
 * The hedges of a program of `days` whole days at `tenor`, each held to maturity and the next opened then: the tenor rule
 * over the days left (10 days at 7 → 7, 3; 9 days → 7, 1, 1).
 */
export function programTenors(days: number, tenor: Tenor): Tenor[] {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`days must be a whole number of days, 1 or more; got ${days}.`);
  const out: Tenor[] = [];
  for (let left = days; left > 0; left -= out[out.length - 1]) out.push(tenorFor(tenor, left * DAY_MS));
  return out;
}
