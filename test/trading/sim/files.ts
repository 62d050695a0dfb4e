// The workbook file and this computer's journal: the open workbook, the file as last saved, Save or Don't Save, a row deleted from the saved file, and the journal that outlives them.
import { WORKBOOK_ID_PROPERTY } from "../../../src/trading/workbook";
import { MemoryWorkbook, columnLetters } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { LOG_COLUMNS, LOG_SHEET_NAME, LOG_TABLE_NAME } from "../../../src/trading/log/hedge-log";
import type { CellValue } from "../../../src/trading/cells";

export const KEY_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey");
export const NOTIONAL_COLUMN = LOG_COLUMNS.findIndex((c) => c.field === "notional");

export class Files {
  /** The Hedge Log as last saved (null: never saved). */
  saved: CellValue[][] | null = null;
  /** The workbook Excel has open. */
  open: MemoryWorkbook = openWorkbook(null);
  /** This computer's journal (per user, beside the key): it survives Don't Save. */
  readonly store = new MemoryIntentStore();
  /** Keys this computer's journal took in (the row was journalled: it must end in the log). */
  readonly journalled = new Set<string>();
  /** Counts changes of the open log (writes, edits, a reopen): the checker looks again when it moves. */
  logVersion = 0;
  /**
   * The first fault that edited the log's rows (a cell edited, a row deleted, rows lost to Don't Save), or null: until one
   * does, the log's hash chain must check clean; after, its findings are that fault's, as month end would show them.
   */
  logTampered: string | null = null;

  save(): void {
    this.saved = snapshotLog(this.open);
  }

  /** Excel opens the file again (as last saved). */
  reopen(): void {
    this.logVersion++;
    this.open = openWorkbook(this.saved);
  }

  /** The user deletes one data row of the saved log; returns its key. */
  deleteSavedRow(row: number): string {
    const grid = this.saved!;
    const key = String(grid[row][KEY_COLUMN]);
    this.saved = [...grid.slice(0, row), ...grid.slice(row + 1)];
    return key;
  }
}

function snapshotLog(wb: MemoryWorkbook): CellValue[][] | null {
  return wb.sheetNames().includes(LOG_SHEET_NAME) && wb.tableNames().includes(LOG_TABLE_NAME) ? wb.cells(LOG_SHEET_NAME) : null;
}

/** The workbook's id, saved in the file before the run began (an id lost with unsaved changes is journal.test.ts's case). */
export const SIM_WORKBOOK_ID = "wb-sim";

/** The workbook as Excel opens it from the file: the saved Hedge Log table (if any), and its id. */
function openWorkbook(grid: CellValue[][] | null): MemoryWorkbook {
  const wb = new MemoryWorkbook({
    sheets: { Exposures: [["Market"]] },
    customProperties: { [WORKBOOK_ID_PROPERTY]: SIM_WORKBOOK_ID },
    name: "Sim.xlsx",
  });
  if (!grid) return wb;
  const rows = grid.filter((r, i) => i === 0 || r.some((v) => v !== "" && v !== null));
  wb.setSheet(LOG_SHEET_NAME, rows);
  wb.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, `A1:${columnLetters(LOG_COLUMNS.length - 1)}${rows.length}`);
  return wb;
}
