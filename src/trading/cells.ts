// Cell values as Excel hands them over, and Excel serial dates (days since 1899-12-30) to and from ISO 8601 UTC.
import { utcMs } from "../api/time";

/** A cell value as Excel hands it over. Dates in the log are Excel serial numbers (days since 1899-12-30, UTC). */
export type CellValue = string | number | boolean | null;

const MS_PER_DAY = 86_400_000;
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** ISO 8601 UTC → Excel serial date (a number Excel formats as a date). */
export function toExcelDate(iso: string): number {
  const ms = utcMs(iso);
  if (Number.isNaN(ms)) throw new RangeError(`Not an ISO 8601 time: ${iso}`);
  return (ms - EXCEL_EPOCH_MS) / MS_PER_DAY;
}

/** Excel serial date → ISO 8601 UTC, to the millisecond. */
export function fromExcelDate(serial: number): string {
  return new Date(Math.round(serial * MS_PER_DAY + EXCEL_EPOCH_MS)).toISOString();
}
