// The tenor rule: the longest of 1, 3 or 7 days, at most the policy's, that ends on or before a date; the roll window; and the hedges of a program held to each maturity.
import { TENORS, type Tenor } from "../api/schemas";

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Roll within (hours) when the policy leaves it out; also the most it may be (the shortest tenor, 24 h: see rollDue). */
export const ROLL_WITHIN_DEFAULT_HOURS = 24;
export const ROLL_WITHIN_MAX_HOURS = 24;

/**
 * The tenor of an Open: the policy's tenor when nothing bounds it (`msLeft` null); else the longest of 1, 3 and 7 days,
 * at most the policy's, that ends on or before `msLeft` from now; 1 day when even 1 day ends after it.
 */
export function tenorFor(policyTenor: Tenor, msLeft: number | null): Tenor {
  if (msLeft === null) return policyTenor;
  let best: Tenor = 1;
  for (const t of TENORS) if (t <= policyTenor && t * DAY_MS <= msLeft) best = t;
  return best;
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
