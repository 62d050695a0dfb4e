// Snapshot to values: every HEDGE.* formula in the selection (or the active sheet) becomes its current value — a spill its whole block — with a note saying when.
import {
  appendNote,
  asPlainValue,
  findHedgeFormulas,
  planSnapshot,
  type FormulaCell,
  type ShownBlock,
  type SkippedFormula,
} from "../monthend/snapshot-plan";
import { columnLetters } from "./selection-plan";
import type { CellValue } from "../trading/cells";
import type { SnapshotResult, Snapshotter } from "../monthend/snapshot-plan";

type Runner = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

export interface OfficeSnapshotOptions {
  run?: Runner;
  /** Office.context.requirements.isSetSupported, injectable for tests. */
  isSetSupported?: (name: string, version: string) => boolean;
}

const cellAddress = (row: number, column: number) => `${columnLetters(column)}${row + 1}`;

/** The Office.js snapshotter. Three syncs: read the formulas, read each one's spill (and existing notes), write. */
export function officeSnapshotter(options: OfficeSnapshotOptions = {}): Snapshotter {
  const run: Runner = options.run ?? ((batch) => Excel.run(batch));
  const supported = options.isSetSupported ?? ((name, version) => Office.context.requirements.isSetSupported(name, version));
  return {
    async snapshot(scope, at = new Date()) {
      const marker: SnapshotResult["marker"] = supported("ExcelApi", "1.18") ? "note" : supported("ExcelApi", "1.10") ? "comment" : "none";
      const spills = supported("ExcelApi", "1.12");
      return run(async (context) => {
        const sheet = context.workbook.worksheets.getActiveWorksheet();
        sheet.load("name");
        let range: Excel.Range;
        if (scope === "selection") {
          // Only the used part: a selection of whole columns would otherwise load a million empty cells.
          range = context.workbook.getSelectedRange().getIntersectionOrNullObject(sheet.getUsedRange());
        } else {
          range = sheet.getUsedRangeOrNullObject();
        }
        range.load("address, formulas, rowIndex, columnIndex");
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
        const found: FormulaCell[] = findHedgeFormulas(range.formulas, range.rowIndex, range.columnIndex);
        if (found.length === 0) return { ...empty, address: range.address };

        // What each formula shows: its spill when it spills, else its own cell.
        const reads = found.map((cell) => {
          const own = sheet.getCell(cell.row, cell.column);
          own.load("values, valueTypes");
          const spill = spills ? own.getSpillingToRangeOrNullObject() : null;
          spill?.load("rowIndex, columnIndex, values, valueTypes");
          return { cell, own, spill };
        });
        const notes =
          marker === "note"
            ? found.map((cell) => sheet.notes.getItemOrNullObject(cellAddress(cell.row, cell.column)).load("content"))
            : null;
        const comments = marker === "comment" ? sheet.comments.load("items") : null;
        await context.sync();
        const commentCells = comments ? comments.items.map((c) => c.getLocation().load("rowIndex, columnIndex")) : [];
        if (commentCells.length > 0) await context.sync();

        const plan = planSnapshot(
          reads.map(({ cell, own, spill }) => {
            const shown: ShownBlock =
              spill && !spill.isNullObject
                ? {
                    row: spill.rowIndex,
                    column: spill.columnIndex,
                    values: spill.values as CellValue[][],
                    valueTypes: spill.valueTypes as string[][],
                  }
                : { row: cell.row, column: cell.column, values: own.values as CellValue[][], valueTypes: own.valueTypes as string[][] };
            return { ...cell, shown };
          }),
          at,
        );

        const noteAt = new Map<string, Excel.Note>();
        if (notes) found.forEach((cell, i) => noteAt.set(cellAddress(cell.row, cell.column), notes[i]));
        for (const write of plan.writes) {
          const rows = write.values.length;
          const columns = write.values[0]?.length ?? 1;
          sheet.getRangeByIndexes(write.row, write.column, rows, columns).values = write.values.map((r) =>
            r.map(asPlainValue),
          ) as Excel.Range["values"];
          const address = cellAddress(write.row, write.column);
          if (marker === "note") {
            const existing = noteAt.get(address);
            if (existing && !existing.isNullObject) existing.content = appendNote(existing.content, write.note);
            else sheet.notes.add(address, write.note);
          } else if (marker === "comment" && comments) {
            const i = commentCells.findIndex((loc) => loc.rowIndex === write.row && loc.columnIndex === write.column);
            if (i >= 0) comments.items[i].replies.add(write.note);
            else sheet.comments.add(address, write.note);
          }
        }
        if (plan.writes.length > 0) await context.sync();

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
