// Max trade's split of an amount in cents (the proposal's rows, a program's priced trades): the full pieces first, the remainder last; one that would take more than MAX_PIECES is refused, naming the fix.
import { TargetInputError } from "./input-error";

/** The most pieces one amount is split into: beyond it a Max trade is taken as a slip, not a plan (it would hang Excel). */
export const MAX_PIECES = 1_000;

const usd = (cents: number) => (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `totalCents` in pieces of at most `maxCents` (one piece when null), in cents; `name`: how the refusal names the limit. */
export function splitCents(totalCents: number, maxCents: number | null, name = "Max trade"): number[] {
  const max = maxCents ?? totalCents;
  const count = max > 0 ? Math.ceil(totalCents / max) : Infinity; // a limit of nothing, or below, never ends
  if (totalCents > 0 && count > MAX_PIECES) {
    const least = Math.ceil(totalCents / MAX_PIECES);
    throw new TargetInputError(
      `${name} ${usd(max)} USD would split ${usd(totalCents)} USD into ${count === Infinity ? "endless" : count.toLocaleString("en-US")} trades; at most ${MAX_PIECES.toLocaleString("en-US")} are made: raise ${name} to at least ${usd(least)} USD, or leave it empty.`,
    );
  }
  const out: number[] = [];
  for (let left = totalCents; left > 0; left -= Math.min(max, left)) out.push(Math.min(max, left));
  return out;
}
