// Harness mode (outside Excel, ?harness=memory): memory settings, an in-memory workbook seeded with an exposure sheet, and window.hedgeHarness for tests.
import type { CellValue } from "../trading/cells";
import type { LogRecord } from "../trading/log/hedge-log";
import { MemoryWorkbook } from "../excel/memory-workbook";
import { memoryStore } from "../excel/settings";
import { MemoryIntentStore } from "../excel/intent-store";
import { decodeStoredIntent, type StoredIntent } from "../trading/intent-store";

export const HARNESS_SHEET = "Exposures";

/** A small exposure sheet: a header row, good rows for both sides, a bad row and a blank row. */
export const HARNESS_ROWS: CellValue[][] = [
  ["Market", "Side", "Notional USD", "Tenor", "Client reference"],
  ["USDTNGN", "buy", 250000, 7, "DEAL-1001"],
  ["USDTNGN", "sell", 100000, 3, "DEAL-1002"],
  ["USDTNGN", "buy", 50000, 7, "DEAL-1003"],
  ["USDTNGN", "buy", 75000, 5, "DEAL-1004"],
  [null, null, null, null, null],
  ["USDTNGN", "long", 20000, 1, ""],
];

/** Whether this page should run the harness: not inside Office, and asked for by the URL. */
export function wantsHarness(search: string, officeHost: string | null | undefined): boolean {
  return !officeHost && new URLSearchParams(search).get("harness") === "memory";
}

export interface HedgeHarness {
  /** Selects cells; several areas (a Ctrl-click selection) are separated by commas: "A2:E3,A6:E6". */
  select(address: string, sheet?: string): void;
  /** Hides rows (1-based, "5" or "5:7") as the user would; hidden = false shows them again. */
  hideRows(rows: string, sheet?: string, hidden?: boolean): void;
  setSheet(name: string, grid: CellValue[][]): void;
  addTable(name: string, sheet: string, address: string): void;
  cells(sheet: string): CellValue[][];
  /** Each cell's number format as the memory workbook keeps it ("@" is text, "General" when none), in the shape of `cells(sheet)`. */
  formats(sheet: string): string[][];
  /** Each cell's formula, or null: a string Excel would have read as a formula shows here, so a test can tell text from formula. */
  formulas(sheet: string): Array<Array<string | null>>;
  /** Every cell, table, document setting and custom property, as a saved .xlsx would hold them. */
  everything(): Array<{ where: string; value: string }>;
  /** The memory settings store's entries (the key's own entry included). */
  settings(): Record<string, string>;
  documentSettings(): Record<string, string>;
  logRows(): Promise<LogRecord[]>;
  /** Appends rows to the Hedge Log, as an earlier session that stopped mid-batch would have left them. */
  appendLog(records: LogRecord[]): Promise<void>;
  /** This computer's journal of intents (what OfficeRuntime.storage would hold). */
  journal(): StoredIntent[];
  /** Puts entries in this computer's journal, as an earlier session would have left them (`scope`: "sandbox:0x…"). */
  putJournal(scope: string, entries: StoredIntent[]): Promise<void>;
}

declare global {
  interface Window {
    hedgeHarness?: HedgeHarness;
  }
}

export function createHarness(): {
  workbook: MemoryWorkbook;
  store: ReturnType<typeof memoryStore>;
  intentStore: MemoryIntentStore;
  api: HedgeHarness;
} {
  const workbook = new MemoryWorkbook({ sheets: { [HARNESS_SHEET]: HARNESS_ROWS } });
  workbook.select(HARNESS_SHEET, "A2:E3");
  const store = memoryStore();
  const intentStore = new MemoryIntentStore();
  const api: HedgeHarness = {
    select: (address, sheet = HARNESS_SHEET) => void workbook.select(sheet, address),
    hideRows: (rows, sheet = HARNESS_SHEET, hidden = true) => void workbook.hideRows(sheet, rows, hidden),
    setSheet: (name, grid) => void workbook.setSheet(name, grid),
    addTable: (name, sheet, address) => void workbook.addTable(name, sheet, address),
    cells: (sheet) => workbook.cells(sheet),
    formats: (sheet) => workbook.formats(sheet),
    formulas: (sheet) => workbook.formulas(sheet),
    everything: () => workbook.everything(),
    settings: () => store.dump(),
    documentSettings: () => Object.fromEntries(workbook.documentSettings),
    logRows: () => workbook.readLog(),
    appendLog: (records) => workbook.appendLog(records),
    journal: () => [...intentStore.items.values()].map(decodeStoredIntent).filter((e): e is StoredIntent => e !== null),
    putJournal: (scope, entries) => intentStore.put(scope, entries),
  };
  return { workbook, store, intentStore, api };
}
