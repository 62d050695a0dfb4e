// The one reader of times (ISO 8601 timestamps: service answers, log cells, typed dates; HTTP dates: Retry-After) and writer of a time to the minute, always UTC.

const MS_PER_MINUTE = 60_000;

/**
 * `2026-11-30`, `2026-11-30T17:00`, `2026-11-30T17:00:00.250` (any number of fraction digits), with `T` or a space, and an optional zone: `Z`, `+01:00`,
 * `+0100` or `+01`. Nothing else (no `22/11/2026`, no month names, no "UTC" suffix).
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:([zZ])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

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

/** The form the add-in keeps a service's time in: ISO 8601 extended, with seconds and a zone (`Z` or `+01:00`). */
const EXTENDED_FULL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
/** ISO 8601 basic format: `20261126`, `20261126T1402Z`, `20261126T140200,5+0100`. */
const BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?([zZ]|[+-]\d{2}(?:\d{2})?)?)?$/;
/** The extended format's date alone, and a time of day, its zone if any (the part `utcMs` reads that ends a time). */
const EXTENDED_DATE = /^\d{4}-\d{2}-\d{2}$/;
const HAS_TIME = /[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[zZ]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A time the service sent, in the form the add-in keeps (`2026-11-26T14:02:00Z`), or null when no reading allows it.
 * Kept as sent: ISO 8601 extended with seconds and a zone (`2026-11-30T17:00:00Z`, `…+01:00`). Read, and rewritten in
 * UTC: the same without seconds (`2026-11-26T14:02Z`), the basic format (`20261126T1402Z`, `20261126T140200.5+0100`),
 * an offset as `+0100` or `+01`, a comma before the fraction; and, only where the field is a settlement date
 * (`dateAlone`), a date alone (`2026-11-26`, `20261126`) as midnight UTC. A time without a zone is read as UTC: the spec
 * says the service's timestamps are "ISO 8601 in UTC", so that is the one reading it allows. Refused: anything `utcMs`
 * refuses (30 February, 24:00, `22/11/2026`).
 */
export function serviceTime(text: string, dateAlone = false): string | null {
  if (EXTENDED_FULL.test(text)) return Number.isNaN(utcMs(text)) ? null : text;
  let extended = text;
  const basic = BASIC.exec(text);
  if (basic) {
    const [, y, mo, d, h, mi, sec, frac, zone] = basic;
    const time =
      h === undefined ? "" : `T${h}:${mi}${sec === undefined ? "" : `:${sec}`}${frac === undefined ? "" : `.${frac}`}${zone ?? ""}`;
    extended = `${y}-${mo}-${d}${time}`;
  }
  const isDate = EXTENDED_DATE.test(extended);
  if (isDate ? !dateAlone : !HAS_TIME.test(extended)) return null;
  const ms = utcMs(extended.replace(",", "."));
  if (Number.isNaN(ms)) return null;
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

/** The instant's UTC minute, `2026-11-30T17:00`: the seconds cut off, never rounded up (17:00:59.999 is 17:00). */
function minuteOf(at: number | Date): string {
  return new Date(at).toISOString().slice(0, 16);
}

/**
 * "2026-11-30 17:00 UTC": an instant as the add-in shows it to the minute (the pane's maturities and armed rolls, a
 * proposal's Reason, the recon sheet, a snapshot's note). Epoch ms or a Date; an invalid one throws (RangeError).
 */
export function utcMinute(at: number | Date): string {
  return `${minuteOf(at).replace("T", " ")} UTC`;
}

/**
 * "2026-11-30T17:00Z": the same minute in ISO 8601. A roll's client reference names its maturity so, and the roll's
 * idempotency key is derived from that reference: this form never changes.
 */
export function isoMinute(at: number | Date): string {
  return `${minuteOf(at)}Z`;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MON = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
/** The three forms of an HTTP date (RFC 9110 §5.6.7), all in GMT: IMF-fixdate, RFC 850 and asctime. */
const IMF_FIXDATE = new RegExp(`^[a-z]{3}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`, "i");
const RFC_850 = new RegExp(`^[a-z]{6,9}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`, "i");
const ASCTIME = new RegExp(`^[a-z]{3} ${MON} ([ \\d]\\d) ${TIME} (\\d{4})$`, "i");

/**
 * Epoch milliseconds of an HTTP date (a `Retry-After` header), or NaN. Every form is GMT, asctime's too, which has no
 * zone and which Date.parse would read in the machine's zone; anything else is no date (never guessed).
 */
export function httpDateMs(text: string | null | undefined): number {
  if (typeof text !== "string") return NaN;
  const value = text.trim();
  let parts: [string, string, string, string, string, string] | null = null;
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(value))) parts = [m[3], m[2], m[1], m[4], m[5], m[6]];
  else if ((m = RFC_850.exec(value)))
    parts = [String(Number(m[3]) < 70 ? 2000 + Number(m[3]) : 1900 + Number(m[3])), m[2], m[1], m[4], m[5], m[6]];
  else if ((m = ASCTIME.exec(value))) parts = [m[6], m[1], m[2].trim().padStart(2, "0"), m[3], m[4], m[5]];
  if (!parts) return NaN;
  const [year, month, day, hour, minute, second] = parts;
  const mm = String(MONTHS.indexOf(month.toLowerCase()) + 1).padStart(2, "0");
  return utcMs(`${year}-${mm}-${day}T${hour}:${minute}:${second}Z`);
}
