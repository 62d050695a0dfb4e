// The journal writes the Hedge Log's hash chain: each appended row links to the one before, a final row is sealed in the update that makes it final, this computer's head follows each append, and the log checks clean.
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { Journal } from "../../../src/trading/journal";
import { intentToLogRecord } from "../../../src/trading/intent";
import type { IntentStore } from "../../../src/trading/intent-store";
import { chainHeadOf } from "../../../src/trading/chain-head";
import { CHAIN_START, finalHashOf, rowHashOf } from "../../../src/trading/log/log-chain";
import { LOG_COLUMNS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../../src/trading/log/hedge-log";
import { WORKBOOK_ID_PROPERTY } from "../../../src/trading/workbook";
import { chainFindings } from "../../support/chain";
import { LOGGED, SCOPE, at, intent } from "../../support/journal-world";

const WORKBOOK = "wb-chain";

function setup(
  store: IntentStore = new MemoryIntentStore(),
  workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } }),
) {
  let clock = Date.parse(LOGGED) + 3_600_000;
  const journal = new Journal(workbook, { store, scope: SCOPE, now: () => new Date((clock += 1_000)), flushDelayMs: 60_000 });
  return { journal, workbook, store };
}

const head = (store: IntentStore) => chainHeadOf(store, WORKBOOK);

describe("the journal writes the chain", () => {
  it("a send of several rows, fills, a failure, a restore and a decision: every row linked, final rows sealed, the log checks clean against the head", async () => {
    const store = new MemoryIntentStore();
    // A final row this computer journalled whose log was lost (the workbook closed without saving): restored on the user's word.
    await store.put(SCOPE, [
      { record: { ...intentToLogRecord(intent("lost", -60)), status: "filled" }, keyId: "k-key", anchor: null, finalAt: at(-59) },
    ]);
    const { journal, workbook } = setup(store);
    await journal.load();
    expect(await head(store)).toBeNull();

    const batch = [intent("a", 0), intent("b", 0, "add", 25_000), intent("c", 0, "reduce", 10_000)];
    await journal.append(batch);
    let log = await workbook.readLog();
    expect(log.map((r) => r.prevHash)).toEqual([CHAIN_START, log[0].rowHash, log[1].rowHash]);
    expect(log[0].rowHash).toBe(rowHashOf(CHAIN_START, log[0]));
    expect(await head(store)).toBe(log[2].rowHash);

    journal.update(batch[0], { status: "submitted", hedgeId: "h-1", orderTxHash: "0xo1" });
    journal.update(batch[0], { status: "filled", struckRate: 1501.25, filledAt: at(1), fillTxHash: "0xf1" });
    journal.update(batch[1], { status: "failed", errorCode: "order_failed", message: "The service failed the order." });
    journal.update(batch[2], { status: "needs_decision", message: "The service cannot tell." });
    await journal.flush();
    log = await workbook.readLog();
    // The seal is written with the final status, over the final state as the log holds it.
    expect(log[0].finalHash).toBe(finalHashOf(log[0].rowHash!, log[0]));
    expect(log[1].finalHash).toBe(finalHashOf(log[1].rowHash!, log[1]));
    expect(log[2].finalHash).toBeNull();

    journal.update(batch[2], { status: "not_sent", decision: "not done", decidedAt: at(30), message: "Marked not sent by the user." });
    await journal.flush();
    expect(await journal.restore(["lost"])).toHaveLength(1);
    const more = [intent("d", 40, "close", 0)];
    await journal.append(more);
    journal.update(more[0], { status: "closed", hedgeId: "h-1" });
    await journal.flush();

    log = await workbook.readLog();
    expect(log.map((r) => [r.idempotencyKey, r.status])).toEqual([
      ["a", "filled"],
      ["b", "failed"],
      ["c", "not_sent"],
      ["lost", "filled"],
      ["d", "closed"],
    ]);
    // The restored row is a new link after the decision's row; sealed at once, being final when written back.
    expect(log[3].prevHash).toBe(log[2].rowHash);
    expect(log.every((r) => r.finalHash === finalHashOf(r.rowHash!, r))).toBe(true);
    expect(await head(store)).toBe(log[4].rowHash);
    expect(chainFindings(log, await head(store))).toEqual([]);
  });

  it("a log older than the chain: the first row the journal writes starts it, and the older rows are before the chain, not judged", async () => {
    const workbook = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } });
    await workbook.appendLog([intent("old-1", -90), intent("old-2", -80)].map((i) => ({ ...intentToLogRecord(i), status: "filled" })));
    const { journal, store } = setup(new MemoryIntentStore(), workbook);
    await journal.load();
    await journal.append([intent("a", 0)]);
    const log = await workbook.readLog();
    expect(log[2].prevHash).toBe(CHAIN_START);
    expect(chainFindings(log, await head(store))).toEqual(["before_chain@2"]);
  });

  it("the head follows each append, and a new session follows the log's last row: read alone, never the whole log", async () => {
    const store = new MemoryIntentStore();
    const first = setup(store);
    await first.journal.load();
    await first.journal.append([intent("a", 0)]);
    expect(await head(store)).toBe((await first.workbook.readLog())[0].rowHash);
    await first.journal.append([intent("b", 1)]);
    expect(await head(store)).toBe((await first.workbook.readLog())[1].rowHash);

    const second = setup(store, first.workbook);
    await second.journal.load();
    const readLog = jest.spyOn(first.workbook, "readLog");
    const readLast = jest.spyOn(first.workbook, "readLastLogRecord");
    await second.journal.append([intent("c", 2)]);
    await second.journal.append([intent("d", 3)]);
    expect(readLog).not.toHaveBeenCalled();
    expect(readLast).toHaveBeenCalledTimes(1); // once a session: then the link it wrote last
    const log = await first.workbook.readLog();
    expect(log[2].prevHash).toBe(log[1].rowHash);
    expect(chainFindings(log, await head(store))).toEqual([]);
  });

  it("rows cut off the end: the next row follows this computer's head, so the log shows where rows went missing", async () => {
    const store = new MemoryIntentStore();
    const { journal, workbook } = setup(store);
    await journal.load();
    await journal.append([intent("a", 0), intent("b", 1), intent("c", 2)]);
    journal.update((await journal.get("c"))!, { status: "rejected", errorCode: "hedge_exists" });
    await journal.flush();
    const log = await workbook.readLog();
    const cut = log.slice(0, 2);
    expect(chainFindings(cut, await head(store))).toEqual(["cut_off@3"]);

    // The file as saved without its last row, opened again on this computer.
    const reopened = new MemoryWorkbook({ customProperties: { [WORKBOOK_ID_PROPERTY]: WORKBOOK } });
    await reopened.appendLog(cut);
    const next = setup(store, reopened);
    await next.journal.load();
    await next.journal.append([intent("d", 10)]);
    const after = await reopened.readLog();
    expect(after[2].prevHash).toBe(log[2].rowHash);
    expect(chainFindings(after, await head(store))).toEqual(["deleted_before@4"]);
  });

  it("a row another computer appended after this one's head is followed (the log's last row is newer than the head)", async () => {
    const mine = new MemoryIntentStore();
    const { journal, workbook } = setup(mine);
    await journal.load();
    await journal.append([intent("a", 0)]);
    const other = setup(new MemoryIntentStore(), workbook);
    await other.journal.load();
    // Logged there after this computer wrote its head (this test's clocks write heads an hour after LOGGED).
    await other.journal.append([intent("x", 120)]);
    const again = setup(mine, workbook);
    await again.journal.load();
    await again.journal.append([intent("b", 130)]);
    const log = await workbook.readLog();
    expect(log.map((r) => r.idempotencyKey)).toEqual(["a", "x", "b"]);
    expect(log[2].prevHash).toBe(log[1].rowHash);
    // This computer's head says only what it wrote.
    expect(await head(mine)).toBe(log[2].rowHash);
    expect(chainFindings(log, await head(mine))).toEqual([]);
  });

  it("appends started together, and a deleted row written again at the end, never follow the same link", async () => {
    const { journal, workbook, store } = setup();
    await journal.load();
    const rows = Array.from({ length: 6 }, (_, i) => intent(`k${i}`, i));
    await Promise.all([journal.append(rows.slice(0, 2)), journal.append(rows.slice(2, 4)), journal.append(rows.slice(4))]);
    // The user deletes row k1 from the log; its next update finds it missing and writes it again at the end, as a new link.
    const keyColumn = LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey");
    workbook.deleteRowsOf(LOG_TABLE_NAME, [workbook.cells(LOG_SHEET_NAME).findIndex((r) => r[keyColumn] === "k1") + 1]);
    journal.update(rows[1], { status: "submitted", hedgeId: "h-2" });
    const flushed = journal.flush();
    await Promise.all([flushed, journal.append([intent("k6", 6)])]);
    const log = await workbook.readLog();
    expect(log.map((r) => r.idempotencyKey).sort()).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "k6"]);
    const prevs = log.map((r) => r.prevHash);
    expect(new Set(prevs).size).toBe(prevs.length);
    // Only the hole the user made is flagged (at the row after it).
    expect(chainFindings(log, await head(store))).toEqual(["deleted_before@3"]);
  });

  it("an append the log refused: the next one reads the log's last row again instead of trusting a link the log may not hold", async () => {
    const { journal, workbook, store } = setup();
    await journal.load();
    await journal.append([intent("a", 0)]);
    const append = jest.spyOn(workbook, "appendLog").mockRejectedValueOnce(new Error("Excel is busy"));
    await expect(journal.append([intent("b", 1)])).rejects.toThrow("Excel is busy");
    append.mockRestore();
    expect(await head(store)).toBe((await workbook.readLog())[0].rowHash);
    const readLast = jest.spyOn(workbook, "readLastLogRecord");
    await journal.append([intent("c", 2)]);
    expect(readLast).toHaveBeenCalledTimes(1);
    const log = await workbook.readLog();
    expect(log.map((r) => r.idempotencyKey)).toEqual(["a", "c"]);
    expect(chainFindings(log, await head(store))).toEqual([]);
  });

  it("a final row edited in the log keeps its seal when the journal reads it again (a new seal would hide the edit)", async () => {
    const { journal, workbook, store } = setup();
    await journal.load();
    const a = intent("a", 0);
    await journal.append([a]);
    journal.update(a, { status: "filled", hedgeId: "h-1", struckRate: 1500 });
    await journal.flush();
    const sheet = workbook.cells(LOG_SHEET_NAME);
    const rate = LOG_COLUMNS.findIndex((c) => c.field === "struckRate");
    sheet[1][rate] = 1400;
    workbook.setSheet(LOG_SHEET_NAME, sheet);
    const again = setup(store, workbook);
    await again.journal.load();
    await again.journal.flush();
    expect(chainFindings(await workbook.readLog(), await head(store))).toEqual(["edited_after_final@2"]);
  });
});

describe("the rows a row's link covers", () => {
  it("a row sent under an approval carries it in its body: an edit of the batch hash breaks its link", async () => {
    const { journal, workbook, store } = setup();
    await journal.load();
    const a = Object.assign(intent("a", 0), {
      batchHash: "ab".repeat(32),
      preparedBy: "fp-1111111111111111",
      approvedBy: "fp-2222222222222222",
    });
    await journal.append([a, intent("b", 1)]);
    const log: LogRecord[] = await workbook.readLog();
    expect(log[0]).toMatchObject({ batchHash: "ab".repeat(32), preparedBy: "fp-1111111111111111", approvedBy: "fp-2222222222222222" });
    expect(chainFindings(log, await head(store))).toEqual([]);
    expect(chainFindings([{ ...log[0], batchHash: "cd".repeat(32) }, log[1]], await head(store))).toEqual(["edited@2"]);
  });
});
