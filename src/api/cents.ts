// Amounts to the cent: the one rounding rule for what the add-in sends and shows (half up, the product cleaned of binary noise, so 1.005 is 1.01).

/** `value` rounded to the cent: 83,333.333… → 83,333.33; 1.005 → 1.01 (1.005 × 100 is 100.49999… in binary). */
export function roundToCent(value: number): number {
  return Math.round(Number((value * 100).toPrecision(15))) / 100;
}
