// Reads a table of times through every reader the add-in has (log cells, recon cells, HEDGE.* cells, month windows, the log query, a service's settlement date, Retry-After); run by time.test.ts in a child process per TZ.
import { parseRetryAfter } from "../../src/api/sender";
import { serviceTime, utcMs } from "../../src/api/time";
import { excelSerial } from "../../src/functions/cells";
import { REALIZED_COLUMNS } from "../../src/monthend/recon-layout";
import { inWindow, monthWindow } from "../../src/monthend/month";
import { toExcelDate } from "../../src/trading/cells";
import { matchesLogQuery } from "../../src/trading/log/hedge-log";
import { logRow } from "../support/builders";
import * as ex from "../support/examples";

export interface Reading {
  text: string;
  /** Minutes west of UTC of this process on 30 November 2026: proves which zone the readings were made in. */
  zoneOffset: number;
  utcMs: number | null;
  logCell: number | string;
  reconCell: unknown;
  hedgeCell: number | string;
  inNovember: boolean;
  inDecember: boolean;
  loggedSince2300Z: boolean;
  /** The text as the service's settlement date, in the form the add-in keeps (null: refused). */
  serviceTime: string | null;
  /** The text as a Retry-After header: milliseconds from the epoch's start (null: not a date). */
  retryAfterMs: number | null;
}

const attempt = <T>(read: () => T): T | string => {
  try {
    return read();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};

export function readings(texts: readonly string[]): Reading[] {
  const november = monthWindow("2026-11");
  const december = monthWindow("2026-12");
  return texts.map((text) => {
    const ms = utcMs(text);
    return {
      text,
      zoneOffset: new Date(2026, 10, 30, 12).getTimezoneOffset(),
      utcMs: Number.isFinite(ms) ? ms : null,
      logCell: attempt(() => toExcelDate(text)),
      reconCell: REALIZED_COLUMNS[0].value({ record: { ...ex.closedHedge, closed_at: text } } as never),
      hedgeCell: excelSerial(text),
      inNovember: inWindow(text, november),
      inDecember: inWindow(text, december),
      loggedSince2300Z: matchesLogQuery(logRow({ loggedAt: text }), {
        loggedSince: "2026-11-30T23:00:00Z",
      }),
      serviceTime: serviceTime(text, true),
      retryAfterMs: parseRetryAfter(text, 0),
    };
  });
}

if (require.main === module) process.stdout.write(JSON.stringify(readings(JSON.parse(process.argv[2]) as string[])));
