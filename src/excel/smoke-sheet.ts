// The smoke run's sheet inside Excel (test builds only, npm run test:excel): a fresh "Hedge Smoke" sheet where it writes a trade row and HEDGE.* formulas, reads what Excel shows, and closes the workbook without saving at the end.
import type { CellValue } from "../trading/cells";

type Runner = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

export const SMOKE_SHEET = "Hedge Smoke";

/** The smoke sheet through Office.js; `run` is Excel.run. */
export function officeSmokeSheet(run: Runner = (batch) => Excel.run(batch)) {
  const sheetOf = (context: Excel.RequestContext) => context.workbook.worksheets.getItem(SMOKE_SHEET);
  return {
    /** Adds the sheet (replacing one left by an earlier run) and makes it the active one: Snapshot to values acts on it. */
    async prepare(): Promise<void> {
      await run(async (context) => {
        const old = context.workbook.worksheets.getItemOrNullObject(SMOKE_SHEET);
        await context.sync();
        if (!old.isNullObject) old.delete();
        context.workbook.worksheets.add(SMOKE_SHEET).activate();
        await context.sync();
      });
    },
    /** Writes rows at A1 and selects `select` (the rows to trade), as the analyst would. */
    async writeRows(rows: CellValue[][], select: string): Promise<void> {
      await run(async (context) => {
        const sheet = sheetOf(context);
        const width = rows[0].length;
        const range = sheet.getRangeByIndexes(0, 0, rows.length, width);
        // Text cells as text (the client reference), numbers as numbers.
        range.numberFormat = rows.map((r) => r.map((v) => (typeof v === "string" ? "@" : "General")));
        range.values = rows.map((r) => r.map((v) => v ?? ""));
        sheet.getRange(select).select();
        await context.sync();
      });
    },
    async enter(address: string, formula: string): Promise<void> {
      await run(async (context) => {
        sheetOf(context).getRange(address).formulas = [[formula]];
        await context.sync();
      });
    },
    /** What the cell shows: its whole spill when it spills (ExcelApi 1.12), else the cell. */
    async shown(address: string): Promise<CellValue[][]> {
      return run(async (context) => {
        const cell = sheetOf(context).getRange(address);
        const spill = Office.context.requirements.isSetSupported("ExcelApi", "1.12") ? cell.getSpillingToRangeOrNullObject() : null;
        cell.load("values");
        spill?.load("values");
        await context.sync();
        return (spill && !spill.isNullObject ? spill.values : cell.values) as CellValue[][];
      });
    },
    /** The formulas left on the sheet (after Snapshot to values: none of the HEDGE.* ones). */
    async formulas(): Promise<string[]> {
      return run(async (context) => {
        const used = sheetOf(context).getUsedRange(true);
        used.load("formulas");
        await context.sync();
        return (used.formulas as unknown[][]).flat().filter((f): f is string => typeof f === "string" && f.startsWith("="));
      });
    },
    /** Closes the workbook without saving (ExcelApi 1.11), as Microsoft's sample does at the end of its run. */
    async close(): Promise<void> {
      await run(async (context) => {
        context.workbook.close(Excel.CloseBehavior.skipSave);
        await context.sync();
      });
    },
  };
}
