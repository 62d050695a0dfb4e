// Integer micro-USDC arithmetic: every balance and amount of the sandbox is a whole number of micro-units, computed amounts are whole cents.

/** An integer number of micro-USDC (1 USDC = 1,000,000). */
export type Micro = number;

export const MICRO_PER_USD = 1_000_000;
export const MICRO_PER_CENT = 10_000;

/** A USD/USDC amount as micro-units, rounded to the micro. */
export function toMicro(usd: number): Micro {
  return normalise(Math.round(usd * MICRO_PER_USD));
}

/** Micro-units as the number the API sends (at most six decimals). */
export function fromMicro(micro: Micro): number {
  return normalise(micro / MICRO_PER_USD);
}

/** Rounds any (possibly fractional) micro amount to a whole cent, half away from zero. */
export function roundToCent(micro: number): Micro {
  const cents = Math.sign(micro) * Math.round(Math.abs(micro) / MICRO_PER_CENT);
  return normalise(cents * MICRO_PER_CENT);
}

/** `total × part / whole`, rounded to the cent: the proportional share of an amount. */
export function proportion(total: Micro, part: Micro, whole: Micro): Micro {
  if (whole === 0) return 0;
  if (part >= whole) return total;
  return roundToCent((total * part) / whole);
}

/** `amount × pct / 100`, rounded to the cent. */
export function percentOf(amount: Micro, pct: number): Micro {
  return roundToCent((amount * pct) / 100);
}

/** A float without binary noise, rounded to `decimals` places. */
export function roundTo(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return normalise(Math.round(value * f) / f);
}

function normalise(n: number): number {
  return n === 0 ? 0 : n; // no -0 in JSON or comparisons
}
