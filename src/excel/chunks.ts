// How much one context.sync may carry, written once: reads start small and size each next chunk from the bytes the last one carried (a row wider than the budget read in column ranges), writes are packed by their known bytes; every request and answer stays within the 1 MiB goal, far below Excel on the web's 5 MB limit.
import type { CellValue } from "../trading/cells";

/** What a read or a write aims to carry per sync: half the 1 MiB goal, so a chunk whose cells weigh twice the last one's still fits. */
export const SYNC_BUDGET_BYTES = 512 * 1024;
/** Rows per sync at most, however light they are (a narrow read such as the idempotency-key column). */
const MAX_ROWS_PER_SYNC = 10_000;
/** Cells per sync at most: 2,000 rows of a 20-column log. */
export const MAX_CELLS_PER_SYNC = 40_000;
/** The most characters an Excel cell holds. */
export const MAX_CELL_CHARS = 32_767;
/**
 * Cells of a read's first chunk, before anything is known of what they hold: 15 cells of Excel's longest text weigh under 512 KiB,
 * the budget, so the first answer fits whatever the cells hold.
 */
export const FIRST_READ_CELLS = Math.floor(SYNC_BUDGET_BYTES / (MAX_CELL_CHARS + 3));
/** How much a chunk may grow over the last one: light data reaches its full size in a few syncs (15 → 40,000 cells in six syncs). */
export const READ_GROWTH = 4;
/** Ranges read per sync at most (each costs ~200 bytes of request). */
const MAX_RANGES_PER_SYNC = 1_000;
/** What one range assignment costs in the request besides its values (object path, action, ids). */
export const BYTES_PER_RANGE = 200;

export interface ChunkLimits {
  budgetBytes: number;
  maxRows: number;
  maxCells: number;
  /** Cells of a read's first chunk (default FIRST_READ_CELLS). */
  firstCells?: number;
  /** Ranges read per sync (default MAX_RANGES_PER_SYNC). */
  maxRanges?: number;
}

export const DEFAULT_LIMITS: ChunkLimits = { budgetBytes: SYNC_BUDGET_BYTES, maxRows: MAX_ROWS_PER_SYNC, maxCells: MAX_CELLS_PER_SYNC };

/** The JSON size of a value as Office.js sends it, in UTF-8 bytes (an Excel cell's text may be any Unicode). */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  if (json === undefined) return 0;
  let bytes = json.length;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    // Past ASCII: 2 bytes below U+0800, else 3 (a surrogate pair's two halves are 4 bytes in all, 3 + 3 counted: a margin).
    if (c >= 0x80) bytes += c < 0x800 ? 1 : 2;
  }
  return bytes;
}

/**
 * The one sizing rule of every chunked read (the selection, the log's month-end read and queries, the archive, the
 * snapshot's formula scan and spills). The first chunk is FIRST_READ_CELLS cells; each next one is as many cells as the
 * budget holds at what a cell of the last chunk weighed (every property loaded counted), at most READ_GROWTH times the
 * last allowance and the cell cap. A chunk's answer therefore passes the 1 MiB goal only when its cells weigh more than
 * twice what the last chunk's did on average (light rows, then long text); the chunks shrink or grow with the data as it
 * goes, and a chunk Excel refuses as too large (over 5 MB) is read again from the first chunk's size (`readBlocks`).
 */
export class ReadSizer {
  private allowed: number;

  constructor(private readonly limits: ChunkLimits = DEFAULT_LIMITS) {
    this.allowed = Math.max(1, Math.min(limits.firstCells ?? FIRST_READ_CELLS, limits.maxCells));
  }

  /** Cells the next sync may read. */
  cells(): number {
    return this.allowed;
  }

  /** What the next sync may take: cells, rows and ranges. */
  allowance(): ChunkAllowance {
    return { cells: this.allowed, rows: this.limits.maxRows, ranges: this.limits.maxRanges ?? MAX_RANGES_PER_SYNC };
  }

  /** Learns from a chunk just read: its cells, and the bytes of everything loaded for them. */
  observe(cells: number, bytes: number): void {
    if (cells <= 0) return;
    const perCell = Math.max(1, bytes / cells);
    const byBytes = Math.floor(this.limits.budgetBytes / perCell);
    this.allowed = Math.max(1, Math.min(this.limits.maxCells, this.allowed * READ_GROWTH, byBytes));
  }

  /**
   * Learns that Excel refused a chunk as too large (more than 5 MB: its cells weigh far more than the last chunk's). The
   * next chunk is the first chunk's size again, which fits whatever the cells hold; false when that was already the size
   * refused (nothing smaller to try).
   */
  refused(cells: number): boolean {
    const first = Math.max(1, Math.min(this.limits.firstCells ?? FIRST_READ_CELLS, this.limits.maxCells));
    if (cells <= first) return false;
    this.allowed = first;
    return true;
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

/** A rectangle of cells to read, 0-based: its first row and column and its size. */
export interface Block {
  row: number;
  column: number;
  rows: number;
  columns: number;
}

/** What the next chunk may take: cells, rows (summed over its blocks) and ranges. */
interface ChunkAllowance {
  cells: number;
  rows: number;
  ranges: number;
}

/**
 * The blocks of the next chunk: whole blocks from the front of the queue while the allowance lasts, then the first rows
 * of the next; a row wider than the allowance, when nothing else is taken, its first columns (the rest of the row is next
 * in the queue). Never an empty chunk. Extra fields of a block (a tag) stay on its pieces.
 */
export function takeBlocks<T extends Block>(queue: readonly T[], allowance: ChunkAllowance): { taken: T[]; rest: T[] } {
  const taken: T[] = [];
  let cells = Math.max(1, allowance.cells);
  let rows = Math.max(1, allowance.rows);
  let i = 0;
  for (; i < queue.length && rows > 0 && taken.length < Math.max(1, allowance.ranges); i++) {
    const b = queue[i];
    if (b.rows * b.columns <= cells && b.rows <= rows) {
      taken.push(b);
      cells -= b.rows * b.columns;
      rows -= b.rows;
    } else if (b.columns <= cells) {
      const head = Math.min(rows, Math.floor(cells / b.columns));
      taken.push({ ...b, rows: head });
      return { taken, rest: [{ ...b, row: b.row + head, rows: b.rows - head }, ...queue.slice(i + 1)] };
    } else if (taken.length === 0) {
      const rest: T[] = [{ ...b, rows: 1, column: b.column + cells, columns: b.columns - cells }];
      if (b.rows > 1) rest.push({ ...b, row: b.row + 1, rows: b.rows - 1 });
      return { taken: [{ ...b, rows: 1, columns: cells }], rest: [...rest, ...queue.slice(i + 1)] };
    } else break;
  }
  return { taken, rest: queue.slice(i) };
}

/** Excel's refusal of an answer over its limit (5 MB on the web). */
const isTooLarge = (e: unknown) => (e as { code?: unknown } | null)?.code === "ResponsePayloadSizeLimitExceeded";

type LoadedProperty = "values" | "formulas" | "valueTypes";

/** One block of a chunk as read: its range with the properties loaded. */
interface BlockRead<T extends Block> {
  block: T;
  range: Excel.Range;
}

/**
 * Reads blocks of a sheet in chunks sized by `sizer` (one chunk per sync, its range proxies released at once), handing each
 * chunk over before the next is read. `place` puts a block on the sheet; it is asked when the chunk is read, so a caller
 * that moves rows between chunks (the archive removing them) reads the next chunk where its rows are by then.
 */
export async function* readBlocks<T extends Block>(
  context: Excel.RequestContext,
  sheet: Excel.Worksheet,
  blocks: readonly T[],
  properties: readonly LoadedProperty[],
  sizer: ReadSizer,
  place: (block: T) => { row: number; column: number } = (b) => b,
): AsyncGenerator<Array<BlockRead<T>>> {
  let pending: readonly T[] = blocks;
  while (pending.length > 0) {
    const { taken, rest } = takeBlocks(pending, sizer.allowance());
    pending = rest;
    const reads = taken.map((block) => {
      const at = place(block);
      const range = sheet.getRangeByIndexes(at.row, at.column, block.rows, block.columns).load(properties.join(","));
      range.untrack();
      return { block, range };
    });
    try {
      await context.sync();
    } catch (e) {
      // A read changes nothing, so a chunk Excel refused as too large is read again, from the first chunk's size.
      if (!isTooLarge(e) || !sizer.refused(taken.reduce((n, b) => n + b.rows * b.columns, 0))) throw e;
      pending = [...taken, ...rest];
      continue;
    }
    let cells = 0;
    let bytes = 0;
    for (const { block, range } of reads) {
      cells += block.rows * block.columns;
      for (const p of properties) bytes += jsonBytes(range[p]);
    }
    sizer.observe(cells, bytes);
    yield reads;
  }
}

/** One span of a chunked read, with its rows' values. */
interface SpanValues {
  span: RowSpan;
  values: CellValue[][];
}

/**
 * Reads the values of some spans of rows across `width` columns from sheet column `left`, in chunks (see `readBlocks`),
 * handing over whole rows: a row read in column ranges is handed over once all its columns are in. `sheetRow` places a
 * span's first row on the sheet, asked when the chunk is read.
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
  const blocks = spans.map((s) => ({ row: s.start, column: left, rows: s.count, columns: width }));
  let partial: CellValue[] = [];
  for await (const reads of readBlocks(context, sheet, blocks, ["values"], sizer, (b) => ({ row: sheetRow(b.row), column: b.column }))) {
    const chunk: SpanValues[] = [];
    for (const { block, range } of reads) {
      const values = range.values as CellValue[][];
      if (block.columns === width) {
        chunk.push({ span: { start: block.row, count: block.rows }, values });
        continue;
      }
      partial.push(...values[0]);
      if (block.column + block.columns === left + width) {
        chunk.push({ span: { start: block.row, count: 1 }, values: [partial] });
        partial = [];
      }
    }
    if (chunk.length > 0) yield chunk;
  }
}
