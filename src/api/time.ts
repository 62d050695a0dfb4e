// The one reader of timestamps (service answers, Hedge Log cells, typed dates): ISO 8601 only, always UTC, never the machine's zone.

const MS_PER_MINUTE = 60_000;

/**
 * `2026-11-30`, `2026-11-30T17:00`, `2026-11-30T17:00:00.250`, with `T` or a space, and an optional zone: `Z`, `+01:00`,
 * `+0100` or `+01`. Nothing else (no `22/11/2026`, no month names, no "UTC" suffix).
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:([zZ])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Epoch milliseconds of an ISO 8601 timestamp, or NaN when the text is not one (same contract as Date.parse, without its
 * guesses). A time without a zone, and a date alone, are read as UTC: the add-in writes and shows every time in UTC, so
 * the machine's own time zone never moves an instant. Out-of-range parts (month 13, 30 February, 24:00) are NaN.
 */
export function utcMs(text: string | null | undefined): number {
  if (typeof text !== "string") return NaN;
  const m = ISO_8601.exec(text.trim());
  if (!m) return NaN;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", , sign, oh, om = "0"] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return NaN;
  if (hour > 23 || minute > 59 || second > 59) return NaN;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (sign) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) return NaN;
    offsetMinutes = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // years 0–99 stay themselves (Date.UTC would move them to 19xx)
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime() - offsetMinutes * MS_PER_MINUTE;
}
