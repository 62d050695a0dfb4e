// Approvals at the desk: an approved batch sent again never sends a key twice.
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { intentScope } from "../../../src/trading/intent-store";
import { ALREADY_SENT } from "../../../src/trading/desk/admission";
import { intentFromRow, intentToLogRecord } from "../../../src/trading/intent";
import { ACCOUNT, KEY_ID } from "../../support/fake-service";
import { START, iso, row, previewOf, type World, world, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("an approved batch sent again: a key already sent never leaves twice", () => {
  const approval = (keys: string[]) => ({
    batchHash: "5e".repeat(32),
    preparedBy: "fp-aaaaaaaaaaaaaaaa",
    approvedBy: "fp-bbbbbbbbbbbbbbbb",
    idempotencyKeys: keys,
  });
  /** The keys each read of the log asked for (reads by key only). */
  const keyReads = (w: World): string[][] => {
    const asked: string[][] = [];
    const readLog = w.workbook.readLog.bind(w.workbook);
    w.workbook.readLog = (query) => {
      if (query?.keys) asked.push([...query.keys]);
      return readLog(query);
    };
    return asked;
  };

  it("a key another pane sent since this one opened is found in the log (asked only for the keys this pane does not know) and skipped", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const here = await w.desk();
    // Another computer (a journal of its own) sends the approved line first.
    const elsewhere = await w.desk({ intentStore: new MemoryIntentStore() });
    await elsewhere.send(previewOf([row()]), { approval: approval(["batch-key-1"]) });
    expect(w.service.posts.map((p) => p.key)).toEqual(["batch-key-1"]);
    const asked = keyReads(w);
    const again = await here.send(previewOf([row(), row({ rowNumber: 3, side: "sell" })]), {
      approval: approval(["batch-key-1", "batch-key-2"]),
    });
    expect(again.skipped).toEqual([{ rowNumber: 2, reason: "already sent: see Resume" }]);
    expect(asked).toEqual([["batch-key-1", "batch-key-2"]]);
    await advance(2_000);
    expect(w.service.posts.map((p) => p.key)).toEqual(["batch-key-1", "batch-key-2"]);
    expect((await w.log()).map((r) => r.idempotencyKey)).toEqual(["batch-key-1", "batch-key-2"]);
  });

  it("approved again on the same pane, every key known here: skipped without reading the log", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const desk = await w.desk();
    await desk.send(previewOf([row()]), { approval: approval(["batch-key-1"]) });
    const asked = keyReads(w);
    const again = await desk.send(previewOf([row()]), { approval: approval(["batch-key-1"]) });
    expect(again).toMatchObject({ rows: [], skipped: [{ rowNumber: 2, reason: ALREADY_SENT }] });
    expect(asked).toEqual([]);
    expect(w.service.posts).toHaveLength(1);
  });

  it("a line this computer journalled and sent, its log row deleted and its old final entry pruned on opening, is still skipped", async () => {
    const w = world();
    const eightDaysAgo = iso(START - 8 * 86_400_000);
    const record = {
      ...intentToLogRecord(intentFromRow(row(), "batch-key-1", "sandbox", eightDaysAgo, ACCOUNT)),
      status: "filled" as const,
      sentAt: eightDaysAgo,
    };
    await w.store.put(intentScope("sandbox", ACCOUNT), [{ record, keyId: KEY_ID, anchor: null, finalAt: eightDaysAgo }]);
    const desk = await w.desk();
    expect(await w.store.load(intentScope("sandbox", ACCOUNT))).toEqual([]); // pruned on opening
    const again = await desk.send(previewOf([row()]), { approval: approval(["batch-key-1"]) });
    expect(again).toMatchObject({ rows: [], skipped: [{ rowNumber: 2, reason: ALREADY_SENT }] });
    expect(w.service.posts).toEqual([]);
  });
});

describe("before an approval: what of the batch the service shows done", () => {
  it("without the time the batch was prepared, nothing can be judged done: the service is not asked and no line is done", async () => {
    const w = world();
    const desk = await w.desk();
    const reads = w.service.reads.length;
    const done = await desk.doneBeforeApproval(previewOf([row({ clientReference: "NEW-1" })]), {
      batchHash: "5e".repeat(32),
      preparedBy: "fp-aaaaaaaaaaaaaaaa",
      approvedBy: "fp-bbbbbbbbbbbbbbbb",
      idempotencyKeys: ["batch-key-1"],
    });
    expect(done.size).toBe(0);
    expect(w.service.reads.slice(reads)).toEqual([]);
  });

  it("with it, an Open the service shows by its client reference, opened since, is done (what it shows, by its place in the preview)", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const other = await w.desk({ intentStore: new MemoryIntentStore() });
    await other.send(previewOf([row({ clientReference: "NEW-1" })]));
    const desk = await w.desk();
    const done = await desk.doneBeforeApproval(previewOf([row({ clientReference: "NEW-1" })]), {
      batchHash: "5e".repeat(32),
      preparedBy: "fp-aaaaaaaaaaaaaaaa",
      approvedBy: "fp-bbbbbbbbbbbbbbbb",
      idempotencyKeys: ["batch-key-1"],
      preparedAt: iso(START - 60_000),
    });
    expect([...done.keys()]).toEqual([0]);
    expect(done.get(0)).toMatch(/^Done already by another approval of this batch: /);
  });
});
