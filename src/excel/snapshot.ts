// Snapshot to values: every HEDGE.* formula in the selection (or the active sheet) becomes its current value — a spill its whole block — with a note saying when; only formula cells are read, in chunks sized by their bytes, and strings are written as text.
import {
  appendNote,
  findHedgeFormulas,
  planSnapshot,
  type FormulaCell,
  type PlannedWrite,
  type ShownBlock,
  type SkippedFormula,
  type SnapshotResult,
  type SnapshotScope,
  type Snapshotter,
} from "../monthend/snapshot-plan";
import type { CellValue } from "../trading/cells";
import { BYTES_PER_RANGE, DEFAULT_LIMITS, ReadSizer, jsonBytes, packByBytes, readBlocks, type Block, type ChunkLimits } from "./chunks";
import { queueSafeWrite } from "./safe-cells";
import { columnLetters, quoteSheet } from "./selection-plan";

type Runner = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

interface SnapshotLimits {
  /** Formula cells (any formula) in the scope. */
  formulaCells: number;
  /** HEDGE.* formulas to replace. */
  hedgeFormulas: number;
  /** Cells to write (spills included). */
  cells: number;
}

const SNAPSHOT_LIMITS: SnapshotLimits = { formulaCells: 200_000, hedgeFormulas: 20_000, cells: 500_000 };

interface OfficeSnapshotOptions {
  run?: Runner;
  /** Office.context.requirements.isSetSupported, injectable for tests. */
  isSetSupported?: (name: string, version: string) => boolean;
  limits?: Partial<SnapshotLimits>;
  /** What one sync may carry (tests shrink it to see chunk boundaries). */
  chunks?: ChunkLimits;
}

const cellAddress = (row: number, column: number) => `${columnLetters(column)}${row + 1}`;
const GEOMETRY = "rowIndex,columnIndex,rowCount,columnCount";
/** Formula cells whose spill is asked per sync (each question is two object paths and a query, ~400 bytes). */
const SPILL_QUESTIONS_PER_SYNC = 500;
/** Areas of formula cells listed per sync (~70 bytes each). */
const AREAS_PER_SYNC = 5_000;
const n = (count: number) => count.toLocaleString("en-US");

type Marker = SnapshotResult["marker"];
type Found = FormulaCell & { value: CellValue; valueType: string };

/** What every phase of one snapshot works with. */
interface Job {
  context: Excel.RequestContext;
  sheet: Excel.Worksheet;
  limits: SnapshotLimits;
  chunks: ChunkLimits;
  /** The refusal of a scope too large, saying what is too much. */
  tooLarge: (what: string) => Error;
}

/**
 * The Office.js snapshotter. Reads only formula cells (special cells, within the values-only used range), in chunks;
 * asks each HEDGE.* cell for its spill; refuses a scope too large before writing anything; writes in chunks, strings as
 * text, each replaced cell with a note (ExcelApi 1.18) or a comment (1.10) added on its Range. A write that fails part-way
 * says how many formulas were replaced and that running it again finishes the rest.
 */
export function officeSnapshotter(options: OfficeSnapshotOptions = {}): Snapshotter {
  const run: Runner = options.run ?? ((batch) => Excel.run(batch));
  const supported = options.isSetSupported ?? ((name, version) => Office.context.requirements.isSetSupported(name, version));
  const limits: SnapshotLimits = { ...SNAPSHOT_LIMITS, ...options.limits };
  const chunks = options.chunks ?? DEFAULT_LIMITS;
  return {
    async snapshot(scope, at = new Date()) {
      const marker: Marker = supported("ExcelApi", "1.18") ? "note" : supported("ExcelApi", "1.10") ? "comment" : "none";
      const spills = supported("ExcelApi", "1.12");
      return run(async (context) => {
        const { sheet, range } = await openScope(context, scope);
        const empty: SnapshotResult = { sheetName: sheet.name, address: "", replaced: [], skipped: [], cells: 0, marker };
        if (range.isNullObject) return empty;
        const where = `${sheet.name}${scope === "selection" ? ` (${range.address})` : ""}`;
        const job: Job = {
          context,
          sheet,
          limits,
          chunks,
          tooLarge: (what) =>
            new Error(
              `${where} is too large to snapshot in one go: ${what}. Nothing was changed. Select a part of the sheet and snapshot the selection, then the next part.`,
            ),
        };
        const areas = await listFormulaAreas(job, range);
        const found = areas.length === 0 ? [] : await scanFormulas(job, areas);
        if (found.length === 0) return { ...empty, address: range.address };
        if (found.length > limits.hedgeFormulas)
          throw job.tooLarge(`it holds ${n(found.length)} HEDGE formulas, more than the ${n(limits.hedgeFormulas)} one snapshot replaces`);
        const spillOf = spills ? await findSpills(job, found) : new Map<FormulaCell, Block>();
        const shown = await readSpills(job, spillOf);
        const plan = planSnapshot(
          found.map((cell) => ({
            ...cell,
            shown: shown.get(cell) ?? { row: cell.row, column: cell.column, values: [[cell.value]], valueTypes: [[cell.valueType]] },
          })),
          at,
        );
        await writeValues(job, plan.writes, marker, await existingMarkers(job, marker, plan.writes));
        const a1 = (s: { row: number; column: number }) => `${sheet.name}!${cellAddress(s.row, s.column)}`;
        return {
          sheetName: sheet.name,
          address: range.address,
          replaced: plan.writes.map((w) => ({
            address: a1(w),
            formula: w.formula,
            rows: w.values.length,
            columns: w.values[0]?.length ?? 1,
          })),
          skipped: plan.skipped.map((s: SkippedFormula) => ({ address: a1(s), formula: s.formula, reason: s.reason })),
          cells: plan.cellCount,
          marker,
        };
      });
    },
  };
}

/** The active sheet and the cells in scope: the selection within the values-only used range, or that used range (cells holding only formatting are not looked at). */
async function openScope(context: Excel.RequestContext, scope: SnapshotScope): Promise<{ sheet: Excel.Worksheet; range: Excel.Range }> {
  const sheet = context.workbook.worksheets.getActiveWorksheet().load("name");
  const range =
    scope === "selection"
      ? context.workbook.getSelectedRange().getIntersectionOrNullObject(sheet.getUsedRange(true))
      : sheet.getUsedRangeOrNullObject(true);
  range.load("isNullObject, address");
  try {
    await context.sync();
  } catch (e) {
    if (scope === "selection") {
      const said = e instanceof Error ? ` (Excel said: ${e.message})` : "";
      throw new Error(`Select one block of cells (not several separate ones), or snapshot the whole active sheet${said}.`, { cause: e });
    }
    throw e;
  }
  return { sheet, range };
}

/** The scope's formula cells as areas, listed in pages; too many formula cells are refused before anything is read. */
async function listFormulaAreas(job: Job, range: Excel.Range): Promise<Block[]> {
  const { context, limits } = job;
  const special = range.getSpecialCellsOrNullObject("Formulas").load("isNullObject, areaCount, cellCount");
  await context.sync();
  if (special.isNullObject) return [];
  if (special.cellCount > limits.formulaCells)
    throw job.tooLarge(`it holds ${n(special.cellCount)} formula cells, more than the ${n(limits.formulaCells)} one snapshot reads`);
  const areas: Block[] = [];
  for (let skip = 0; skip < special.areaCount; skip += AREAS_PER_SYNC) {
    const page = special.areas.load({
      $top: AREAS_PER_SYNC,
      $skip: skip,
      rowIndex: true,
      columnIndex: true,
      rowCount: true,
      columnCount: true,
    });
    await context.sync();
    areas.push(...page.items.map((a) => ({ row: a.rowIndex, column: a.columnIndex, rows: a.rowCount, columns: a.columnCount })));
    page.items.forEach((a) => a.untrack());
  }
  return areas;
}

/** The HEDGE.* cells among the formula cells, with their value and value type: formulas, values and types read in chunks sized by their bytes (a long text result too). */
async function scanFormulas(job: Job, areas: readonly Block[]): Promise<Found[]> {
  const found: Found[] = [];
  const sizer = new ReadSizer(job.chunks);
  for await (const reads of readBlocks(job.context, job.sheet, areas, ["formulas", "values", "valueTypes"], sizer)) {
    for (const { block, range } of reads) {
      for (const cell of findHedgeFormulas(range.formulas, block.row, block.column)) {
        const y = cell.row - block.row;
        const x = cell.column - block.column;
        found.push({ ...cell, value: (range.values as CellValue[][])[y][x], valueType: (range.valueTypes as string[][])[y][x] });
      }
    }
  }
  return found;
}

/** Where each HEDGE.* cell spills to (ExcelApi 1.12), asked a few hundred per sync; too many cells to write are refused before any write. */
async function findSpills(job: Job, found: readonly Found[]): Promise<Map<FormulaCell, Block>> {
  const { context, sheet, limits } = job;
  const spillOf = new Map<FormulaCell, Block>();
  for (let i = 0; i < found.length; i += SPILL_QUESTIONS_PER_SYNC) {
    const asked = found.slice(i, i + SPILL_QUESTIONS_PER_SYNC).map((cell) => {
      const own = sheet.getCell(cell.row, cell.column);
      const s = own.getSpillingToRangeOrNullObject().load(`isNullObject,${GEOMETRY}`);
      own.untrack();
      s.untrack();
      return { cell, s };
    });
    await context.sync();
    for (const { cell, s } of asked)
      if (!s.isNullObject) spillOf.set(cell, { row: s.rowIndex, column: s.columnIndex, rows: s.rowCount, columns: s.columnCount });
  }
  const spillCells = [...spillOf.values()].reduce((total, a) => total + a.rows * a.columns, 0);
  const cells = found.length - spillOf.size + spillCells;
  if (cells > limits.cells)
    throw job.tooLarge(`its HEDGE formulas show ${n(cells)} cells, more than the ${n(limits.cells)} one snapshot writes`);
  return spillOf;
}

/** The spills' values and value types, in chunks sized by their bytes (a HEDGE.HISTORY of 5,000 rows in pieces of rows), each put back in its block. */
async function readSpills(job: Job, spillOf: ReadonlyMap<FormulaCell, Block>): Promise<Map<FormulaCell, ShownBlock>> {
  const shown = new Map<FormulaCell, ShownBlock>();
  const blocks: Array<Block & { cell: FormulaCell }> = [];
  for (const [cell, a] of spillOf) {
    shown.set(cell, {
      row: a.row,
      column: a.column,
      values: Array.from({ length: a.rows }, () => new Array<CellValue>(a.columns)),
      valueTypes: Array.from({ length: a.rows }, () => new Array<string>(a.columns)),
    });
    blocks.push({ ...a, cell });
  }
  for await (const reads of readBlocks(job.context, job.sheet, blocks, ["values", "valueTypes"], new ReadSizer(job.chunks))) {
    for (const { block, range } of reads) {
      const into = shown.get(block.cell)!;
      (range.values as CellValue[][]).forEach((row, y) =>
        row.forEach((v, x) => {
          into.values[block.row - into.row + y][block.column - into.column + x] = v;
          into.valueTypes[block.row - into.row + y][block.column - into.column + x] = (range.valueTypes as string[][])[y][x];
        }),
      );
    }
  }
  return shown;
}

/** Notes or comments already on the cells to write (the time is added under what they say): notes asked by address, comments listed a page at a time with where each sits. */
async function existingMarkers(
  job: Job,
  marker: Marker,
  writes: readonly PlannedWrite[],
): Promise<Map<string, { note?: Excel.Note; comment?: Excel.Comment }>> {
  const { context, sheet } = job;
  const existing = new Map<string, { note?: Excel.Note; comment?: Excel.Comment }>();
  if (writes.length === 0) return existing;
  if (marker === "note") {
    for (let i = 0; i < writes.length; i += SPILL_QUESTIONS_PER_SYNC) {
      const asked = writes.slice(i, i + SPILL_QUESTIONS_PER_SYNC).map((w) => {
        const note = sheet.notes.getItemOrNullObject(cellAddress(w.row, w.column)).load("content");
        return { key: cellAddress(w.row, w.column), note };
      });
      await context.sync();
      for (const { key, note } of asked) if (!note.isNullObject) existing.set(key, { note });
    }
  } else if (marker === "comment") {
    // Excel finds a comment by id or by cell, never "or null".
    const total = sheet.comments.getCount();
    await context.sync();
    for (let skip = 0; skip < total.value; skip += SPILL_QUESTIONS_PER_SYNC) {
      const page = sheet.comments.load({ $top: SPILL_QUESTIONS_PER_SYNC, $skip: skip, id: true });
      await context.sync();
      const located = page.items.map((comment) => ({ comment, at: comment.getLocation().load("rowIndex, columnIndex") }));
      await context.sync();
      for (const { comment, at: loc } of located) existing.set(cellAddress(loc.rowIndex, loc.columnIndex), { comment });
    }
  }
  return existing;
}

/** The writes, chunked by their bytes: each replaced block as text-safe values and its note in the same sync; a sync Excel refuses says how far it got. */
async function writeValues(
  job: Job,
  writes: readonly PlannedWrite[],
  marker: Marker,
  existing: ReadonlyMap<string, { note?: Excel.Note; comment?: Excel.Comment }>,
): Promise<void> {
  const { context, sheet } = job;
  let done = 0;
  const groups = packByBytes(writes, (w) => jsonBytes(w.values) + jsonBytes(w.note) + 4 * BYTES_PER_RANGE, job.chunks);
  for (const group of groups) {
    for (const write of group) {
      const columns = write.values[0]?.length ?? 1;
      queueSafeWrite(
        sheet,
        write.row,
        write.column,
        write.values,
        Array.from({ length: columns }, () => null),
      );
      const key = cellAddress(write.row, write.column);
      const cell = sheet.getCell(write.row, write.column).untrack();
      const had = existing.get(key);
      if (marker === "note") {
        if (had?.note) had.note.content = appendNote(had.note.content, write.note);
        else context.trackedObjects.remove(sheet.notes.add(cell, write.note));
      } else if (marker === "comment") {
        if (had?.comment) context.trackedObjects.remove(had.comment.replies.add(write.note));
        else context.trackedObjects.remove(sheet.comments.add(cell, write.note));
      }
    }
    try {
      await context.sync();
    } catch (e) {
      const said = e instanceof Error ? e.message : String(e);
      const last =
        done > 0 ? ` (the last one replaced: ${quoteSheet(sheet.name)}!${cellAddress(writes[done - 1].row, writes[done - 1].column)})` : "";
      throw new Error(
        `Snapshot stopped part-way: ${n(done)} of ${n(writes.length)} HEDGE formulas were replaced by their values${last}; ` +
          `the other ${n(writes.length - done)} are still formulas. Run Snapshot to values again to finish them. (Excel said: ${said})`,
        { cause: e },
      );
    }
    done += group.length;
  }
}
