// Snapshot to values: every HEDGE.* formula in the selection (or the active sheet) becomes its current value — a spill its whole block — with a note saying when; only formula cells are read, in chunks, and strings are written as text.
import {
  appendNote,
  findHedgeFormulas,
  planSnapshot,
  type FormulaCell,
  type ShownBlock,
  type SkippedFormula,
  type SnapshotResult,
  type Snapshotter,
} from "../monthend/snapshot-plan";
import type { CellValue } from "../trading/cells";
import { BYTES_PER_RANGE, DEFAULT_LIMITS, ReadSizer, jsonBytes, packByBytes, type ChunkLimits } from "./chunks";
import { queueSafeWrite } from "./safe-cells";
import { columnLetters, quoteSheet } from "./selection-plan";

type Runner = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

/** What one snapshot takes on; beyond, it refuses before changing anything and says how to split the work. */
export interface SnapshotLimits {
  /** Formula cells (any formula) in the scope. */
  formulaCells: number;
  /** HEDGE.* formulas to replace. */
  hedgeFormulas: number;
  /** Cells to write (spills included). */
  cells: number;
}

export const SNAPSHOT_LIMITS: SnapshotLimits = { formulaCells: 200_000, hedgeFormulas: 20_000, cells: 500_000 };

export interface OfficeSnapshotOptions {
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
/** Ranges read per sync (each costs ~300 bytes of request), and cells per range read. */
const RANGES_PER_SYNC = 1_000;
const MAX_CELLS_PER_PIECE = 5_000;
/** What a spilled cell's value and value type weigh in an answer, at most (a number and "Double" ~30 bytes, an id and "String" ~50). */
const SPILL_BYTES_PER_CELL = 40;
const n = (count: number) => count.toLocaleString("en-US");

interface Area {
  rowIndex: number;
  columnIndex: number;
  rowCount: number;
  columnCount: number;
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
  const chunkLimits = options.chunks ?? DEFAULT_LIMITS;
  return {
    async snapshot(scope, at = new Date()) {
      const marker: SnapshotResult["marker"] = supported("ExcelApi", "1.18") ? "note" : supported("ExcelApi", "1.10") ? "comment" : "none";
      const spills = supported("ExcelApi", "1.12");
      return run(async (context) => {
        const sheet = context.workbook.worksheets.getActiveWorksheet().load("name");
        // Values only: cells that hold nothing but formatting are not looked at.
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
            throw new Error(`Select one block of cells (not several separate ones), or snapshot the whole active sheet${said}.`, {
              cause: e,
            });
          }
          throw e;
        }
        const empty: SnapshotResult = { sheetName: sheet.name, address: "", replaced: [], skipped: [], cells: 0, marker };
        if (range.isNullObject) return empty;
        const where = `${sheet.name}${scope === "selection" ? ` (${range.address})` : ""}`;
        const tooLarge = (what: string) =>
          new Error(
            `${where} is too large to snapshot in one go: ${what}. Nothing was changed. Select a part of the sheet and snapshot the selection, then the next part.`,
          );

        // The formula cells, as areas (listed in pages).
        const special = range.getSpecialCellsOrNullObject("Formulas").load("isNullObject, areaCount, cellCount");
        await context.sync();
        if (special.isNullObject) return { ...empty, address: range.address };
        if (special.cellCount > limits.formulaCells)
          throw tooLarge(`it holds ${n(special.cellCount)} formula cells, more than the ${n(limits.formulaCells)} one snapshot reads`);
        const areas: Area[] = [];
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
          areas.push(
            ...page.items.map((a) => ({
              rowIndex: a.rowIndex,
              columnIndex: a.columnIndex,
              rowCount: a.rowCount,
              columnCount: a.columnCount,
            })),
          );
          page.items.forEach((a) => a.untrack());
        }

        // Their formulas, values and value types, several areas per sync, long areas in pieces; only HEDGE.* cells are kept.
        const found: Array<FormulaCell & { value: CellValue; valueType: string }> = [];
        const sizer = new ReadSizer(chunkLimits);
        const pieces: Area[] = [];
        for (const area of areas) {
          const rows = Math.max(1, Math.floor(MAX_CELLS_PER_PIECE / area.columnCount));
          for (let at = 0; at < area.rowCount; at += rows)
            pieces.push({ ...area, rowIndex: area.rowIndex + at, rowCount: Math.min(rows, area.rowCount - at) });
        }
        for (let i = 0; i < pieces.length;) {
          // Three arrays per cell (formula, value, type): a third of what a plain read may take, and a cap on ranges per sync.
          const budget = Math.max(1, Math.floor((sizer.rows(1) * 1) / 3));
          const batch: Area[] = [];
          let cells = 0;
          while (
            i < pieces.length &&
            (batch.length === 0 || (cells + pieces[i].rowCount * pieces[i].columnCount <= budget && batch.length < RANGES_PER_SYNC))
          ) {
            cells += pieces[i].rowCount * pieces[i].columnCount;
            batch.push(pieces[i++]);
          }
          const reads = batch.map((piece) => {
            const r = sheet
              .getRangeByIndexes(piece.rowIndex, piece.columnIndex, piece.rowCount, piece.columnCount)
              .load("formulas, values, valueTypes");
            r.untrack();
            return { piece, r };
          });
          await context.sync();
          for (const { piece, r } of reads) {
            sizer.observe(r.formulas as CellValue[][]);
            for (const cell of findHedgeFormulas(r.formulas, piece.rowIndex, piece.columnIndex)) {
              const y = cell.row - piece.rowIndex;
              const x = cell.column - piece.columnIndex;
              found.push({ ...cell, value: (r.values as CellValue[][])[y][x], valueType: (r.valueTypes as string[][])[y][x] });
            }
          }
        }
        if (found.length === 0) return { ...empty, address: range.address };
        if (found.length > limits.hedgeFormulas)
          throw tooLarge(`it holds ${n(found.length)} HEDGE formulas, more than the ${n(limits.hedgeFormulas)} one snapshot replaces`);

        // What each shows: its own value, or its whole spill.
        const spillOf = new Map<FormulaCell, Area>();
        if (spills) {
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
              if (!s.isNullObject)
                spillOf.set(cell, { rowIndex: s.rowIndex, columnIndex: s.columnIndex, rowCount: s.rowCount, columnCount: s.columnCount });
          }
        }
        const spillCells = [...spillOf.values()].reduce((total, a) => total + a.rowCount * a.columnCount, 0);
        if (found.length - spillOf.size + spillCells > limits.cells)
          throw tooLarge(
            `its HEDGE formulas show ${n(found.length - spillOf.size + spillCells)} cells, more than the ${n(limits.cells)} one snapshot writes`,
          );
        // The spills' values, several per sync; a long one (a HEDGE.HISTORY of 5,000 rows) in pieces of rows, in order.
        const spillValues = new Map<FormulaCell, ShownBlock>();
        const spillPieces: Array<{ cell: FormulaCell; a: Area; top: number; rows: number }> = [];
        for (const [cell, a] of spillOf) {
          spillValues.set(cell, { row: a.rowIndex, column: a.columnIndex, values: [], valueTypes: [] });
          const rows = Math.max(1, Math.floor(chunkLimits.budgetBytes / (a.columnCount * SPILL_BYTES_PER_CELL)));
          for (let at = 0; at < a.rowCount; at += rows)
            spillPieces.push({ cell, a, top: a.rowIndex + at, rows: Math.min(rows, a.rowCount - at) });
        }
        for (const group of packByBytes(
          spillPieces,
          (p) => p.rows * p.a.columnCount * SPILL_BYTES_PER_CELL + BYTES_PER_RANGE,
          chunkLimits,
        )) {
          const reads = group.map((p) => {
            const r = sheet.getRangeByIndexes(p.top, p.a.columnIndex, p.rows, p.a.columnCount).load("values, valueTypes");
            r.untrack();
            return { cell: p.cell, r };
          });
          await context.sync();
          for (const { cell, r } of reads) {
            const block = spillValues.get(cell)!;
            block.values.push(...(r.values as CellValue[][]));
            block.valueTypes.push(...(r.valueTypes as string[][]));
          }
        }

        const plan = planSnapshot(
          found.map((cell) => ({
            ...cell,
            shown: spillValues.get(cell) ?? { row: cell.row, column: cell.column, values: [[cell.value]], valueTypes: [[cell.valueType]] },
          })),
          at,
        );

        // Notes or comments already on those cells: the time is added under what they say.
        const existing = new Map<string, { note?: Excel.Note; comment?: Excel.Comment }>();
        if (marker === "note" && plan.writes.length > 0) {
          for (let i = 0; i < plan.writes.length; i += SPILL_QUESTIONS_PER_SYNC) {
            const asked = plan.writes.slice(i, i + SPILL_QUESTIONS_PER_SYNC).map((w) => {
              const note = sheet.notes.getItemOrNullObject(cellAddress(w.row, w.column)).load("content");
              return { key: cellAddress(w.row, w.column), note };
            });
            await context.sync();
            for (const { key, note } of asked) if (!note.isNullObject) existing.set(key, { note });
          }
        } else if (marker === "comment" && plan.writes.length > 0) {
          // The sheet's comments, a page at a time, and where each sits (Excel finds a comment by id or by cell, never "or null").
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

        // Writes, chunked: each replaced block and its note in the same sync.
        let done = 0;
        const groups = packByBytes(plan.writes, (w) => jsonBytes(w.values) + jsonBytes(w.note) + 4 * BYTES_PER_RANGE, chunkLimits);
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
              done > 0
                ? ` (the last one replaced: ${quoteSheet(sheet.name)}!${cellAddress(plan.writes[done - 1].row, plan.writes[done - 1].column)})`
                : "";
            throw new Error(
              `Snapshot stopped part-way: ${n(done)} of ${n(plan.writes.length)} HEDGE formulas were replaced by their values${last}; ` +
                `the other ${n(plan.writes.length - done)} are still formulas. Run Snapshot to values again to finish them. (Excel said: ${said})`,
              { cause: e },
            );
          }
          done += group.length;
        }

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
