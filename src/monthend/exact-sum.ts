// Exact decimal sums of the service's amounts: each number is added as the decimal it prints as, so 0.1 + 0.2 is 0.3, not 0.30000000000000004.

/** A decimal as an integer mantissa and a count of decimal places. */
interface Decimal {
  units: bigint;
  places: number;
}

function toDecimal(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`Cannot add ${value}: amounts must be finite numbers.`);
  // String(n) is the shortest decimal that reads back as n: the value the service sent.
  const text = String(value);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([-+]\d+))?$/.exec(text);
  if (!m) throw new RangeError(`Cannot read ${text} as a decimal.`);
  const [, sign, whole, fraction = "", exp = "0"] = m;
  let digits = whole + fraction;
  let places = fraction.length - Number(exp);
  if (places < 0) {
    digits += "0".repeat(-places);
    places = 0;
  }
  const units = BigInt(digits);
  return { units: sign === "-" ? -units : units, places };
}

/** The exact sum of the amounts, read back as the nearest number (one rounding, at the very end). Empty sums to 0. */
export function exactSum(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const decimals = values.map(toDecimal);
  const places = Math.max(...decimals.map((d) => d.places));
  let total = 0n;
  for (const d of decimals) total += d.units * 10n ** BigInt(places - d.places);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(places + 1, "0");
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  const sum = Number(`${negative ? "-" : ""}${text}`);
  return sum === 0 ? 0 : sum;
}
