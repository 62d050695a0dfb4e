// Exact decimal sums of the service's amounts: each number is added as the decimal it prints as, so 0.1 + 0.2 is 0.3, not 0.30000000000000004.

/** A decimal as an integer mantissa and a count of decimal places. */
interface Decimal {
  units: bigint;
  places: number;
}

function toDecimal(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`Cannot add ${value}: amounts must be finite numbers.`);
  // String(n) is the shortest decimal that reads back as n (the value the service sent): [-]digits[.digits][e±digits].
  const [mantissa, exponent] = String(value).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const places = fraction.length - Number(exponent ?? 0);
  // The sign stays on the whole part: BigInt("-0" + "05") is -5n.
  return { units: BigInt(whole + fraction + "0".repeat(Math.max(0, -places))), places: Math.max(0, places) };
}

/** The exact sum of the amounts, read back as the nearest number (one rounding, at the very end). Empty sums to 0. */
export function exactSum(values: readonly number[]): number {
  const decimals = values.map(toDecimal);
  const places = decimals.reduce((most, d) => Math.max(most, d.places), 0);
  let total = 0n;
  for (const d of decimals) total += d.units * 10n ** BigInt(places - d.places);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(places + 1, "0");
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return Number(`${negative ? "-" : ""}${text}`);
}
