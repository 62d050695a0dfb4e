// The one sizing rule of chunked reads: a small first chunk, each next one sized from the bytes the last carried, a row wider than the allowance cut into column ranges.
import {
  FIRST_READ_CELLS,
  MAX_CELLS_PER_SYNC,
  MAX_CELL_CHARS,
  READ_GROWTH,
  ReadSizer,
  SYNC_BUDGET_BYTES,
  jsonBytes,
  takeBlocks,
  type Block,
} from "../../src/excel/chunks";

const text = (chars: number) => "x".repeat(chars);
/** A chunk of these values read: its cells and its JSON bytes, as readBlocks reports them. */
const see = (sizer: ReadSizer, values: unknown[][]) => sizer.observe(values.flat().length, jsonBytes(values));

describe("ReadSizer", () => {
  it("starts with a chunk that fits the budget even if every cell holds Excel's longest text", () => {
    const sizer = new ReadSizer();
    expect(sizer.cells()).toBe(FIRST_READ_CELLS);
    const worst = Array.from({ length: sizer.cells() }, () => [text(MAX_CELL_CHARS)]);
    expect(jsonBytes(worst)).toBeLessThanOrEqual(SYNC_BUDGET_BYTES);
  });

  it("grows at most fourfold a sync over light cells, up to the cell cap", () => {
    const sizer = new ReadSizer();
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      seen.push(sizer.cells());
      see(
        sizer,
        Array.from({ length: sizer.cells() }, () => [1.25]),
      );
    }
    const growth = seen.map((_, i) => Math.min(MAX_CELLS_PER_SYNC, FIRST_READ_CELLS * READ_GROWTH ** i));
    expect(seen).toEqual(growth);
    expect(seen.slice(-2)).toEqual([MAX_CELLS_PER_SYNC, MAX_CELLS_PER_SYNC]);
  });

  it("sizes the next chunk from the bytes the last one carried, both ways", () => {
    const sizer = new ReadSizer();
    for (let i = 0; i < 6; i++)
      see(
        sizer,
        Array.from({ length: sizer.cells() }, () => [1]),
      );
    see(sizer, [[text(2_000)], [text(2_000)]]);
    const heavy = sizer.cells();
    expect(jsonBytes(Array.from({ length: heavy }, () => [text(2_000)]))).toBeLessThanOrEqual(SYNC_BUDGET_BYTES);
    expect(jsonBytes(Array.from({ length: 2 * heavy }, () => [text(2_000)]))).toBeGreaterThan(SYNC_BUDGET_BYTES);
    see(sizer, [[1], [2]]);
    expect(sizer.cells()).toBe(READ_GROWTH * heavy);
  });

  it("after Excel refuses a chunk as too large, starts again from the first chunk's size; a first-size chunk refused is no retry", () => {
    const sizer = new ReadSizer();
    for (let i = 0; i < 6; i++)
      see(
        sizer,
        Array.from({ length: sizer.cells() }, () => ["ok"]),
      );
    const big = sizer.cells();
    expect(big).toBeGreaterThan(FIRST_READ_CELLS);
    expect(sizer.refused(big)).toBe(true);
    expect(sizer.cells()).toBe(FIRST_READ_CELLS);
    expect(sizer.refused(FIRST_READ_CELLS)).toBe(false);
  });

  it("counts text beyond ASCII in UTF-8 bytes", () => {
    expect(jsonBytes(["é"])).toBe(6);
    expect(jsonBytes(["€"])).toBe(7);
  });
});

describe("takeBlocks", () => {
  const cap = { rows: 10_000, ranges: 1_000 };
  const area = (row: number, rows: number, columns = 20): Block => ({ row, column: 2, rows, columns });

  it("takes whole blocks, then the first rows of the next", () => {
    const { taken, rest } = takeBlocks([area(0, 2), area(10, 5)], { ...cap, cells: 100 });
    expect(taken).toEqual([area(0, 2), area(10, 3)]);
    expect(rest).toEqual([area(13, 2)]);
  });

  it("cuts a row wider than the allowance into column ranges, in order, the rows after it kept", () => {
    let queue: Block[] = [{ row: 5, column: 0, rows: 2, columns: 40 }];
    const pieces: Block[] = [];
    while (queue.length > 0) {
      const next = takeBlocks(queue, { ...cap, cells: 16 });
      pieces.push(...next.taken);
      queue = next.rest;
    }
    expect(pieces.map((p) => [p.row, p.column, p.rows, p.columns])).toEqual([
      [5, 0, 1, 16],
      [5, 16, 1, 16],
      [5, 32, 1, 8],
      [6, 0, 1, 16],
      [6, 16, 1, 16],
      [6, 32, 1, 8],
    ]);
  });

  it("keeps to the row and range caps, and never takes nothing", () => {
    expect(takeBlocks([area(0, 50, 1)], { cells: 1_000, rows: 3, ranges: 9 }).taken).toEqual([area(0, 3, 1)]);
    expect(takeBlocks([area(0, 1, 1), area(5, 1, 1), area(9, 1, 1)], { cells: 1_000, rows: 99, ranges: 2 }).taken).toHaveLength(2);
    expect(takeBlocks([area(0, 1, 1)], { cells: 0, rows: 0, ranges: 0 }).taken).toEqual([area(0, 1, 1)]);
  });
});
