// The journal over an in-memory workbook and per-user store: what opening a workbook brings back (rows the log lost, rows another workbook holds, rows edited in the log), and what happens when a write fails.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { Journal } from "../../src/trading/journal";
import { byLoggedAt, utcDayStart } from "../../src/trading/log/hedge-log";
import { intentToLogRecord, type Intent } from "../../src/trading/intent";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import { logCells, logRow } from "../support/builders";
import { WORKBOOK_ID_PROPERTY } from "../../src/trading/workbook";
import { ACCOUNT, LOGGED, NOW, SCOPE, THIS_WORKBOOK, at, col, intent, journalOf, keysOf, saved, until } from "../support/journal-world";
import type { CellValue } from "../../src/trading/cells";

/** An empty log as last saved, a journal on it with this computer's store, loaded, and one row appended. */
async function emptySavedLogWith(key: string) {
  const store = new MemoryIntentStore();
  const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
  const j1 = journalOf(wb, store);
  await j1.load();
  const a = intent(key);
  await j1.append([a]);
  return { store, wb, j1, a };
}

async function filled(journal: Journal, i: Intent) {
  journal.update(i, { status: "submitted", hedgeId: `h-${i.idempotencyKey}` });
  journal.update(i, { status: "filled", struckRate: 1500 });
  await journal.flush();
}

describe("opening a workbook whose log lost rows (closed without saving, or rows deleted)", () => {
  it("an unfinished row the log lost comes back at its end from this computer's journal, marked restored; the log gets the newer state of the rows it kept", async () => {
    const { store, wb: first, j1, a } = await emptySavedLogWith("a");
    const savedLog = first.cells(LOG_SHEET_NAME); // saved here, with a still submitting
    const b = intent("b", 1);
    await j1.append([b]);
    j1.update(a, { status: "submitted", hedgeId: "h-a", sentAt: at(0) });
    await j1.flush();

    const reopened = saved(savedLog);
    const j2 = journalOf(reopened, store);
    const report = await j2.load();
    expect(keysOf(report.restored)).toEqual(["b"]);
    expect(report.orphans).toEqual([]);
    const log = await reopened.readLog();
    expect(log.map((r) => [r.idempotencyKey, r.status, r.hedgeId, r.sentAt])).toEqual([
      ["a", "submitted", "h-a", at(0)],
      ["b", "submitting", null, null],
    ]);
    const note =
      "Restored from this computer's journal: the row was missing from the Hedge Log (deleted, or the workbook was closed without saving).";
    expect(log[1].message).toBe(note);
    expect(j2.get("b")).toMatchObject({ status: "submitting", keyId: "k-key" });
    // Opening again restores nothing more, and the note is not repeated.
    const again = await journalOf(reopened, store).load();
    expect(again.restored).toEqual([]);
    expect((await reopened.readLog()).map((r) => r.idempotencyKey)).toEqual(["a", "b"]);
    // Lost a second time (the same unsaved file opened again), with a message of its own by then: one note, then the message.
    const j3 = journalOf(reopened, store);
    await j3.load();
    j3.update(j3.get("b")!, { message: `${note} Not confirmed yet (network_error).` });
    await j3.flush();
    const lostAgain = saved(savedLog);
    await journalOf(lostAgain, store).load();
    expect((await lostAgain.readLog()).map((r) => r.message)).toEqual([null, `${note} Not confirmed yet (network_error).`]);
  });

  it("final rows appended after a row the log holds come back in order (the workbook was closed without saving)", async () => {
    const { store, wb, j1, a } = await emptySavedLogWith("a");
    await filled(j1, a);
    const savedLog = wb.cells(LOG_SHEET_NAME);
    const b = intent("b", 1);
    const c = intent("c", 2);
    await j1.append([b]);
    await j1.append([c]);
    await filled(j1, b);
    await filled(j1, c);

    const reopened = saved(savedLog);
    const report = await journalOf(reopened, store).load();
    expect(keysOf(report.restored)).toEqual(["b", "c"]);
    expect(report.orphans).toEqual([]);
    expect((await reopened.readLog()).map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["a", "filled"],
      ["b", "filled"],
      ["c", "filled"],
    ]);
  });

  it("a row appended in a later session, after the rows that session read, comes back too (closed without saving)", async () => {
    const { store, wb, j1, a } = await emptySavedLogWith("a");
    j1.update(a, { status: "submitted", hedgeId: "h-a" }); // unfinished: the next session reads it
    await j1.flush();
    const savedLog = wb.cells(LOG_SHEET_NAME);
    // The next day's session opens the saved file, appends and fills a row; Excel is then closed without saving.
    const j2 = journalOf(saved(savedLog), store);
    await j2.load();
    const b = intent("b", 1);
    await j2.append([b]);
    await filled(j2, b);

    const reopened = saved(savedLog);
    const report = await journalOf(reopened, store).load();
    expect(keysOf(report.restored)).toEqual(["b"]);
    expect(report.orphans).toEqual([]);
    expect((await reopened.readLog()).map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["a", "submitted"],
      ["b", "filled"],
    ]);
  });

  it("rows the log lost come back in the order they were logged, whatever order this computer's journal lists them in", async () => {
    // The log holds a row this computer wrote into it (the rows were appended after it).
    const { store, wb: first } = await emptySavedLogWith("held");
    const [a, b, c] = [intent("a", 0, "add"), intent("b", 0, "add"), intent("c", 1, "add")]; // a and b went in one send
    const entry = (i: Intent) => ({
      record: intentToLogRecord(i),
      keyId: i.keyId,
      anchor: "held",
      finalAt: null,
      workbookId: THIS_WORKBOOK,
    });
    await store.put(SCOPE, [c, a, b].map(entry)); // e.g. listed by key, not by time
    const wb = saved(first.cells(LOG_SHEET_NAME));
    const report = await journalOf(wb, store).load();
    expect(keysOf(report.restored)).toEqual(["a", "b", "c"]);
    expect(keysOf(await wb.readLog())).toEqual(["held", "a", "b", "c"]);
  });

  it("another workbook's rows final for over a week are pruned on opening: they leave the duplicate check, the recent ones stay", async () => {
    const store = new MemoryIntentStore();
    const final = (i: Intent, finalAt: string) => ({
      record: { ...intentToLogRecord(i), status: "filled" },
      keyId: i.keyId,
      anchor: "another-workbooks-row",
      finalAt,
    });
    const week = 7 * 86_400_000;
    await store.put(SCOPE, [
      final(intent("old", -9 * 24 * 60), new Date(NOW.getTime() - week - 60_000).toISOString()),
      final(intent("recent", -60), new Date(NOW.getTime() - 3_600_000).toISOString()),
    ]);
    const j = journalOf(saved([LOG_COLUMNS.map((c) => c.header)]), store);
    const report = await j.load();
    expect(keysOf(report.orphans)).toEqual(["recent"]);
    expect(keysOf(j.records())).toEqual(["recent"]);
    expect(keysOf((await store.load(SCOPE)).map((e) => e.record))).toEqual(["recent"]);
  });

  it("restore() adds the rows asked for in the order they were logged; asked for none it knows, it writes nothing", async () => {
    const store = new MemoryIntentStore();
    const final = (i: Intent) => ({
      record: { ...intentToLogRecord(i), status: "filled" },
      keyId: i.keyId,
      anchor: null,
      finalAt: NOW.toISOString(),
    });
    await store.put(SCOPE, [final(intent("later", 5)), final(intent("earlier", 1)), final(intent("not-asked", 3))]);
    const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
    const j = journalOf(wb, store);
    await j.load();
    const calls = wb.calls;
    expect(await j.restore(["nope"])).toEqual([]);
    expect(wb.calls).toBe(calls);
    expect(keysOf(await j.restore(["later", "earlier"]))).toEqual(["earlier", "later"]);
    expect(keysOf(await wb.readLog())).toEqual(["earlier", "later"]);
    expect(keysOf(j.orphaned())).toEqual(["not-asked"]);
  });

  it("saved empty, then closed without saving: it cannot be told from a copy (issue 40), so its rows are asked about; on the user's word they come back in order", async () => {
    const store = new MemoryIntentStore();
    const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
    const savedLog = wb.cells(LOG_SHEET_NAME); // saved empty
    const j1 = journalOf(wb, store);
    await j1.load();
    const a = intent("a");
    const b = intent("b", 1);
    await j1.append([a]);
    await filled(j1, a);
    await j1.append([b]);
    const reopened = saved(savedLog);
    const j2 = journalOf(reopened, store);
    const report = await j2.load();
    expect(report.restored).toEqual([]);
    expect(await reopened.readLog()).toEqual([]);
    expect(keysOf(j2.copiedRows())).toEqual(["a", "b"]);
    expect(keysOf(await j2.restore(["b", "a"]))).toEqual(["a", "b"]);
    expect((await reopened.readLog()).map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["a", "filled"],
      ["b", "submitting"],
    ]);
  });

  it("a final row the user deleted from the log is not written back unasked: it is listed as missing, for the user to restore", async () => {
    const store = new MemoryIntentStore();
    const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
    const j1 = journalOf(wb, store);
    await j1.load();
    const a = intent("a");
    const b = intent("b", 1);
    await j1.append([a]);
    await j1.append([b]);
    await filled(j1, a);
    await filled(j1, b);
    const cells = wb.cells(LOG_SHEET_NAME);
    const reopened = saved([cells[0], cells[2]]);
    const report = await journalOf(reopened, store).load();
    expect(report.restored).toEqual([]);
    expect(keysOf(report.orphans)).toEqual(["a"]);
    expect(keysOf(await reopened.readLog())).toEqual(["b"]);
  });

  it("rows journalled before workbook ids were kept (no id): final or unfinished, they are written back only when tied to this log, else listed for the user's word", async () => {
    const store = new MemoryIntentStore();
    const legacy = (i: Intent, status: string) => ({
      record: { ...intentToLogRecord(i), status },
      keyId: i.keyId,
      anchor: null,
      finalAt: null,
    });
    await store.put(SCOPE, [legacy(intent("a"), "filled"), legacy(intent("b", 1), "submitting"), legacy(intent("c", 2), "filled")]);
    const mine = saved([LOG_COLUMNS.map((c) => c.header)]);
    const j2 = journalOf(mine, store);
    const report = await j2.load();
    expect(report.restored).toEqual([]);
    expect(keysOf(report.orphans)).toEqual(["a", "b", "c"]);
    expect(report.otherWorkbooks).toEqual([]);
    expect(await mine.readLog()).toEqual([]);
    expect(keysOf(j2.records())).toEqual(["a", "b", "c"]);
    // The user says two of them are this workbook's: they are added in the order they were logged, and are this workbook's from then on.
    const back = await j2.restore(["c", "a", "unknown"]);
    expect(keysOf(back)).toEqual(["a", "c"]);
    expect(keysOf(await mine.readLog())).toEqual(["a", "c"]);
    expect(keysOf(j2.orphaned())).toEqual(["b"]);
    expect(keysOf(j2.records())).toEqual(["b", "a", "c"]);
    expect(j2.get("a")).toMatchObject({ status: "filled" });
    await j2.flush();
    expect(
      (await store.load(SCOPE))
        .filter((e) => e.workbookId === THIS_WORKBOOK)
        .map((e) => e.record.idempotencyKey)
        .sort(),
    ).toEqual(["a", "c"]);
  });
});

describe("two workbooks on one computer: a row belongs to its workbook", () => {
  /** Workbook A's pane journals an unfinished 4.25 M Open with a confidential reference, then one final row. */
  async function workbookA(store: MemoryIntentStore) {
    const a = saved([LOG_COLUMNS.map((c) => c.header)], "wb-a", "Client A hedges.xlsx");
    const j = journalOf(a, store);
    await j.load();
    const done = intent("a-done");
    await j.append([done]);
    await filled(j, done);
    const secret = { ...intent("a-open", 1), notional: 4_250_000, clientReference: "PROJECT-NIGHTINGALE-ACQ" };
    const savedAfterDone = a.cells(LOG_SHEET_NAME);
    await j.append([secret]);
    j.update(secret, { sentAt: at(1) });
    await j.flush();
    return { savedAfterDone, secret };
  }

  it("opening workbook B never writes A's rows into it: no Hedge Log is made, and A's unfinished row is listed with A's name", async () => {
    const store = new MemoryIntentStore();
    const { secret } = await workbookA(store);
    const b = new MemoryWorkbook({ sheets: { Exposures: [["Market", "Side", "Notional"]] }, name: "Budget 2027.xlsx" });
    const j = journalOf(b, store);
    const report = await j.load();
    await j.flush();
    expect(report.restored).toEqual([]);
    expect(report.orphans).toEqual([]);
    expect(report.otherWorkbooks.map((i) => [i.idempotencyKey, i.workbookName, i.notional])).toEqual([
      ["a-open", "Client A hedges.xlsx", 4_250_000],
    ]);
    expect(b.sheetNames()).toEqual(["Exposures"]);
    expect(JSON.stringify(b.cells("Exposures"))).not.toContain(secret.clientReference);
    // A's final row still counts for B's duplicate check, but B cannot restore it (it is not B's).
    expect(keysOf(j.records())).toEqual(["a-done", "a-open"]);
    expect(await j.restore(["a-done", "a-open"])).toEqual([]);
    expect(b.sheetNames()).toEqual(["Exposures"]);
  });

  it("dismissed in B, A's row is not listed in B again, and A, reopened as last saved, still gets it back", async () => {
    const store = new MemoryIntentStore();
    const { savedAfterDone } = await workbookA(store);
    const b = new MemoryWorkbook({ name: "Budget 2027.xlsx" });
    const jb = journalOf(b, store);
    await jb.load();
    expect(keysOf(await jb.dismiss(["a-open", "not-listed"]))).toEqual(["a-open"]);
    expect(jb.otherWorkbookRows()).toEqual([]);
    expect((await journalOf(b, store).load()).otherWorkbooks).toEqual([]);
    // A third workbook still lists it: a dismissal is per workbook.
    expect(keysOf((await journalOf(new MemoryWorkbook(), store).load()).otherWorkbooks)).toEqual(["a-open"]);
    // Workbook A, closed without saving, reopens as saved after its first row: its unfinished row comes back.
    const reopened = saved(savedAfterDone, "wb-a", "Client A hedges.xlsx");
    const report = await journalOf(reopened, store).load();
    expect(keysOf(report.restored)).toEqual(["a-open"]);
    expect((await reopened.readLog()).map((r) => [r.idempotencyKey, r.notional])).toEqual([
      ["a-done", 50_000],
      ["a-open", 4_250_000],
    ]);
  });

  it("a file of the same name that got its id only now (its id was lost with unsaved changes) is offered A's rows on the user's word, never unasked", async () => {
    const store = new MemoryIntentStore();
    await workbookA(store);
    const sameName = new MemoryWorkbook({ name: "Client A hedges.xlsx" });
    const j = journalOf(sameName, store);
    const report = await j.load();
    expect(report.restored).toEqual([]);
    expect(keysOf(report.orphans)).toEqual(["a-done", "a-open"]);
    expect(report.otherWorkbooks).toEqual([]);
    expect(sameName.sheetNames()).toEqual([]);
    expect(keysOf(await j.restore(["a-open"]))).toEqual(["a-open"]);
    expect(keysOf(await sameName.readLog())).toEqual(["a-open"]);
    // Once this file's id is saved, the same name alone offers nothing: another file of that name lists A's rows as A's.
    const laterSession = new MemoryWorkbook({ name: "Client A hedges.xlsx", customProperties: { [WORKBOOK_ID_PROPERTY]: "wb-other" } });
    const later = await journalOf(laterSession, store).load();
    expect(later.orphans).toEqual([]);
  });
});

describe("reading the log again while rows are being appended (Check again during Send)", () => {
  it("a row is in the log once, and its later states reach that row: the reading waits for the append", async () => {
    const store = new MemoryIntentStore();
    const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
    const j = journalOf(wb, store);
    await j.load();
    // The log write is slow: this computer's journal holds the row before the log does.
    const appendLog = wb.appendLog.bind(wb);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    wb.appendLog = async (records) => {
      await held;
      return appendLog(records);
    };
    const a = intent("a");
    const appending = j.append([a]);
    await until(async () => (await store.load(SCOPE)).length === 1);
    const reading = j.load(); // the desk does not track the row yet: the append has not resolved
    release();
    await Promise.all([appending, reading]);
    j.adopt(a); // as the desk does after reading again
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    expect((await wb.readLog()).map((r) => [r.idempotencyKey, r.status, r.hedgeId])).toEqual([["a", "submitted", "h-a"]]);
  });
});

describe("changes queued when the journal reads its rows again", () => {
  it("a row it no longer holds after the reading is not written to this computer's journal", async () => {
    const store = new MemoryIntentStore();
    const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
    const j = journalOf(wb, store); // writes wait 60 s: nothing is flushed before the reading
    await j.load();
    const kept = intent("kept");
    await j.append([kept]);
    // A row taken into memory that neither the log nor this computer's journal holds (the desk let go of it).
    const gone = intent("gone", 1);
    j.adopt(gone);
    j.update(gone, { message: "Noted while the log was read again." });
    j.update(kept, { message: "Sent; noted while the log was read again." });
    await j.load(); // not this session's rows any more (no live rows): both are read from the log and the store
    expect(j.get("gone")).toBeUndefined();
    await j.flush();
    const entries = await store.load(SCOPE);
    expect(entries.map((e) => e.record.idempotencyKey)).toEqual(["kept"]);
  });
});

describe("opening a workbook whose log differs from this computer's journal", () => {
  async function journalledAndLogged(i: Intent) {
    const store = new MemoryIntentStore();
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, store);
    await j.load();
    await j.append([i]);
    return { store, wb, j };
  }
  const edit = (wb: MemoryWorkbook, field: string, value: CellValue) => {
    const cells = wb.cells(LOG_SHEET_NAME);
    cells[1][col(field)] = value;
    wb.setSheet(LOG_SHEET_NAME, cells);
  };

  it("a log that agrees with this computer's journal is only read on opening: nothing is written back (Excel would ask to save a workbook nobody changed)", async () => {
    const a = intent("a");
    const b = intent("b", 1, "add");
    const { store, wb, j } = await journalledAndLogged(a);
    await j.append([b]);
    j.update(a, { sentAt: at(1) });
    j.update(a, { status: "submitted", hedgeId: "h-a", orderTxHash: "0xorder" });
    j.update(b, { sentAt: at(2) });
    await j.flush();
    const before = { calls: wb.calls, writes: store.writes, cells: wb.cells(LOG_SHEET_NAME) };
    const j2 = journalOf(wb, store);
    const report = await j2.load();
    expect(report).toEqual({ restored: [], orphans: [], edited: [], otherWorkbooks: [] });
    expect(j2.get("a")).toMatchObject({ status: "submitted", hedgeId: "h-a", sentAt: at(1) });
    expect(wb.cells(LOG_SHEET_NAME)).toEqual(before.cells);
    expect({ calls: wb.calls - before.calls, writes: store.writes - before.writes }).toEqual({ calls: 2, writes: 0 }); // the workbook's id (read, already there) and the log's read
  });

  it("a log row further on than the journal (written by another session) wins, and the journal takes it up", async () => {
    const a = intent("a");
    const { store, wb, j } = await journalledAndLogged(a);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    // Another session wrote the fill into the log only.
    await wb.updateLog([{ idempotencyKey: "a", status: "filled", struckRate: 1501, fillTxHash: "0xfill" }]);
    const j2 = journalOf(wb, store);
    await j2.load();
    expect(j2.get("a")).toMatchObject({ status: "filled", hedgeId: "h-a", struckRate: 1501, fillTxHash: "0xfill" });
    const [entry] = await store.load(SCOPE);
    expect(entry.record).toMatchObject({ status: "filled", struckRate: 1501 });
    expect(entry.finalAt).toBe(NOW.toISOString());
  });

  it("a log row further on but not final (another session's accepted order) wins too", async () => {
    const a = intent("a");
    const { store, wb } = await journalledAndLogged(a);
    await wb.updateLog([{ idempotencyKey: "a", status: "submitted", hedgeId: "h-a", message: "Submitted: waiting for the fill." }]);
    const j2 = journalOf(wb, store);
    await j2.load();
    expect(j2.get("a")).toMatchObject({ status: "submitted", hedgeId: "h-a", message: "Submitted: waiting for the fill." });
    await j2.flush();
    expect((await store.load(SCOPE))[0].record).toMatchObject({ status: "submitted", hedgeId: "h-a" });
  });

  it("a log row behind the journal (saved before the fill) is brought up to date from the journal", async () => {
    const a = intent("a");
    const { store, wb, j } = await journalledAndLogged(a);
    j.update(a, { sentAt: at(1) });
    j.update(a, { status: "submitted", hedgeId: "h-a", orderTxHash: "0xorder" });
    await j.flush();
    const savedLog = wb.cells(LOG_SHEET_NAME);
    j.update(a, { status: "filled", struckRate: 1502, filledAt: at(2) });
    await j.flush();
    const reopened = saved(savedLog);
    const j2 = journalOf(reopened, store);
    await j2.load();
    expect((await reopened.readLog())[0]).toMatchObject({
      status: "filled",
      hedgeId: "h-a",
      orderTxHash: "0xorder",
      struckRate: 1502,
      filledAt: at(2),
      sentAt: at(1),
    });
    expect(j2.unflushed()).toBe(0);
  });

  it("a row whose request was edited in the log keeps what was journalled (and sent), and says so in its message", async () => {
    const a = intent("a");
    const { store, wb } = await journalledAndLogged(a);
    edit(wb, "notional", 60_000);
    const j2 = journalOf(wb, store);
    const report = await j2.load();
    expect(report.edited).toEqual([{ intent: expect.objectContaining({ idempotencyKey: "a" }), fields: ["notional"] }]);
    expect(j2.get("a")!.notional).toBe(50_000);
    const note = "The Hedge Log row was edited (notional): the add-in keeps what it journalled and sent.";
    expect((await wb.readLog())[0].message).toBe(note);
    // Said once, however often the workbook is opened, and after this computer's journal took the message up.
    const j3 = journalOf(wb, store);
    await j3.load();
    expect((await wb.readLog())[0].message).toBe(note);
    j3.update(j3.get("a")!, { status: "submitted", message: `${note} Submitted.` });
    await j3.flush();
    await journalOf(wb, store).load();
    expect((await wb.readLog())[0].message).toBe(`${note} Submitted.`);
  });

  it("a final row edited in the log is reported but its message is left alone", async () => {
    const a = intent("a");
    const { store, wb, j } = await journalledAndLogged(a);
    await filled(j, a);
    edit(wb, "side", "sell");
    const report = await journalOf(wb, store).load();
    expect(report.edited.map((e) => e.fields)).toEqual([["side"]]);
    expect((await wb.readLog())[0].message).toBeNull();
  });

  it("a row the journal knows whose log row became unreadable (Market blanked) is still the journal's, with its state written back", async () => {
    const a = intent("a");
    const { store, wb, j } = await journalledAndLogged(a);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    edit(wb, "market", "");
    edit(wb, "status", "???");
    const j2 = journalOf(wb, store);
    const report = await j2.load();
    expect(report.edited).toEqual([{ intent: expect.objectContaining({ idempotencyKey: "a" }), fields: ["row"] }]);
    expect(j2.get("a")).toMatchObject({ market: "USDTNGN", status: "submitted", hedgeId: "h-a" });
    expect(j2.unusable()).toEqual([]);
    expect((await wb.readLog({ keys: ["a"] }))[0].status).toBe("submitted");
  });

  it("a journal entry without an account (an older version) takes the account the log row has", async () => {
    const a = intent("a");
    const { store, wb } = await journalledAndLogged(a);
    const [entry] = await store.load(SCOPE);
    await store.put(SCOPE, [{ ...entry, record: { ...entry.record, account: null } }]);
    const j2 = journalOf(wb, store);
    const report = await j2.load();
    expect(j2.get("a")!.account).toBe(ACCOUNT);
    expect(report.edited).toEqual([]);
  });

  it("the log and this computer's journal at the same stage: unfinished, the journal's state and account stand; final, the log's (another session's fill or decision)", async () => {
    const a = intent("a");
    const { store, wb, j } = await journalledAndLogged(a);
    j.update(a, { status: "submitted", hedgeId: "h-a", message: "Submitted: waiting for the fill." });
    await j.flush();
    edit(wb, "message", "edited by hand");
    edit(wb, "account", "0x00000000000000000000000000000000000000bb");
    const j2 = journalOf(wb, store);
    await j2.load();
    expect(j2.get("a")).toMatchObject({ status: "submitted", message: "Submitted: waiting for the fill.", account: ACCOUNT });
    await j2.flush();
    expect((await wb.readLog())[0].message).toBe("Submitted: waiting for the fill.");

    // Both final: the log's fill (written by another session) is the one kept, here and in this computer's journal.
    j2.update(j2.get("a")!, { status: "filled", struckRate: 1500 });
    await j2.flush();
    edit(wb, "struckRate", 1501.25);
    const j3 = journalOf(wb, store);
    await j3.load();
    expect(j3.get("a")).toMatchObject({ status: "filled", struckRate: 1501.25 });
    await j3.flush();
    expect((await store.load(SCOPE))[0].record).toMatchObject({ status: "filled", struckRate: 1501.25 });
  });

  it("what only one side knows is kept from that side: when it was sent, the notional before and the hedge from the journal; a decision from the log", async () => {
    // The journal knows when it was sent and the notional before; the log lost them (an old copy), and holds a decision the
    // journal has not seen (taken on another computer), with the hedge the row acted on.
    const a = intent("a", 0, "add");
    const { store, wb, j } = await journalledAndLogged(a);
    j.update(a, { sentAt: at(1), notionalBefore: 100_000 });
    j.update(a, { status: "submitted" });
    await j.flush();
    for (const [field, value] of [
      ["sentAt", ""],
      ["notionalBefore", ""],
      ["hedgeId", "h-a"],
      ["decision", "done: seen"],
      ["decidedAt", at(3)],
    ] as const)
      edit(wb, field, value);
    const j2 = journalOf(wb, store);
    await j2.load();
    expect(j2.get("a")).toMatchObject({ sentAt: at(1), notionalBefore: 100_000, hedgeId: "h-a", decision: "done: seen", decidedAt: at(3) });

    // And the other way round: the log's copy edited (a notional before typed over, the decision blanked), the journal's stand.
    const b = intent("b", 0, "add");
    const other = await journalledAndLogged(b);
    other.j.update(b, { sentAt: at(1), notionalBefore: 100_000, hedgeId: "h-b" });
    other.j.update(b, { status: "needs_decision" });
    other.j.update(b, { decision: "done: journal", decidedAt: at(2) });
    await other.j.flush();
    for (const [field, value] of [
      ["notionalBefore", 1],
      ["sentAt", at(9)],
      ["decision", ""],
      ["decidedAt", ""],
    ] as const)
      edit(other.wb, field, value);
    const j3 = journalOf(other.wb, other.store);
    await j3.load();
    expect(j3.get("b")).toMatchObject({
      sentAt: at(1),
      notionalBefore: 100_000,
      hedgeId: "h-b",
      decision: "done: journal",
      decidedAt: at(2),
    });
  });

  it("a row copied by hand (the same key twice) is the journal's once: the copy is listed, never acted on", async () => {
    const wb = new MemoryWorkbook();
    const row = logRow({ idempotencyKey: "a", status: "submitted", loggedAt: LOGGED });
    await wb.appendLog([row, { ...row, notional: 1 }]);
    const j = journalOf(wb);
    await j.load();
    expect(j.all().map((i) => [i.idempotencyKey, i.notional])).toEqual([["a", 100_000]]);
    expect(j.unusable()).toEqual([{ record: expect.objectContaining({ idempotencyKey: "a", notional: 1 }), reason: "it cannot be read" }]);
    expect(j.records()).toHaveLength(2);
  });

  it("a damaged journal entry (no market) is left out, and the workbook still opens", async () => {
    const store = new MemoryIntentStore();
    const a = intent("a");
    await store.put(SCOPE, [
      { record: { ...intentToLogRecord(a), market: null as unknown as string }, keyId: null, anchor: null, finalAt: null },
    ]);
    const j = journalOf(new MemoryWorkbook(), store);
    expect(await j.load()).toEqual({ restored: [], orphans: [], edited: [], otherWorkbooks: [] });
    expect(j.all()).toEqual([]);
  });

  it("reads unfinished rows and today's rows (UTC) for the duplicate check, not earlier final ones", async () => {
    const wb = saved([
      LOG_COLUMNS.map((c) => c.header),
      logCells(logRow({ idempotencyKey: "yesterday", loggedAt: "2026-11-22T23:59:59.000Z" })),
      logCells(logRow({ idempotencyKey: "midnight", loggedAt: "2026-11-23T00:00:00.000Z" })),
      logCells(logRow({ idempotencyKey: "old-unfinished", loggedAt: "2026-11-01T00:00:00.000Z", status: "submitted" })),
    ]);
    const j = journalOf(wb);
    await j.load();
    expect(keysOf(j.records()).sort()).toEqual(["midnight", "old-unfinished"]);
    expect(utcDayStart(new Date("2026-11-23T23:59:59.999Z"))).toBe("2026-11-23T00:00:00.000Z");
  });
});

describe("writes that fail", () => {
  it("append: when this computer's journal cannot be written, the log is not written either and the row is not taken (so never sent)", async () => {
    const wb = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    const j = journalOf(wb, store);
    await j.load();
    store.put = async () => {
      throw new Error("storage full");
    };
    await expect(j.append([intent("a")])).rejects.toThrow("storage full");
    expect(await wb.readLog()).toEqual([]);
    expect(j.get("a")).toBeUndefined();
  });

  it("append: when this computer's newest link cannot be kept, that is reported and the rows stay appended (they are in the log)", async () => {
    const wb = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    const errors: Error[] = [];
    const j = journalOf(wb, store, (e) => errors.push(e));
    await j.load();
    store.putHead = async () => {
      throw new Error("head not kept");
    };
    await j.append([intent("a")]);
    expect(errors.map((e) => e.message)).toEqual(["head not kept"]);
    expect((await wb.readLog()).map((r) => r.idempotencyKey)).toEqual(["a"]);
    expect(j.get("a")?.status).toBe("submitting");
  });

  it("an update reaches the Hedge Log and this computer's journal on its own within the flush delay: nobody has to call flush()", async () => {
    const wb = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    const j = new Journal(wb, { store, scope: SCOPE, now: () => NOW, flushDelayMs: 20 });
    await j.load();
    const a = intent("a");
    const b = intent("b", 1);
    await j.append([a, b]);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    j.update(b, { status: "failed", errorCode: "quote_expired", message: "Quote expired." });
    expect((await wb.readLog()).map((r) => r.status)).toEqual(["submitting", "submitting"]); // not yet: writes are batched
    await until(async () => j.unflushed() === 0 && (await wb.readLog())[0].status === "submitted");
    expect((await wb.readLog()).map((r) => [r.status, r.hedgeId])).toEqual([
      ["submitted", "h-a"],
      ["failed", null],
    ]);
    const stored = new Map((await store.load(SCOPE)).map((e) => [e.record.idempotencyKey, e.record.status]));
    expect([stored.get("a"), stored.get("b")]).toEqual(["submitted", "failed"]);
    // A later update is written on its own too: each delay's write arms the next.
    j.update(a, { status: "filled", struckRate: 1500 });
    await until(async () => (await wb.readLog())[0].status === "filled");
    expect(j.unflushed()).toBe(0);
  });

  it("flush: a failed write of this computer's journal is reported and retried, and the log is not written ahead of it", async () => {
    const wb = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    const errors: Error[] = [];
    const j = journalOf(wb, store, (e) => errors.push(e));
    await j.load();
    const a = intent("a");
    await j.append([a]);
    const put = store.put.bind(store);
    store.put = async () => {
      throw new Error("storage busy");
    };
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await expect(j.flush()).rejects.toThrow("storage busy");
    expect(errors.map((e) => e.message)).toEqual(["storage busy"]);
    expect((await wb.readLog())[0].status).toBe("submitting");
    expect(j.unflushed()).toBe(1);
    store.put = put;
    await j.flush();
    expect((await store.load(SCOPE))[0].record).toMatchObject({ status: "submitted", hedgeId: "h-a" });
    expect((await wb.readLog())[0]).toMatchObject({ status: "submitted", hedgeId: "h-a" });
    expect(j.unflushed()).toBe(0);
  });

  it("flush: a failed log write is retried with the newest state of each row, an update made meanwhile included", async () => {
    const wb = new MemoryWorkbook();
    const errors: Error[] = [];
    const j = journalOf(wb, null, (e) => errors.push(e));
    await j.load();
    const a = intent("a");
    const b = intent("b", 1);
    await j.append([a, b]);
    await j.flush();
    const update = wb.updateLog.bind(wb);
    let release!: () => void;
    wb.updateLog = () =>
      new Promise((_, reject) => {
        release = () => reject(new Error("Excel is busy"));
      });
    j.update(a, { status: "submitted", hedgeId: "h-a", orderTxHash: "0xorder" });
    j.update(b, { status: "submitted", hedgeId: "h-b" });
    const failing = j.flush();
    await new Promise((r) => setTimeout(r, 10));
    // The fill is seen while the write is stuck.
    j.update(a, { status: "filled", struckRate: 1503 });
    release();
    await expect(failing).rejects.toThrow("Excel is busy");
    expect(errors.map((e) => e.message)).toEqual(["Excel is busy"]); // reported as thrown
    expect(j.unflushed()).toBe(2); // both rows' log updates wait (of the per-user journal, only a's fill does)
    wb.updateLog = update;
    await j.flush();
    expect((await wb.readLog())[0]).toMatchObject({ status: "filled", hedgeId: "h-a", orderTxHash: "0xorder", struckRate: 1503 });
  });

  it("this computer's journal notes when a row became final, once: unfinished rows carry no such time (they are never pruned)", async () => {
    let now = NOW;
    const store = new MemoryIntentStore();
    const j = new Journal(new MemoryWorkbook(), { store, scope: SCOPE, now: () => now, flushDelayMs: 60_000 });
    await j.load();
    const a = intent("a");
    await j.append([a]);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    expect((await store.load(SCOPE))[0].finalAt).toBeNull();
    j.update(a, { status: "filled", struckRate: 1500 });
    await j.flush();
    now = new Date(NOW.getTime() + 3_600_000);
    j.update(a, { message: "Filled." });
    await j.flush();
    expect((await store.load(SCOPE))[0]).toMatchObject({ finalAt: NOW.toISOString(), record: { message: "Filled." } });
  });

  it("an update that changes nothing writes nothing, and flush() with nothing queued makes no call", async () => {
    const store = new MemoryIntentStore();
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, store);
    await j.load();
    const a = intent("a");
    await j.append([a]);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    const before = [wb.calls, store.writes];
    // Each later write is one Excel call (the log's columns were checked once, at the first).
    j.update(a, { message: "Submitted." });
    await j.flush();
    expect(wb.calls - before[0]).toBe(1);
    before[0] = wb.calls;
    before[1] = store.writes;
    expect(j.update(a, { status: "submitted", hedgeId: "h-a" })).toEqual({});
    expect(j.unflushed()).toBe(0);
    await j.flush();
    expect([wb.calls, store.writes]).toEqual(before);
  });

  it("a listener that throws does not stop the journal", async () => {
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, null, () => {
      throw new Error("listener broke");
    });
    await j.load();
    const a = intent("a");
    await j.append([a]);
    const update = wb.updateLog.bind(wb);
    wb.updateLog = async () => {
      throw new Error("Excel is busy");
    };
    j.update(a, { status: "submitted" });
    await expect(j.flush()).rejects.toThrow("Excel is busy");
    wb.updateLog = update;
    await j.flush();
    expect((await wb.readLog())[0].status).toBe("submitted");
  });

  it("a store is given its scope", () => {
    expect(() => new Journal(new MemoryWorkbook(), { store: new MemoryIntentStore() })).toThrow(/needs its scope/);
  });
});

describe("the order rows are taken in (byLoggedAt: restored rows, the preview's log)", () => {
  it("oldest first by when logged; rows logged at the same instant are equal, so a stable sort keeps their order", () => {
    const at = (loggedAt: string, key: string) => ({ loggedAt, key });
    const rows = [
      at("2026-11-27T09:00:02.000Z", "b"),
      at("2026-11-27T09:00:01.000Z", "a"),
      at("2026-11-27T09:00:03.000Z", "c"),
      at("2026-11-27T09:00:02.000Z", "b2"),
    ];
    expect([...rows].sort(byLoggedAt).map((r) => r.key)).toEqual(["a", "b", "b2", "c"]);
    expect([byLoggedAt(rows[1], rows[0]), byLoggedAt(rows[0], rows[1]), byLoggedAt(rows[0], rows[3])]).toEqual([-1, 1, 0]);
  });
});

describe("what an update and an append write, and what they do not (the journal room's survivors)", () => {
  it("an update returns the fields it changed and nothing else; a seal is among them only once the row is final", async () => {
    const { j1, a } = await emptySavedLogWith("a");
    expect(j1.update(a, { status: "submitted", hedgeId: "h-a" })).toEqual({ status: "submitted", hedgeId: "h-a" });
    expect(j1.update(a, { message: "Waiting for the fill." })).toEqual({ message: "Waiting for the fill." });
    const final = j1.update(a, { status: "filled", struckRate: 1500 });
    expect(Object.keys(final).sort()).toEqual(["finalHash", "status", "struckRate"]);
    expect(final.finalHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("why a row was parked is this computer's alone: changing only that writes nothing to the workbook", async () => {
    const { wb, j1, a } = await emptySavedLogWith("a");
    await j1.flush();
    const calls = wb.calls;
    j1.update(a, { parkedFor: "no_answer" });
    await j1.flush();
    expect(wb.calls).toBe(calls);
  });

  it("appending no rows changes nothing: the next row still follows the last one appended", async () => {
    const { store, j1 } = await emptySavedLogWith("a");
    await j1.append([]);
    const b = intent("b", 1);
    await j1.append([b]);
    expect((await store.load(SCOPE)).find((e) => e.record.idempotencyKey === "b")?.anchor).toBe("a");
  });

  it("without a store no row is journalled here, appended or not: every row is the log's alone", async () => {
    const wb = saved([LOG_COLUMNS.map((c) => c.header)]);
    const j = journalOf(wb);
    await j.load();
    await j.append([intent("a")]);
    expect(j.journalledHere("a")).toBe(false);
  });
});
