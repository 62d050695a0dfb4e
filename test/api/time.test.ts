// One time rule: service schemas take ISO 8601 with a zone (extended or basic, with or without seconds; a date alone only as a settlement date), and every reader of times (log cells, recon sheet, HEDGE.* cells, month windows) reads them as UTC, whatever the machine's time zone.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { hedgeSchema, closedHedgeSchema, issuePath } from "../../src/api/schemas";
import { httpDateMs, isoMinute, serviceTime, utcMinute, utcMs } from "../../src/api/time";
import * as ex from "../support/examples";
import type { Reading } from "./time-readings";

const serialOf = (ms: number) => ms / 86_400_000 + 25_569;

/** [text, the UTC instant it means (or NaN: not a time)]. */
const TABLE: Array<[string, number]> = [
  ["2026-11-30T23:30:00Z", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-11-30T23:30:00.250Z", Date.UTC(2026, 10, 30, 23, 30, 0, 250)],
  ["2026-11-30T18:30:00-05:00", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-12-01T08:30:00+09:00", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-12-01T08:30:00+0900", Date.UTC(2026, 10, 30, 23, 30)],
  // No zone: the add-in's own cells and typed dates; always UTC, never the machine's zone.
  ["2026-11-30T23:30:00", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-11-30 23:30", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-11-30", Date.UTC(2026, 10, 30)],
  // Not ISO 8601, or impossible: never guessed.
  ["22/11/2026 20:00 UTC", NaN],
  ["11/30/2026 23:30", NaN],
  ["Mon, 30 Nov 2026 23:30:00 GMT", NaN],
  // HTTP dates (a Retry-After header) in their other two forms, and a date string only Date.parse would guess at.
  ["Monday, 30-Nov-26 23:30:00 GMT", NaN],
  ["Mon Nov 30 23:30:00 2026", NaN],
  ["Mon Nov 30 2026 23:30:00", NaN],
  ["2026-02-30T10:00:00Z", NaN],
  ["2026-11-30T24:00:00Z", NaN],
  ["", NaN],
];

const ROOT = path.resolve(__dirname, "../..");

/** The table read in a separate Node process whose TZ is `zone` (jest's workers cannot change their own zone). */
function readIn(zone: string): Reading[] {
  const out = execFileSync(process.execPath, ["--import", "tsx", "test/api/time-readings.ts", JSON.stringify(TABLE.map(([t]) => t))], {
    cwd: ROOT,
    env: { ...process.env, TZ: zone },
    encoding: "utf8",
  });
  return JSON.parse(out) as Reading[];
}

const ZONES: Array<[string, number]> = [
  ["America/New_York", 300],
  ["Asia/Tokyo", -540],
];

describe.each(ZONES)("TZ=%s", (zone, offset) => {
  let read: Reading[];
  beforeAll(() => {
    read = readIn(zone);
  }, 30_000);

  test("the readings were made in that zone", () => {
    expect(new Set(read.map((r) => r.zoneOffset))).toEqual(new Set([offset]));
  });

  test("utcMs: the same instant in every zone; text that is not ISO 8601 is never guessed", () => {
    expect(read.map((r) => [r.text, r.utcMs])).toEqual(TABLE.map(([text, ms]) => [text, Number.isFinite(ms) ? ms : null]));
  });

  test("a service's settlement date: a time with a zone, without one (UTC) or a date alone, the same UTC instant in every zone", () => {
    expect(read.map((r) => [r.text, r.serviceTime])).toEqual([
      ["2026-11-30T23:30:00Z", "2026-11-30T23:30:00Z"],
      ["2026-11-30T23:30:00.250Z", "2026-11-30T23:30:00.250Z"],
      ["2026-11-30T18:30:00-05:00", "2026-11-30T18:30:00-05:00"],
      ["2026-12-01T08:30:00+09:00", "2026-12-01T08:30:00+09:00"],
      ["2026-12-01T08:30:00+0900", "2026-11-30T23:30:00Z"],
      ["2026-11-30T23:30:00", "2026-11-30T23:30:00Z"],
      ["2026-11-30 23:30", "2026-11-30T23:30:00Z"],
      ["2026-11-30", "2026-11-30T00:00:00Z"],
      ...TABLE.slice(8).map(([text]) => [text, null]),
    ]);
  });

  test("the Hedge Log cell, the recon sheet cell and a HEDGE.* cell hold the same UTC serial", () => {
    for (const [i, [text, ms]] of TABLE.entries()) {
      const r = read[i];
      if (!Number.isFinite(ms)) continue;
      for (const cell of [r.logCell, r.reconCell, r.hedgeCell]) {
        expect([text, cell]).toEqual([text, expect.closeTo(serialOf(ms), 9)]);
      }
    }
  });

  test("text that is not a time: an error for the log writer, kept as text in the recon and HEDGE.* cells", () => {
    const bad = read.find((r) => r.text === "22/11/2026 20:00 UTC")!;
    expect(bad.logCell).toMatch(/Not an ISO 8601 time/);
    expect(bad.reconCell).toBe("22/11/2026 20:00 UTC");
    expect(bad.hedgeCell).toBe("22/11/2026 20:00 UTC");
  });

  test("a record of 23:30 on 30 November (with or without a zone) belongs to November, not December", () => {
    for (const text of ["2026-11-30T23:30:00Z", "2026-11-30T23:30:00", "2026-11-30 23:30", "2026-11-30T18:30:00-05:00"]) {
      const r = read.find((x) => x.text === text)!;
      expect([text, r.inNovember, r.inDecember]).toEqual([text, true, false]);
    }
  });

  test("a Retry-After date is the same instant in every zone (asctime has no zone and is GMT); other text is no date", () => {
    const at = Object.fromEntries(read.map((r) => [r.text, r.retryAfterMs]));
    const instant = Date.UTC(2026, 10, 30, 23, 30);
    for (const text of [
      "Mon, 30 Nov 2026 23:30:00 GMT",
      "Monday, 30-Nov-26 23:30:00 GMT",
      "Mon Nov 30 23:30:00 2026",
      "2026-11-30T23:30:00Z",
    ]) {
      expect([text, at[text]]).toEqual([text, instant]);
    }
    for (const text of ["Mon Nov 30 2026 23:30:00", "22/11/2026 20:00 UTC", "11/30/2026 23:30"])
      expect([text, at[text]]).toEqual([text, null]);
  });

  test("the log's 'logged since' query compares instants, not local readings", () => {
    expect(read.find((r) => r.text === "2026-11-30T23:30:00")!.loggedSince2300Z).toBe(true);
    expect(read.find((r) => r.text === "2026-11-30")!.loggedSince2300Z).toBe(false);
  });
});

/**
 * The same readers in this process (the zone jest runs in), with the edges of each form: what a zone moves, where a part
 * runs out of range, what a form allows around it. The child processes above prove the zone changes nothing; these prove
 * the readings themselves.
 */
const EDGES: Array<[string | null | undefined, number]> = [
  ...TABLE,
  [" 2026-11-30T23:30:00Z ", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-11-30T23:30:00z", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-11-30T23:30:00.5Z", Date.UTC(2026, 10, 30, 23, 30, 0, 500)],
  ["2026-11-30T23:30:00.1239Z", Date.UTC(2026, 10, 30, 23, 30, 0, 123)],
  ["2026-11-30T23:30:59Z", Date.UTC(2026, 10, 30, 23, 30, 59)],
  ["2026-12-01T00:30+01", Date.UTC(2026, 10, 30, 23, 30)],
  ["2026-11-30T23:30-00:30", Date.UTC(2026, 11, 1, 0, 0)],
  ["2026-12-31T23:59:59Z", Date.UTC(2026, 11, 31, 23, 59, 59)],
  ["2026-01-01", Date.UTC(2026, 0, 1)],
  ["2028-02-29", Date.UTC(2028, 1, 29)],
  ["2026-11-30T23:30:00+23:59", Date.UTC(2026, 10, 30, 23, 30) - (23 * 60 + 59) * 60_000],
  ["0099-01-01", Date.parse("0099-01-01T00:00:00Z")], // a year below 100 stays itself (Date.UTC would make it 1999)
  ["2026-11-31", NaN],
  ["2026-00-10", NaN],
  ["2026-13-01", NaN],
  ["2026-11-00", NaN],
  ["2026-11-30T23:60Z", NaN],
  ["2026-11-30T23:30:60Z", NaN],
  ["2026-11-30T23:30+01:60", NaN],
  ["2026-11-30T23:30+24", NaN],
  ["x2026-11-30", NaN],
  ["2026-11-30x", NaN],
  ["2026-11-30T23", NaN],
  ["2026-11-30T23:30:00.Z", NaN],
  ["2026-11-30T23:30 UTC", NaN],
  ["26-11-30", NaN],
  [null, NaN],
  [undefined, NaN],
];

const RETRY_AFTER: Array<[string | null | undefined, number]> = [
  ["Mon, 30 Nov 2026 23:30:00 GMT", Date.UTC(2026, 10, 30, 23, 30)],
  ["mon, 30 nov 2026 23:30:00 gmt", Date.UTC(2026, 10, 30, 23, 30)],
  [" Thu, 01 Jan 2026 00:00:01 GMT ", Date.UTC(2026, 0, 1, 0, 0, 1)],
  ["Thu, 31 Dec 2026 23:59:59 GMT", Date.UTC(2026, 11, 31, 23, 59, 59)],
  ["Monday, 30-Nov-26 23:30:00 GMT", Date.UTC(2026, 10, 30, 23, 30)],
  ["Thursday, 01-Jan-70 00:00:00 GMT", 0], // RFC 850's two-digit year: 70 to 99 are 19xx
  ["Tuesday, 01-Jan-69 00:00:00 GMT", Date.UTC(2069, 0, 1)], // 00 to 69 are 20xx
  ["Sun, 01-Jan-26 00:00:00 GMT", NaN], // RFC 850 names the day in full
  ["Mon Nov 30 23:30:00 2026", Date.UTC(2026, 10, 30, 23, 30)],
  ["Tue Nov  3 08:05:09 2026", Date.UTC(2026, 10, 3, 8, 5, 9)],
  ["Mon, 30 Nov 2026 23:30:00 UTC", NaN],
  ["Mon, 30 Nov 2026 23:30:00 GMT+1", NaN],
  ["Mon, 31 Nov 2026 23:30:00 GMT", NaN],
  ["Mon, 30 Nov 2026 23:30 GMT", NaN],
  ["x Mon, 30 Nov 2026 23:30:00 GMT", NaN],
  ["Mon Nov 30 23:30:00 2026 GMT", NaN],
  ["x Monday, 30-Nov-26 23:30:00 GMT", NaN],
  ["Monday, 30-Nov-26 23:30:00 GMT x", NaN],
  ["x Mon Nov 30 23:30:00 2026", NaN],
  ["Mon, 30 Nov 2026 23:30:00 GMT x", NaN],
  ["120", NaN],
  [null, NaN],
];

describe("the readers in this process, at the edges of each form", () => {
  test("utcMs: every instant, and NaN for what is not one", () => {
    expect(EDGES.map(([text]) => [text, utcMs(text)])).toEqual(EDGES.map(([text, ms]) => [text, ms]));
  });

  test("httpDateMs: the three HTTP date forms, in any case, always GMT; anything else is no date", () => {
    expect(RETRY_AFTER.map(([text]) => [text, httpDateMs(text)])).toEqual(RETRY_AFTER.map(([text, ms]) => [text, ms]));
  });

  test("httpDateMs: every month's name, in each of the three forms (a Retry-After date in May or October is a date)", () => {
    const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const dayInFull = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
    const month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const read = month.map((m, i) => {
      const w = new Date(Date.UTC(2026, i, 15)).getUTCDay();
      return [
        httpDateMs(`${day[w]}, 15 ${m} 2026 08:05:09 GMT`),
        httpDateMs(`${dayInFull[w]}, 15-${m}-26 08:05:09 GMT`),
        httpDateMs(`${day[w]} ${m} 15 08:05:09 2026`),
      ];
    });
    expect(read).toEqual(month.map((_, i) => Array(3).fill(Date.UTC(2026, i, 15, 8, 5, 9))));
  });
});

/**
 * [a time as the service may send it, whether it is a settlement date, the form the add-in keeps (null: refused)].
 * Kept as sent: extended with seconds and a zone. Rewritten in UTC: no seconds, the basic format, other offset forms, a
 * comma before the fraction, a settlement date alone (midnight UTC).
 */
const SERVICE_TIMES: Array<[string, boolean, string | null]> = [
  ["2026-11-26T14:02:00Z", false, "2026-11-26T14:02:00Z"],
  ["2026-11-26T14:02:00.250Z", false, "2026-11-26T14:02:00.250Z"],
  ["2026-11-26T15:02:00+01:00", false, "2026-11-26T15:02:00+01:00"],
  ["2026-11-26T14:02:00.1234567891Z", false, "2026-11-26T14:02:00.1234567891Z"],
  ["2026-11-26T14:02Z", false, "2026-11-26T14:02:00Z"],
  ["2026-11-26T09:02-05:00", false, "2026-11-26T14:02:00Z"],
  ["2026-11-26T15:02:00+0100", false, "2026-11-26T14:02:00Z"],
  ["2026-11-26T15:02+01", false, "2026-11-26T14:02:00Z"],
  ["2026-11-26T14:02:00,5Z", false, "2026-11-26T14:02:00.500Z"],
  ["20261126T1402Z", false, "2026-11-26T14:02:00Z"],
  ["20261126T140230Z", false, "2026-11-26T14:02:30Z"],
  ["20261126T140230.25Z", false, "2026-11-26T14:02:30.250Z"],
  ["20261126T150230+0100", false, "2026-11-26T14:02:30Z"],
  ["20261126T1402-05", false, "2026-11-26T19:02:00Z"],
  ["2026-11-26T14:02:00.250+01:00", false, "2026-11-26T14:02:00.250+01:00"],
  ["2026-11-26 14:02Z", false, "2026-11-26T14:02:00Z"],
  ["20261126T1402z", false, "2026-11-26T14:02:00Z"],
  ["20261126T150230,5+0100", false, "2026-11-26T14:02:30.500Z"],
  ["2026-11-26", true, "2026-11-26T00:00:00Z"],
  ["20261126", true, "2026-11-26T00:00:00Z"],
  ["2026-11-26T14:02Z", true, "2026-11-26T14:02:00Z"],
  // A date alone is only a settlement date.
  ["2026-11-26", false, null],
  ["20261126", false, null],
  // A time without a zone is UTC: the spec says the service's timestamps are "ISO 8601 in UTC".
  ["2026-11-26T14:02", true, "2026-11-26T14:02:00Z"],
  ["2026-11-26T14:02:00", false, "2026-11-26T14:02:00Z"],
  ["2026-11-26 14:02:30.25", false, "2026-11-26T14:02:30.250Z"],
  ["20261126T1402", true, "2026-11-26T14:02:00Z"],
  ["20261126T140230,5", false, "2026-11-26T14:02:30.500Z"],
  // Not ISO 8601, or impossible.
  ["20261126T14:02Z", true, null],
  ["2026-1126", true, null],
  ["120261126", true, null],
  ["x20261126T1402Z", false, null],
  ["2026-02-30", true, null],
  ["2026-02-30T10:00:00Z", false, null],
  ["2026-11-26T14:02:60Z", false, null],
  ["20260230", true, null],
  ["2026-11-26T24:00Z", false, null],
  ["2026-11-26T14:60Z", false, null],
  ["2026-11-26T14:02+24:00", false, null],
  ["26/11/2026", true, null],
  ["Thu, 26 Nov 2026 14:02:00 GMT", false, null],
  ["", true, null],
];

describe("serviceTime: the forms the spec leaves open", () => {
  test.each(SERVICE_TIMES)("%j (settlement date: %s) is kept as %j", (text, dateAlone, kept) => {
    expect(serviceTime(text, dateAlone)).toBe(kept);
  });

  test("a time is not a settlement date unless the caller says so: a date alone is refused by default", () => {
    expect([serviceTime("2026-11-26"), serviceTime("2026-11-26T14:02Z")]).toEqual([null, "2026-11-26T14:02:00Z"]);
  });

  test("every form kept is one utcMs reads (any number of fraction digits) and is kept again as it is", () => {
    for (const [text, dateAlone, kept] of SERVICE_TIMES) {
      if (kept === null) continue;
      expect([text, Number.isFinite(utcMs(kept)), serviceTime(kept, dateAlone)]).toEqual([text, true, kept]);
    }
  });
});

describe("service schemas take ISO 8601, UTC where it gives no zone", () => {
  test.each([
    ["2026-11-22T20:00:00Z", true],
    ["2026-11-22T20:00:00.123Z", true],
    ["2026-11-22T21:00:00+01:00", true],
    ["2026-11-22T20:00Z", true],
    ["20261122T2000Z", true],
    ["22/11/2026 20:00 UTC", false],
    ["2026-11-22T20:00:00", true],
    ["2026-11-22", false],
    ["Sun, 22 Nov 2026 20:00:00 GMT", false],
  ])("filled_at %j accepted: %s", (filledAt, accepted) => {
    const result = hedgeSchema.safeParse({ ...ex.hedge, filled_at: filledAt });
    expect(result.success).toBe(accepted);
    if (!result.success) {
      expect(issuePath(result.error.issues[0].path)).toBe("filled_at");
      expect(result.error.issues[0].message).toMatch(/ISO 8601 timestamp \(UTC unless it gives an offset\)/);
    }
  });

  test("a closed-hedge record's closed_at without a zone is read as UTC; one not ISO 8601 is refused, naming the field", () => {
    const read = closedHedgeSchema.safeParse({ ...ex.closedHedge, closed_at: "2026-11-30T23:30:00" });
    expect(read.success && read.data.closed_at).toBe("2026-11-30T23:30:00Z");
    const result = closedHedgeSchema.safeParse({ ...ex.closedHedge, closed_at: "30/11/2026 23:30" });
    expect(result.success).toBe(false);
    expect(result.error && issuePath(result.error.issues[0].path)).toBe("closed_at");
  });
});

describe("a time written to the minute, in UTC", () => {
  /** [the instant (epoch ms or a Date), as shown, in ISO 8601]. */
  const MINUTES: Array<[number | Date, string, string]> = [
    [Date.UTC(2026, 10, 30, 17, 0), "2026-11-30 17:00 UTC", "2026-11-30T17:00Z"],
    // The seconds are cut off, never rounded up to the next minute (nor the next day).
    [Date.UTC(2026, 10, 30, 17, 0, 59, 999), "2026-11-30 17:00 UTC", "2026-11-30T17:00Z"],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), "2026-12-31 23:59 UTC", "2026-12-31T23:59Z"],
    [Date.UTC(2027, 0, 1), "2027-01-01 00:00 UTC", "2027-01-01T00:00Z"],
    [Date.UTC(2028, 1, 29, 6, 2, 30), "2028-02-29 06:02 UTC", "2028-02-29T06:02Z"],
    [0, "1970-01-01 00:00 UTC", "1970-01-01T00:00Z"],
    // A Date, and one made from a time with an offset: shown in UTC, never in its zone or the machine's.
    [new Date(Date.UTC(2026, 10, 30, 17, 5)), "2026-11-30 17:05 UTC", "2026-11-30T17:05Z"],
    [new Date(utcMs("2026-12-01T08:30:00+09:00")), "2026-11-30 23:30 UTC", "2026-11-30T23:30Z"],
  ];

  test.each(MINUTES)("%p: %s, %s", (at, shown, iso) => {
    expect(utcMinute(at)).toBe(shown);
    expect(isoMinute(at)).toBe(iso);
  });

  test("each form reads back as the instant's minute", () => {
    for (const [at] of MINUTES) {
      const minute = Math.floor(new Date(at).getTime() / 60_000) * 60_000;
      expect([utcMs(utcMinute(at).replace(" UTC", "")), utcMs(isoMinute(at))]).toEqual([minute, minute]);
    }
  });

  test("an invalid instant is refused, never written as a time", () => {
    expect(() => utcMinute(NaN)).toThrow(RangeError);
    expect(() => isoMinute(new Date("soon"))).toThrow(RangeError);
  });
});
