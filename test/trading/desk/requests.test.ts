// More than one row at once, and the requests it costs: concurrency, a side's hedge read by id, one poll per interval, opening with many rows.
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { Journal } from "../../../src/trading/journal";
import { intentScope } from "../../../src/trading/intent-store";
import { BACKOFF_MS } from "../../../src/trading/desk/rule";
import { INSPECT_ASK_MAX } from "../../../src/trading/desk/resume-planner";
import { intentFromRow } from "../../../src/trading/intent";
import { ACCOUNT, KEY_ID } from "../../support/fake-service";
import { START, iso, row, addRow, previewOf, world, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("more than one row at once, and the requests it costs", () => {
  it("rows of different sides go together up to the desk's concurrency (at least one); a side's hedge is read by id once known", async () => {
    for (const [concurrency, together] of [
      [undefined, 3],
      [2, 2],
      [0, 1],
    ] as const) {
      const w = world();
      const held: Array<() => void> = [];
      w.service.onPost = () => new Promise<void>((resolve) => held.push(resolve));
      const desk = await w.desk(concurrency === undefined ? {} : { concurrency });
      void desk.send(previewOf([row(), row({ side: "sell", clientReference: "D-2" }), row({ market: "USDTXAF", clientReference: "D-3" })]));
      await advance(100);
      expect(w.service.posts).toHaveLength(together);
      held.splice(0).forEach((r) => r());
      await advance(100);
      held.splice(0).forEach((r) => r());
      await advance(100);
      held.splice(0).forEach((r) => r());
      await advance(100);
      expect(w.service.posts).toHaveLength(3);
    }
  });

  it("a fresh row's first send needs no question; a side's next row reads the hedge its previous row acted on, by id", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(10);
    expect(w.service.reads.filter((r) => r.startsWith("list client_reference"))).toEqual([]);
    await sending;
    await advance(1_000);
    const before = w.service.reads.length;
    let readBeforeSend: string[] = [];
    w.service.onPost = () => void (readBeforeSend = w.service.reads.slice(before));
    const add = desk.send(previewOf([addRow(5_000)]));
    await advance(10);
    await add;
    // One request before the Add leaves: the filled hedge read by id is the side's; no list is read.
    expect(readBeforeSend).toEqual(["get h-1"]);
    expect((await w.log())[1]).toMatchObject({ hedgeId: "h-1", notionalBefore: 10_000 });
  });

  it("a side's hedge the service accepted but has not filled, read by id, is the side's too: no list is read", async () => {
    const w = world();
    w.service.seed({ id: "h-accepted", status: "submitted", notional_usd: 30_000 });
    const desk = await w.desk();
    // This service refuses an Add to a hedge not filled yet: the row is final, and tells the desk the side's hedge.
    await Promise.all([desk.send(previewOf([addRow(5_000)])), advance(100)]);
    expect((await w.log())[0]).toMatchObject({ hedgeId: "h-accepted", status: "rejected" });
    const before = w.service.reads.length;
    await Promise.all([desk.send(previewOf([addRow(6_000)])), advance(100)]);
    expect(w.service.reads.slice(before)).toEqual(["get h-accepted"]);
    expect((await w.log())[1]).toMatchObject({ hedgeId: "h-accepted", notionalBefore: 30_000 });
  });

  it("the hedge read by id is the side's latest row's; one the service no longer knows is looked up in the list, a failed read is retried", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    w.service.seed({ id: "h-old", notional_usd: 100_000 });
    const desk = await w.desk();
    const first = desk.send(previewOf([row({ action: "close", notional: null, tenor: null, clientReference: null }), row()]));
    await advance(2_000);
    await first;
    expect((await w.log()).map((r) => [r.status, r.hedgeId])).toEqual([
      ["closed", "h-old"],
      ["filled", "h-2"],
    ]);
    let before = w.service.reads.length;
    const add = desk.send(previewOf([addRow(5_000)]));
    await advance(10);
    await add;
    expect(w.service.reads.slice(before, before + 1)).toEqual(["get h-2"]);
    expect((await w.log())[2]).toMatchObject({ hedgeId: "h-2", notionalBefore: 10_000 });
    // The service lost h-2 (hedge_not_found): the open hedge of the side is looked for in the list.
    await advance(2_000);
    w.service.hedges.splice(
      w.service.hedges.findIndex((h) => h.id === "h-2"),
      1,
    );
    w.service.seed({ id: "h-other", notional_usd: 40_000 });
    before = w.service.reads.length;
    const again = desk.send(previewOf([addRow(1_000)]));
    await advance(10);
    await again;
    expect(w.service.reads.slice(before, before + 2)).toEqual(["get h-2", "list status=filled limit=500"]);
    expect((await w.log())[3]).toMatchObject({ hedgeId: "h-other", notionalBefore: 40_000 });
    // A read that fails otherwise is trouble: nothing is sent until it can be read.
    await advance(2_000);
    w.service.failReads(1);
    const third = desk.send(previewOf([addRow(2_000)]));
    await advance(10);
    expect((await third).rows[0]).toMatchObject({ status: "submitting", errorCode: "service_unavailable" });
    await advance(BACKOFF_MS[0]);
    expect((await w.log())[4]).toMatchObject({ status: "filled", hedgeId: "h-other", notionalBefore: 41_000 });
  });

  it("after a Close, the side's next Add is not sent to the closed hedge: nothing is open, so it is rejected unsent", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row({ action: "close", notional: null, tenor: null, clientReference: null }), addRow(5_000)]));
    await advance(2_000);
    const { rows } = await sending;
    expect(rows.map((r) => r.status)).toEqual(["closed", "rejected"]);
    expect(w.service.posts.map((p) => p.op)).toEqual(["close"]);
  });

  it("a failed read of the side's hedge before a send is trouble, not a send: asked again, then sent once", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    w.service.failReads(1, "service_unavailable");
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(5_000)]));
    await advance(10);
    expect((await sending).rows[0]).toMatchObject({ status: "submitting", errorCode: "service_unavailable" });
    expect(w.service.posts).toEqual([]);
    await advance(BACKOFF_MS[0]);
    expect(w.service.posts).toHaveLength(1);
    expect((await w.log())[0]).toMatchObject({ status: "filled", notionalBefore: 100_000 });
  });

  it("a service that ignores the page cursor is not paged through 20 times before a send", async () => {
    const w = world();
    for (let i = 0; i < 500; i++) w.service.seed({ market: `USDTX${i}` });
    const client = w.service.client();
    const list = client.list.bind(client);
    client.list = (query = {}, signal) => list({ ...query, starting_after: undefined }, signal);
    const desk = await w.desk({ client });
    const sending = desk.send(previewOf([addRow(5_000)]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({ status: "rejected", errorCode: "no_open_hedge" });
    expect(w.service.reads.filter((r) => r.startsWith("list status="))).toHaveLength(3);
  });

  it("one poll per interval however many sends start while rows are being followed", async () => {
    const w = world();
    const desk = await w.desk({ pollIntervalMs: 1_000 });
    const first = desk.send(previewOf([row()]));
    await advance(100);
    expect((await first).rows[0].status).toBe("submitted");
    await advance(1_000); // following it: a poll a second
    const polls = () => w.service.reads.filter((r) => r.startsWith("list status=submitted")).length;
    const before = polls();
    for (const [i, side] of (["sell", "buy"] as const).entries()) {
      await desk.send(previewOf([row({ side, market: `USDTX${i}`, clientReference: `S-${i}` })]));
      await advance(50);
    }
    // Two sends within 100 ms add no poll of their own: the next one comes at its time.
    expect(polls()).toBe(before);
    await advance(1_000);
    expect(polls()).toBe(before + 1);
  });

  it("a pane closed while a row is followed, and shown again: Resume follows it to its fill", async () => {
    const w = world();
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0].status).toBe("submitted");
    desk.stop();
    await desk.resume();
    w.service.fill();
    await advance(3_000);
    expect((await w.log())[0]).toMatchObject({ status: "filled" });
  });

  it("a poll interval under 250 ms is taken as 250 ms", async () => {
    const w = world();
    await w.journalled(row(), { sentAt: iso(START), status: "submitted", hedgeId: "h-1" });
    w.service.seed({ id: "h-1", client_reference: "D-1", notional_usd: 10_000, status: "submitted", opened_at: iso(START) });
    const desk = await w.desk({ pollIntervalMs: 10 });
    await desk.resume();
    await advance(1_000);
    const polls = w.service.reads.filter((r) => r.startsWith("list status=submitted")).length;
    expect(polls).toBeGreaterThanOrEqual(4);
    expect(polls).toBeLessThanOrEqual(5);
  });

  it("opening with many unfinished rows asks about a few at a time, the newest first (the log's later row when logged together)", async () => {
    const w = world();
    const journal = new Journal(w.workbook, { store: w.store, scope: intentScope("sandbox", ACCOUNT) });
    await journal.load();
    const older = [
      { status: "submitted" as const, step: "follow" },
      { status: "needs_decision" as const, step: "decide" },
      { status: null, step: "send" },
      { status: null, sentAt: true, step: "ask" },
    ].map((o, i) => {
      // Logged an hour before the others, a minute apart, newest first: the log's order is not the time order.
      const intent = intentFromRow(row({ market: `OLD${i}` }), `old-${i}`, "sandbox", iso(START - 3_600_000 - i * 60_000), ACCOUNT);
      intent.keyId = KEY_ID;
      return { intent, o };
    });
    // Logged together, with the older ones in the middle of them: the first of them is the one left unasked.
    const newer = Array.from({ length: INSPECT_ASK_MAX + 1 }, (_, i) => {
      const intent = intentFromRow(row({ market: `NEW${i}` }), `new-${i}`, "sandbox", iso(START), ACCOUNT);
      intent.keyId = KEY_ID;
      return intent;
    });
    await journal.append(newer.slice(0, 50));
    await journal.append(older.map((x) => x.intent));
    await journal.append(newer.slice(50));
    for (const { intent, o } of older)
      journal.update(intent, { ...(o.status ? { status: o.status } : {}), ...(o.sentAt ? { sentAt: iso(START - 3_600_000) } : {}) });
    await journal.flush();
    const desk = await w.desk({ concurrency: 3 });
    const plan = await desk.inspect();
    const notAsked = `Not asked yet (the newest ${INSPECT_ASK_MAX} rows are).`;
    expect(plan.items.map((i) => i.row.idempotencyKey)).toEqual(
      [...newer.slice(0, 50), ...older.map((x) => x.intent), ...newer.slice(50)].map((i) => i.idempotencyKey),
    );
    expect(plan.items.filter((i) => i.serviceSays === notAsked).map((i) => [i.row.idempotencyKey, i.step, i.detail])).toEqual([
      ["new-0", "send", "Resume asks the service about it before doing anything."],
      ...older.map(({ intent, o }) => [intent.idempotencyKey, o.step, "Resume asks the service about it before doing anything."]),
    ]);
    expect(plan.items[1]).toMatchObject({ step: "send", serviceSays: expect.stringMatching(/^No hedge with client reference D-1/) });
    expect(w.service.maxReadsInFlight).toBe(3);
  });

  it("another workbook's unfinished row is listed with that workbook's name, never written into this one, and dismissed here on the user's word", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START) });
    const other = new MemoryWorkbook({ sheets: { Budget: [["Cost centre"]] }, name: "Budget 2027.xlsx" });
    const desk = await w.desk({ workbook: other });
    const plan = await desk.inspect();
    expect(plan.items).toEqual([]);
    expect(plan.missing).toEqual([]);
    expect(plan.otherWorkbooks).toEqual([{ row: expect.objectContaining({ idempotencyKey: r.idempotencyKey }), workbookName: null }]);
    await desk.resume();
    expect(await desk.restore([r.idempotencyKey])).toEqual([]);
    expect(other.sheetNames()).toEqual(["Budget"]);
    expect(w.service.posts).toEqual([]);
    expect(await desk.dismiss([r.idempotencyKey])).toEqual([expect.objectContaining({ idempotencyKey: r.idempotencyKey })]);
    expect((await desk.inspect()).otherWorkbooks).toEqual([]);
  });

  it("rows of this computer's journal that the log lost are listed, and restored on the user's word", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START), status: "filled", hedgeId: "h-1" });
    // The same file with its log gone (its id is saved in it): a final row is listed, not written back unasked. Its log
    // holds none of this computer's rows of the workbook, so it is asked about as a copy's (issue 40).
    const emptied = new MemoryWorkbook({ customProperties: Object.fromEntries(w.workbook.customProperties) });
    const desk = await w.desk({ workbook: emptied });
    const plan = await desk.inspect();
    // Neither file was ever saved: no name for either (the pane says "never saved"), never a made-up one.
    expect(plan.copied).toEqual({
      fileName: "",
      rows: [{ row: expect.objectContaining({ idempotencyKey: r.idempotencyKey, status: "filled" }), workbookName: "" }],
    });
    expect(await desk.restore([r.idempotencyKey])).toEqual([expect.objectContaining({ idempotencyKey: r.idempotencyKey })]);
    expect(await emptied.readLog()).toEqual([expect.objectContaining({ idempotencyKey: r.idempotencyKey, status: "filled" })]);
  });
});
