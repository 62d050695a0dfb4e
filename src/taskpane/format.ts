// Display formatting for the pane: money, rates, percentages and UTC times; rounding happens only here.
import { utcMs } from "../api/time";
import { groupThousands } from "../api/digits";

/**
 * "1,234.50" (two decimals) / "1,235" (none): en-US digits grouped by hand, as Intl.NumberFormat("en-US") writes them
 * (half away from zero at the number's shortest decimal form, "-" before a negative, negative zero included). Not Intl:
 * a page's first formatter starts the browser's number formatting (ICU), 20–60 ms at 1× CPU (four times that at 4×) that
 * the pane's first view would pay before it is ready (issue 41). Intl only for numbers of 1e21 and more, which the
 * shortest form writes with an exponent.
 */
function grouped(value: number, decimals: 0 | 2): string {
  const abs = Math.abs(value);
  if (abs >= 1e21) return largeFormat(decimals).format(value);
  // The shortest decimal form ("1.4749999999999999"; under 1e-6 it has an exponent, and rounds to zero here).
  const [whole, fraction = ""] = abs < 1e-6 ? ["0"] : String(abs).split(".");
  let digits = `${whole}${fraction.padEnd(decimals, "0").slice(0, decimals)}`;
  if ((fraction[decimals] ?? "0") >= "5") digits = plusOne(digits);
  const int = groupThousands(digits.slice(0, digits.length - decimals));
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  return decimals === 0 ? `${sign}${int}` : `${sign}${int}.${digits.slice(-decimals)}`;
}

/** A string of digits plus one ("0999" → "1000"). */
function plusOne(digits: string): string {
  const at = digits.search(/9*$/);
  const head = at === 0 ? "1" : `${digits.slice(0, at - 1)}${Number(digits[at - 1]) + 1}`;
  return `${head}${"0".repeat(digits.length - at)}`;
}

const largeFormats = new Map<number, Intl.NumberFormat>();
const largeFormat = (decimals: 0 | 2) => {
  let f = largeFormats.get(decimals);
  if (!f)
    largeFormats.set(decimals, (f = new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals })));
  return f;
};
const usdFormat = { format: (n: number) => grouped(n, 2) };
const wholeFormat = { format: (n: number) => grouped(n, 0) };

function finite(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** "1,234.50 USDC"; a dash for a missing value. */
export function formatUsdc(value: number | null | undefined): string {
  return finite(value) ? `${usdFormat.format(value)} USDC` : "—";
}

/** "1,234.50 USD"; a dash for a missing value. */
export function formatUsd(value: number | null | undefined): string {
  return finite(value) ? `${usdFormat.format(value)} USD` : "—";
}

/** An amount in its currency: collateral in USDC, notionals in USD. */
export function formatIn(value: number | null | undefined, unit: "USD" | "USDC"): string {
  return unit === "USDC" ? formatUsdc(value) : formatUsd(value);
}

/** "+12.30 USD" / "−4.00 USD": a P&L with its sign always shown. */
export function formatSignedUsd(value: number | null | undefined): string {
  if (!finite(value)) return "—";
  const sign = value > 0 ? "+" : value < 0 ? "−" : "";
  return `${sign}${usdFormat.format(Math.abs(value))} USD`;
}

/** "1.2M" / "250k" / "900": a short amount for tight cells. */
export function formatCompact(value: number | null | undefined): string {
  if (!finite(value)) return "—";
  const abs = Math.abs(value);
  const sign = value < 0 ? "−" : "";
  if (abs >= 1_000_000) return `${sign}${trimZeros((abs / 1_000_000).toFixed(2))}M`;
  if (abs >= 10_000) return `${sign}${trimZeros((abs / 1_000).toFixed(1))}k`;
  return `${sign}${wholeFormat.format(abs)}`;
}

function trimZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** A rate with four decimals: "1502.3500". */
export function formatRate(value: number | null | undefined): string {
  return finite(value) ? value.toFixed(4) : "—";
}

/** A signed percentage: "+0.0123 %". */
export function formatPct(value: number | null | undefined, decimals = 4): string {
  if (!finite(value)) return "—";
  const sign = value > 0 ? "+" : value < 0 ? "−" : "";
  return `${sign}${Math.abs(value).toFixed(decimals)} %`;
}

/** A Date of an epoch-ms number or an ISO 8601 string (read by the one time parser: UTC when it has no zone). */
function toDate(value: string | number | Date): Date {
  if (value instanceof Date) return value;
  return new Date(typeof value === "string" ? utcMs(value) : value);
}

/** "2025-01-31 14:05:09 UTC" from an ISO string or epoch milliseconds. */
export function formatUtc(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return "—";
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "14:05 UTC": the time of day only. */
export function formatUtcTime(value: string | number | Date): string {
  const date = toDate(value);
  return Number.isNaN(date.getTime()) ? "—" : `${date.toISOString().slice(11, 16)} UTC`;
}

/** "1 row" / "3 rows". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
