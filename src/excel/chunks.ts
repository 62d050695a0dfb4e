// How much one context.sync may carry: rows per read and per write, sized so every request and answer stays far below Excel on the web's 5 MB limit (the goal is 1 MiB), and the chunked read of row spans every adapter uses.
import type { CellValue } from "../trading/cells";

/** What a read or a write aims to carry per sync: half the 1 MiB goal, so a chunk twice as heavy as its neighbours still fits. */
export const SYNC_BUDGET_BYTES = 512 * 1024;
/** Rows per sync at most, however light they are (a narrow read such as the idempotency-key column). */
export const MAX_ROWS_PER_SYNC = 10_000;
/** Cells per sync at most: 2,000 rows of a 20-column log. */
export const MAX_CELLS_PER_SYNC = 40_000;
/** Before anything was read, what a cell is guessed to weigh in JSON (an idempotency key is ~40, a number ~18, an empty cell 3). */
const FIRST_GUESS_BYTES_PER_CELL = 32;
/** What one range assignment costs in the request besides its values (object path, action, ids). */
export const BYTES_PER_RANGE = 200;

export interface ChunkLimits {
  budgetBytes: number;
  maxRows: number;
  maxCells: number;
}

export const DEFAULT_LIMITS: ChunkLimits = { budgetBytes: SYNC_BUDGET_BYTES, maxRows: MAX_ROWS_PER_SYNC, maxCells: MAX_CELLS_PER_SYNC };

/** The JSON size of a value as Office.js sends it (characters; non-ASCII text weighs up to 3 bytes each, which the budget's margin covers). */
export function jsonBytes(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/**
 * Sizes reads whose weight is only known afterwards: starts from a guess, then learns what a cell of this data weighs from
 * each chunk read (keeping the heaviest seen, so a sheet of long messages shrinks the chunks and keeps them there).
 */
export class ReadSizer {
  private bytesPerCell = FIRST_GUESS_BYTES_PER_CELL;

  constructor(private readonly limits: ChunkLimits = DEFAULT_LIMITS) {}

  /** Rows to read in the next sync when each row has `columns` cells. */
  rows(columns: number): number {
    const width = Math.max(1, columns);
    const byBytes = Math.floor(this.limits.budgetBytes / (width * this.bytesPerCell));
    const byCells = Math.floor(this.limits.maxCells / width);
    return Math.max(1, Math.min(this.limits.maxRows, byBytes, byCells));
  }

  /** Learns from a block just read. */
  observe(values: readonly (readonly CellValue[])[]): void {
    const cells = values.reduce((n, row) => n + row.length, 0);
    if (cells === 0) return;
    this.bytesPerCell = Math.max(this.bytesPerCell, Math.ceil(jsonBytes(values) / cells));
  }
}

/** Splits items into consecutive groups that each stay within the budget (by `bytesOf`) and the row cap; never an empty group. */
export function packByBytes<T>(items: readonly T[], bytesOf: (item: T) => number, limits: ChunkLimits = DEFAULT_LIMITS): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const b = bytesOf(item);
    if (group.length > 0 && (bytes + b > limits.budgetBytes || group.length >= limits.maxRows)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(item);
    bytes += b;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** A run of consecutive rows, 0-based: `start` and `count`. */
export interface RowSpan {
  start: number;
  count: number;
}

/** Sorted row numbers as runs of consecutive rows (duplicates ignored). */
export function spansOf(rows: readonly number[], gap = 0): RowSpan[] {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const spans: RowSpan[] = [];
  for (const r of sorted) {
    const last = spans[spans.length - 1];
    if (last && r <= last.start + last.count + gap) last.count = r - last.start + 1;
    else spans.push({ start: r, count: 1 });
  }
  return spans;
}

/** Cuts spans so none is longer than `max` rows. */
export function cutSpans(spans: readonly RowSpan[], max: number): RowSpan[] {
  const out: RowSpan[] = [];
  for (const s of spans) {
    for (let at = 0; at < s.count; at += max) out.push({ start: s.start + at, count: Math.min(max, s.count - at) });
  }
  return out;
}

/** The first `budget` rows of some spans (a span split when needed), and the spans left. */
export function takeRows(spans: readonly RowSpan[], budget: number): { taken: RowSpan[]; rest: RowSpan[] } {
  const taken: RowSpan[] = [];
  let left = Math.max(1, budget);
  let i = 0;
  for (; i < spans.length && left > 0; i++) {
    const s = spans[i];
    if (s.count <= left) {
      taken.push(s);
      left -= s.count;
    } else {
      taken.push({ start: s.start, count: left });
      return { taken, rest: [{ start: s.start + left, count: s.count - left }, ...spans.slice(i + 1)] };
    }
  }
  return { taken, rest: spans.slice(i) };
}

/** One span of a chunked read, with its rows' values. */
export interface SpanValues {
  span: RowSpan;
  values: CellValue[][];
}

/**
 * Reads the values of some spans of rows across `width` columns from sheet column `left`, one chunk per sync (as many rows
 * as the sizer allows, the sizer learning from each), handing each chunk over before the next is read. `sheetRow` places a
 * span's first row on the sheet; it is asked when the chunk is read, so a caller that moves rows between chunks (the
 * archive removing them) places the next chunk where its rows are by then.
 */
export async function* readSpans(
  context: Excel.RequestContext,
  sheet: Excel.Worksheet,
  spans: readonly RowSpan[],
  left: number,
  width: number,
  sizer: ReadSizer,
  sheetRow: (start: number) => number = (start) => start,
): AsyncGenerator<SpanValues[]> {
  let pending: readonly RowSpan[] = spans;
  while (pending.length > 0) {
    const { taken, rest } = takeRows(pending, sizer.rows(width));
    pending = rest;
    const reads = taken.map((span) => {
      const range = sheet.getRangeByIndexes(sheetRow(span.start), left, span.count, width).load("values");
      range.untrack();
      return { span, range };
    });
    await context.sync();
    yield reads.map(({ span, range }) => {
      const values = range.values as CellValue[][];
      sizer.observe(values);
      return { span, values };
    });
  }
}
