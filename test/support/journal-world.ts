// The journal suites' world: this account's rows at a fixed time, a saved workbook holding a Hedge Log, and a journal on it with this computer's store.
import { MemoryWorkbook, columnLetters } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { Journal } from "../../src/trading/journal";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import { intentScope } from "../../src/trading/intent-store";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import type { CellValue } from "../../src/trading/cells";
import type { Action } from "../../src/trading/types";
import { WORKBOOK_ID_PROPERTY } from "../../src/trading/workbook";

/** Waits (real time, up to 2 s) until `ready` holds. */
export async function until(ready: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 2_000; !(await ready());) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const ACCOUNT = "0x00000000000000000000000000000000000000aa";
export const SCOPE = intentScope("sandbox", ACCOUNT);
export const NOW = new Date("2026-11-23T12:00:00.000Z");
export const LOGGED = "2026-11-23T09:00:00.000Z";
export const at = (minutes: number) => new Date(Date.parse(LOGGED) + minutes * 60_000).toISOString();
export const col = (field: string) => LOG_COLUMNS.findIndex((c) => c.field === field);

/** A row of this account (an Open of 50,000 USD by default), journalled at LOGGED + `minutes` (the order rows are appended in). */
export function intent(key: string, minutes = 0, action: Action = "open", notional = 50_000): Intent {
  const i = intentFromRow(
    {
      rowNumber: 2,
      action,
      market: "USDTNGN",
      side: "buy",
      notional,
      tenor: action === "open" ? 7 : null,
      clientReference: `D-${key}`,
    },
    key,
    "sandbox",
    at(minutes),
    ACCOUNT,
  );
  i.keyId = "k-key";
  return i;
}

export const journalOf = (workbook: MemoryWorkbook, store: MemoryIntentStore | null = null, onError?: (e: Error) => void) =>
  new Journal(workbook, { ...(store ? { store, scope: SCOPE } : {}), now: () => NOW, flushDelayMs: 60_000, onError });

/** This test file's workbook: its id as saved in the file (see WorkbookIdentity). */
export const THIS_WORKBOOK = "wb-this";

/** A workbook holding `log` (the Hedge Log's cells, header first) as a table: the file as it was last saved, with its id. */
export function saved(log: CellValue[][], id = THIS_WORKBOOK, name = "Hedges.xlsx"): MemoryWorkbook {
  const wb = new MemoryWorkbook({
    sheets: { [LOG_SHEET_NAME]: log.map((r) => [...r]) },
    customProperties: { [WORKBOOK_ID_PROPERTY]: id },
    name,
  });
  return wb.addTable("HedgeLog", LOG_SHEET_NAME, `A1:${columnLetters(LOG_COLUMNS.length - 1)}${log.length}`);
}

export const keysOf = (rows: Array<{ idempotencyKey: string }>) => rows.map((r) => r.idempotencyKey);
