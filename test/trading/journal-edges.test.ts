// The journal's smaller promises, each resting on one line of journal.ts: which old rows opening reads (by key, by anchor), what it keeps (this session's rows, when a row ended, whose a row is), what an append refuses, when updates are written, and the small calls (adopt, identity, dismiss).
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { Journal } from "../../src/trading/journal";
import type { Intent } from "../../src/trading/intent";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import { CONTROLS, controlRecord } from "../../src/trading/log/control-row";
import { logCells, logRow } from "../support/builders";
import { NOW, SCOPE, THIS_WORKBOOK, col, intent, journalOf, keysOf, saved } from "../support/journal-world";

const HEADER = LOG_COLUMNS.map((c) => c.header);
const DAY = 86_400_000;
/** Three days before NOW: rows of that day are neither today's nor unfinished when the workbook is opened at NOW. */
const THREE_DAYS_AGO = new Date(NOW.getTime() - 3 * DAY);
const journalAt = (wb: MemoryWorkbook, store: MemoryIntentStore | null, now: Date) =>
  new Journal(wb, { ...(store ? { store, scope: SCOPE } : {}), now: () => now, flushDelayMs: 60_000 });

async function fill(j: Journal, i: Intent): Promise<void> {
  j.update(i, { status: "submitted", hedgeId: `h-${i.idempotencyKey}` });
  j.update(i, { status: "filled", struckRate: 1500 });
  await j.flush();
}

const emptyReport = { restored: [], orphans: [], edited: [], otherWorkbooks: [] };

describe("what opening a workbook reads beyond the unfinished and today's rows", () => {
  it("a final row of three days ago that this computer's journal holds is read by its key: neither written back nor listed as missing", async () => {
    const store = new MemoryIntentStore();
    const wb = saved([HEADER]);
    const then = journalAt(wb, store, THREE_DAYS_AGO);
    await then.load();
    const a = intent("a", -3 * 24 * 60);
    await then.append([a]);
    await fill(then, a);

    const j = journalOf(wb, store);
    expect(await j.load()).toEqual(emptyReport);
    expect(keysOf(await wb.readLog())).toEqual(["a"]);
    expect(j.get("a")?.status).toBe("filled");
  });

  it("the row a lost final row was appended after is read by that anchor, though only the log holds it: the lost row comes back", async () => {
    // Row x was logged three days ago by another computer (this one's journal never held it); this computer appended b
    // after it, and the workbook was closed without saving.
    const x = logCells(logRow({ idempotencyKey: "x", loggedAt: THREE_DAYS_AGO.toISOString(), status: "filled" }));
    const store = new MemoryIntentStore();
    const then = journalAt(saved([HEADER, x]), store, THREE_DAYS_AGO);
    await then.load();
    const b = intent("b", -3 * 24 * 60 + 60);
    await then.append([b]);
    await fill(then, b);
    expect(b.anchor).toBe("x");

    const reopened = saved([HEADER, x]);
    const report = await journalOf(reopened, store).load();
    expect(keysOf(report.restored)).toEqual(["b"]);
    expect(report.orphans).toEqual([]);
    expect(keysOf(await reopened.readLog())).toEqual(["x", "b"]);
  });
});

describe("what opening a workbook keeps", () => {
  it("a journal not yet opened knows no rows: nothing to list, nothing to count as a duplicate", () => {
    const j = journalOf(new MemoryWorkbook(), new MemoryIntentStore());
    expect(j.records()).toEqual([]);
    expect(j.unusable()).toEqual([]);
    expect(j.all()).toEqual([]);
  });

  it("a control row of the log is never a trade: not among the rows to act on, nor listed as unusable", async () => {
    const wb = saved([HEADER]);
    const first = journalOf(wb);
    await first.load();
    const change = {
      control: CONTROLS.liveApproval,
      from: "off",
      to: "on",
      by: "fp-0123456789abcdef",
      at: NOW.toISOString(),
      environment: "sandbox",
      account: null,
      hash: null,
      preparedBy: null,
      message: "LIVE trades need approval: on.",
    };
    await first.appendControl(controlRecord(change, "k-control"));
    expect(keysOf(await wb.readLog({ statusNotIn: [] }))).toContain("k-control");

    const j = journalOf(wb);
    await j.load();
    expect(j.all()).toEqual([]);
    expect(j.unusable()).toEqual([]);

    // With this computer's journal, the control row is kept there too (it is journalled before the log is written).
    const store = new MemoryIntentStore();
    const mine = journalOf(saved([HEADER]), store);
    await mine.load();
    await mine.appendControl(controlRecord({ ...change, from: "on", to: "off" }, "k-control-2"));
    expect((await store.load(SCOPE)).map((e) => [e.record.idempotencyKey, e.record.action])).toEqual([["k-control-2", "control"]]);
  });

  it("a row this session works on stays the desk's own object when the log is read again: its newer state is not replaced by the log's", async () => {
    const store = new MemoryIntentStore();
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, store);
    await j.load();
    const a = intent("a");
    await j.append([a]);
    await j.flush();
    a.status = "submitted"; // moved by the desk, not yet written anywhere
    await j.load((key) => (key === "a" ? a : undefined));
    expect(j.get("a")).toBe(a);
    expect(j.get("a")?.status).toBe("submitted");
  });

  it("a row this session still works on stays in this computer's journal, even when its entry there says it ended over a week ago", async () => {
    const store = new MemoryIntentStore();
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, store);
    await j.load();
    const a = intent("a", -10 * 24 * 60);
    await j.append([a]);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    // Another pane wrote the row as filled, eight days ago by its clock.
    const [entry] = await store.load(SCOPE);
    await store.put(SCOPE, [
      { ...entry, record: { ...entry.record, status: "filled" }, finalAt: new Date(NOW.getTime() - 8 * DAY).toISOString() },
    ]);
    await j.load((key) => (key === "a" ? a : undefined));
    expect(keysOf((await store.load(SCOPE)).map((e) => e.record))).toEqual(["a"]);
  });

  it("a row final in both keeps the time it became final: opening a week later does not restart its week", async () => {
    const store = new MemoryIntentStore();
    const wb = new MemoryWorkbook();
    const then = journalAt(wb, store, THREE_DAYS_AGO);
    await then.load();
    const a = intent("a", -3 * 24 * 60);
    await then.append([a]);
    await fill(then, a);
    expect((await store.load(SCOPE))[0].finalAt).toBe(THREE_DAYS_AGO.toISOString());

    const j = journalOf(wb, store);
    await j.load();
    await j.flush();
    expect((await store.load(SCOPE))[0].finalAt).toBe(THREE_DAYS_AGO.toISOString());
  });

  it("a damaged entry of this computer's journal (no market) for a row the log holds: the log's row is taken, and the workbook opens", async () => {
    const store = new MemoryIntentStore();
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, store);
    await j.load();
    await j.append([intent("a")]);
    const [entry] = await store.load(SCOPE);
    await store.put(SCOPE, [{ ...entry, record: { ...entry.record, market: null as unknown as string } }]);
    expect((await store.load(SCOPE))[0].record.market).toBeNull();

    const again = journalOf(wb, store);
    await again.load();
    expect(again.get("a")).toMatchObject({ market: "USDTNGN", status: "submitting" });
  });

  it("another workbook's unfinished row is listed with that workbook's id, and dismissing it here leaves it that workbook's", async () => {
    const store = new MemoryIntentStore();
    const theirs = saved([HEADER], "wb-other", "Other.xlsx");
    const there = journalOf(theirs, store);
    await there.load();
    await there.append([intent("a")]);

    const j = journalOf(saved([HEADER]), store);
    const report = await j.load();
    expect(report.otherWorkbooks.map((i) => [i.idempotencyKey, i.workbookId, i.workbookName])).toEqual([["a", "wb-other", "Other.xlsx"]]);
    expect(keysOf(await j.dismiss(["a"]))).toEqual(["a"]);
    const [entry] = await store.load(SCOPE);
    expect([entry.workbookId, entry.workbookName, entry.dismissedIn]).toEqual(["wb-other", "Other.xlsx", [THIS_WORKBOOK]]);
    expect(j.otherWorkbookRows()).toEqual([]);
  });
});

describe("what an append refuses", () => {
  it("a row not journalled as submitting is refused, naming it and its state, and nothing is written", async () => {
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, new MemoryIntentStore());
    await j.load();
    const a = intent("a");
    a.status = "submitted";
    await expect(j.append([a])).rejects.toThrow(/^Intent a must be journalled as submitting, not submitted\.$/);
    expect(await wb.readLog()).toEqual([]);
  });

  it("a row already in the log is refused, naming it, and the log keeps one row", async () => {
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, new MemoryIntentStore());
    await j.load();
    const a = intent("a");
    await j.append([a]);
    await expect(j.append([{ ...a }])).rejects.toThrow(/^Intent a is already in the log\.$/);
    expect(keysOf(await wb.readLog())).toEqual(["a"]);
  });
});

describe("when updates are written", () => {
  afterEach(() => jest.useRealTimers());

  it("by default, updates within 100 ms of the first go to the workbook in one call", async () => {
    jest.useFakeTimers();
    const wb = new MemoryWorkbook();
    const j = new Journal(wb, { now: () => NOW });
    await j.load();
    const [a, b] = [intent("a"), intent("b", 1)];
    await j.append([a, b]);
    const updates = jest.spyOn(wb, "updateLog");
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await jest.advanceTimersByTimeAsync(60);
    expect(updates).not.toHaveBeenCalled();
    j.update(b, { status: "submitted", hedgeId: "h-b" });
    await jest.advanceTimersByTimeAsync(60);
    expect(updates).toHaveBeenCalledTimes(1);
    expect(updates.mock.calls[0][0].map((u) => u.idempotencyKey)).toEqual(["a", "b"]);
  });

  it("a row whose key was edited out of the log gets its update at the end of the log, as a row again, and that is reported", async () => {
    const errors: Error[] = [];
    const wb = new MemoryWorkbook();
    const j = journalOf(wb, new MemoryIntentStore(), (e) => errors.push(e));
    await j.load();
    const a = intent("a");
    await j.append([a]);
    const cells = wb.cells(LOG_SHEET_NAME);
    cells[1][col("idempotencyKey")] = "typed over";
    wb.setSheet(LOG_SHEET_NAME, cells);
    j.update(a, { status: "submitted", hedgeId: "h-a" });
    await j.flush();
    expect((await wb.readLog()).map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["typed over", "submitting"],
      ["a", "submitted"],
    ]);
    expect(errors.map((e) => e.message).join(" ")).toMatch(/no row with idempotency key a/);
  });
});

describe("the small calls", () => {
  it("adopt takes a row the log does not hold into the journal", () => {
    const j = journalOf(new MemoryWorkbook());
    const a = intent("a");
    j.adopt(a);
    expect(j.get("a")).toBe(a);
    expect(keysOf(j.all())).toEqual(["a"]);
  });

  it("a failed read of the workbook's identity is tried again on the next call, not remembered", async () => {
    const wb = new MemoryWorkbook();
    const read = wb.identity.bind(wb);
    let fails = 1;
    wb.identity = () => (fails-- > 0 ? Promise.reject(new Error("busy")) : read());
    const j = journalOf(wb);
    await expect(j.identity()).rejects.toThrow("busy");
    await expect(j.identity()).resolves.toMatchObject({ id: expect.any(String) });
  });

  it("dismissing rows it does not list returns none and writes nothing", async () => {
    const store = new MemoryIntentStore();
    const j = journalOf(saved([HEADER]), store);
    await j.load();
    const writes = store.writes;
    expect(await j.dismiss(["nobody"])).toEqual([]);
    expect(store.writes).toBe(writes);
  });
});
