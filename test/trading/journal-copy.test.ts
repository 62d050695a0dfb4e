// A copy of a workbook (its HedgeWorkbookId under another file name): opening it writes nothing of the other file's rows until the user says, and the answer is remembered.
import { MemoryWorkbook, columnLetters } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { Journal } from "../../src/trading/journal";
import { intentFromRow, type Intent } from "../../src/trading/intent";
import { intentScope } from "../../src/trading/intent-store";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import { WORKBOOK_ID_PROPERTY } from "../../src/trading/workbook";
import type { HedgingClient } from "../../src/api/client";
import type { CellValue } from "../../src/trading/cells";
import { useDeskWorlds, world } from "../support/desk-world";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const SCOPE = intentScope("sandbox", ACCOUNT);
const NOW = new Date("2026-11-23T12:00:00.000Z");
const ID = "wb-shared";
const HEADERS = [LOG_COLUMNS.map((c) => c.header)];

function intent(key: string, minutes: number, notional: number, reference: string): Intent {
  const at = new Date(Date.parse("2026-11-23T09:00:00.000Z") + minutes * 60_000).toISOString();
  const i = intentFromRow(
    { rowNumber: 2, action: "open", market: "USDTNGN", side: "buy", notional, tenor: 7, clientReference: reference },
    key,
    "sandbox",
    at,
    ACCOUNT,
  );
  i.keyId = "k-key";
  return i;
}

const journalOf = (workbook: MemoryWorkbook, store: MemoryIntentStore) =>
  new Journal(workbook, { store, scope: SCOPE, now: () => NOW, flushDelayMs: 60_000 });

/** A file holding `log` as its Hedge Log table, with the shared workbook id (a copy keeps it) and its own name. */
function file(name: string, log: CellValue[][] = HEADERS): MemoryWorkbook {
  const wb = new MemoryWorkbook({
    sheets: { [LOG_SHEET_NAME]: log.map((r) => [...r]) },
    customProperties: { [WORKBOOK_ID_PROPERTY]: ID },
    name,
  });
  return wb.addTable("HedgeLog", LOG_SHEET_NAME, `A1:${columnLetters(LOG_COLUMNS.length - 1)}${log.length}`);
}

const keysOf = (rows: Array<{ idempotencyKey: string }>) => rows.map((r) => r.idempotencyKey);

/** "Hedges.xlsx", saved empty then copied (Save As "Hedges copy.xlsx"), journals a final row and an unfinished confidential one. */
async function original(store: MemoryIntentStore) {
  const wb = file("Hedges.xlsx");
  const j = journalOf(wb, store);
  await j.load();
  const done = intent("o-done", 0, 50_000, "D-1");
  await j.append([done]);
  j.update(done, { status: "submitted", hedgeId: "h-1" });
  j.update(done, { status: "filled", struckRate: 1500 });
  await j.flush();
  // The file as saved here (then closed without saving after the next row).
  const savedAfterDone = wb.cells(LOG_SHEET_NAME).map((r) => [...r]);
  const secret = intent("o-open", 1, 4_250_000, "PROJECT-NIGHTINGALE");
  await j.append([secret]);
  j.update(secret, { sentAt: NOW.toISOString() });
  await j.flush();
  return { wb, secret, savedAfterDone };
}

useDeskWorlds();

/** A file carrying the shared workbook id under `name` (null: never saved) whose Hedge Log holds none of the rows this computer wrote into it. */
function stranger(name: string | null): MemoryWorkbook {
  const wb = new MemoryWorkbook({
    sheets: { [LOG_SHEET_NAME]: HEADERS.map((r) => [...r]) },
    customProperties: { [WORKBOOK_ID_PROPERTY]: ID },
    name: name ?? undefined,
  });
  return wb.addTable("HedgeLog", LOG_SHEET_NAME, `A1:${columnLetters(LOG_COLUMNS.length - 1)}1`);
}

describe("a file carrying the workbook id under the same name, or never saved, whose Hedge Log holds none of this computer's rows of it (issue 40 item 5)", () => {
  it.each([
    ["the same name", "Hedges.xlsx"],
    ["never saved", null],
  ])("%s: nothing of the workbook's rows is written into it; they are asked about", async (_how, name) => {
    const store = new MemoryIntentStore();
    const { secret } = await original(store);
    const copy = stranger(name);
    const j = journalOf(copy, store);
    const report = await j.load();
    await j.flush();
    expect(report.restored).toEqual([]);
    expect((await copy.readLog()).length).toBe(0);
    const cells = JSON.stringify(copy.cells(LOG_SHEET_NAME));
    for (const fact of [secret.clientReference, String(secret.notional), ACCOUNT]) expect(cells).not.toContain(fact);
    expect(j.copiedRows().map((i) => [i.idempotencyKey, i.workbookName])).toEqual([
      ["o-done", "Hedges.xlsx"],
      ["o-open", "Hedges.xlsx"],
    ]);
    // On the user's word that they belong here, they are written.
    expect(keysOf(await j.restore(["o-open"]))).toEqual(["o-open"]);
    expect((await copy.readLog()).map((r) => [r.idempotencyKey, r.notional])).toEqual([["o-open", 4_250_000]]);
  });

  it("the original reopened as last saved, holding a row this computer wrote, gets its unfinished row back without a question", async () => {
    const store = new MemoryIntentStore();
    const { savedAfterDone } = await original(store);
    const reopened = file("Hedges.xlsx", savedAfterDone);
    const j = journalOf(reopened, store);
    const report = await j.load();
    expect(keysOf(report.restored)).toEqual(["o-open"]);
    expect(j.copiedRows()).toEqual([]);
  });

  it("a file holding only the row an unfinished row was appended after (its anchor) is that workbook too", async () => {
    const store = new MemoryIntentStore();
    const { savedAfterDone } = await original(store);
    // o-done was pruned from this computer's journal: only o-open's anchor ties the log to it.
    await store.remove(SCOPE, ["o-done"]);
    const j = journalOf(file("Hedges.xlsx", savedAfterDone), store);
    expect(keysOf((await j.load()).restored)).toEqual(["o-open"]);
  });
});

describe("a copied workbook id under another file name", () => {
  it("opening the copy writes none of the original's rows into it and lists them for the user's word, naming both files", async () => {
    const store = new MemoryIntentStore();
    const { secret } = await original(store);
    const copy = file("Hedges copy.xlsx");
    const j = journalOf(copy, store);
    const report = await j.load();
    await j.flush();
    expect(report.restored).toEqual([]);
    expect(report.orphans).toEqual([]);
    expect((await copy.readLog()).length).toBe(0);
    expect(JSON.stringify(copy.cells(LOG_SHEET_NAME))).not.toContain(secret.clientReference);
    expect(j.copiedRows().map((i) => [i.idempotencyKey, i.workbookName])).toEqual([
      ["o-done", "Hedges.xlsx"],
      ["o-open", "Hedges.xlsx"],
    ]);
    // The desk's plan carries the question's facts: this file's name and the other's.
    const client = { environment: "sandbox", keyId: "k-key" } as unknown as HedgingClient;
    const desk = await world({ client, workbook: copy, intentStore: store, account: ACCOUNT, now: () => NOW }).desk();
    const plan = await desk.inspect();
    expect(plan.copied?.fileName).toBe("Hedges copy.xlsx");
    expect(plan.copied?.rows.map((c) => [c.row.idempotencyKey, c.workbookName])).toEqual([
      ["o-done", "Hedges.xlsx"],
      ["o-open", "Hedges.xlsx"],
    ]);
    expect(plan.items).toEqual([]);
    desk.stop();
  });

  it("the original, reopened as last saved, still gets its own rows back without a question (its unfinished row and the row it follows)", async () => {
    const store = new MemoryIntentStore();
    const { savedAfterDone } = await original(store);
    await journalOf(file("Hedges copy.xlsx"), store).load();
    const reopened = file("Hedges.xlsx", savedAfterDone);
    const j = journalOf(reopened, store);
    const report = await j.load();
    expect(keysOf(report.restored)).toEqual(["o-open"]);
    expect(j.copiedRows()).toEqual([]);
    // Saved before its first row, it cannot be told from a copy of that moment (issue 40): it asks.
    const empty = journalOf(file("Hedges.xlsx"), store);
    expect((await empty.load()).restored).toEqual([]);
    expect(keysOf(empty.copiedRows())).toEqual(["o-done", "o-open"]);
  });

  it("no: the rows are not listed in the copy again, while a third copy under another name still asks", async () => {
    const store = new MemoryIntentStore();
    const { savedAfterDone } = await original(store);
    const copy = file("Hedges copy.xlsx");
    const j = journalOf(copy, store);
    await j.load();
    expect(keysOf(await j.dismiss(["o-done", "o-open"]))).toEqual(["o-done", "o-open"]);
    const again = journalOf(file("Hedges copy.xlsx"), store);
    const report = await again.load();
    expect(report.restored).toEqual([]);
    expect(again.copiedRows()).toEqual([]);
    const third = journalOf(file("Hedges 2027.xlsx"), store);
    await third.load();
    expect(keysOf(third.copiedRows())).toEqual(["o-done", "o-open"]);
    // The original is not a copy of itself: it still restores its rows.
    expect(keysOf((await journalOf(file("Hedges.xlsx", savedAfterDone), store).load()).restored)).toEqual(["o-open"]);
  });

  it("yes: the rows are written into the copy's Hedge Log, and opening the copy again asks nothing more", async () => {
    const store = new MemoryIntentStore();
    await original(store);
    const copy = file("Hedges copy.xlsx");
    const j = journalOf(copy, store);
    await j.load();
    expect(keysOf(await j.restore(["o-done", "o-open"]))).toEqual(["o-done", "o-open"]);
    expect((await copy.readLog()).map((r) => [r.idempotencyKey, r.notional])).toEqual([
      ["o-done", 50_000],
      ["o-open", 4_250_000],
    ]);
    const again = journalOf(copy, store);
    const report = await again.load();
    expect(report.restored).toEqual([]);
    expect(again.copiedRows()).toEqual([]);
    expect((await copy.readLog()).length).toBe(2);
  });
});
