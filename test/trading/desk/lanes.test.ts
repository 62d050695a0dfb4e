// One row at a time per market side: a side's rows leave in order, what waits on what (the preview says so), and a side judged as a chain.
import { Journal } from "../../../src/trading/journal";
import { MISMATCH_LIMIT_MS } from "../../../src/trading/desk/rule";
import { intentFromRow, intentToLogRecord } from "../../../src/trading/intent";
import type { LogRecord } from "../../../src/trading/log/hedge-log";
import type { TradeRow } from "../../../src/trading/types";
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { ACCOUNT } from "../../support/fake-service";
import { START, iso, row, addRow, previewOf, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("one row at a time per market side", () => {
  it("another account's unfinished row in the same log does not hold back this account's side (a desk without this computer's journal)", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const theirs = intentFromRow(row(), "theirs", "sandbox", iso(START), "0x00000000000000000000000000000000000000bb");
    await new Journal(w.workbook).append([theirs]);
    const desk = await w.desk({ intentStore: undefined });
    expect(desk.waits()).toEqual([]);
    const sent = desk.send(previewOf([row({ clientReference: "MINE" })]));
    await advance(2_000);
    expect((await sent).rows[0]).toMatchObject({ status: "submitted" });
    expect(w.service.posts.map((p) => p.body.client_reference)).toEqual(["MINE"]);
  });

  it("an Add acts on the side's open hedge: read by id after a row of the side that finished on it, found anew once that hedge is closed", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const h1 = w.service.seed({ notional_usd: 100_000 });
    w.service.seed({ side: "sell", notional_usd: 50_000 });
    const desk = await w.desk();
    const first = desk.send(previewOf([addRow(1_000)]));
    await advance(2_000);
    expect((await first).rows[0]).toMatchObject({ hedgeId: h1.id });
    expect((await w.log())[0]).toMatchObject({ status: "filled", hedgeId: h1.id });
    // A second Add on the side: the hedge the first acted on is read by id; the other side's hedge is not read at all.
    w.service.reads.length = 0;
    const second = desk.send(previewOf([addRow(2_000, { rowNumber: 3 }), addRow(3_000, { rowNumber: 4, side: "sell" })]));
    await advance(2_000);
    await second;
    expect(w.service.reads.filter((r) => r.startsWith("get "))).toEqual([`get ${h1.id}`]);
    // The hedge is closed elsewhere and a new one opened on the side: the next Add acts on the new one.
    h1.status = "closed";
    const h3 = w.service.seed({ notional_usd: 70_000 });
    const third = desk.send(previewOf([addRow(4_000, { rowNumber: 5 })]));
    await advance(2_000);
    await third;
    expect((await w.log()).at(-1)).toMatchObject({ hedgeId: h3.id, notionalBefore: 70_000, status: "filled" });
  });

  it("an Add acts on the side's filled hedge, else its accepted one, never a closed one", async () => {
    const w = world();
    const filled = w.service.seed({ notional_usd: 100_000 });
    w.service.seed({ notional_usd: 90_000, status: "closed" }); // newer, closed
    const accepted = w.service.seed({ side: "sell", notional_usd: 60_000, status: "submitted", filled_at: null });
    w.service.seed({ side: "sell", notional_usd: 80_000, status: "closed" });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(1_000), addRow(2_000, { rowNumber: 3, side: "sell" })]));
    await advance(100);
    await sending;
    expect((await w.log()).map((r) => [r.side, r.hedgeId, r.notionalBefore])).toEqual([
      ["buy", filled.id, 100_000],
      ["sell", accepted.id, 60_000],
    ]);
  });

  it("an Add whose side's hedge cannot be read is not sent, and says it is not confirmed (not that the service may have acted)", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    w.service.failReads(2);
    const desk = await w.desk();
    void desk.send(previewOf([addRow(1_000)]));
    await advance(100);
    expect(w.service.posts).toEqual([]);
    expect((await w.log())[0]).toMatchObject({ status: "submitting", sentAt: null, errorCode: "service_unavailable" });
    expect((await w.log())[0].message).toMatch(/^Not confirmed yet \(service_unavailable\)/);
    await advance(5_000);
    expect(w.service.posts).toHaveLength(1);
  });

  it("waits() names the side a row queues behind, and leaves out a side with nothing queued", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    w.service.seed({ side: "sell", notional_usd: 100_000 });
    const release = w.holdAnswers();
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(1_000), addRow(2_000, { rowNumber: 3 }), addRow(3_000, { rowNumber: 4, side: "sell" })]));
    await advance(100);
    expect(desk.waits()).toEqual([
      {
        market: "USDTNGN",
        side: "buy",
        row: expect.objectContaining({ rowNumber: 2, status: "submitting" }),
        queued: 1,
        next: expect.objectContaining({ rowNumber: 3, status: "submitting" }),
        reason: "in_progress",
      },
    ]);
    release();
    await advance(100);
    await sending;
    await advance(10_000);
    expect((await w.log()).map((r) => r.status)).toEqual(["filled", "filled", "filled"]);
    // All final: the desk is idle and leaves no timer behind (no wake-ups while Excel sits there).
    expect(desk.waits()).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it("waits() names a side whose row waits for a decision even with nothing queued behind it; needsDecision() lists it, and rows of earlier sessions", async () => {
    const w = world();
    const earlier = await w.journalled(row({ side: "sell" }), { status: "needs_decision", sentAt: iso(START - 3_600_000) });
    const desk = await w.desk({ newKey: () => "" });
    await desk.inspect();
    expect(desk.needsDecision().map((r) => r.idempotencyKey)).toEqual([earlier.idempotencyKey]);
    const { rows } = await Promise.all([desk.send(previewOf([row()])), advance(100)]).then(([sent]) => sent);
    expect(desk.waits()).toEqual([
      {
        market: "USDTNGN",
        side: "buy",
        row: expect.objectContaining({ rowNumber: 2, status: "needs_decision" }),
        queued: 0,
        next: null,
        reason: "needs_decision",
      },
    ]);
    expect(desk.needsDecision().map((r) => r.idempotencyKey)).toEqual([earlier.idempotencyKey, rows[0].idempotencyKey]);
  });

  it("a side's second row leaves once its first is final, against the notional the first left; other sides go at once", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    w.service.seed({ side: "sell", notional_usd: 50_000 });
    const firstWhenSecondLeft: LogRecord[] = [];
    w.service.onPost = async (p) => {
      if (p.key === "new-key-2") firstWhenSecondLeft.push(await byKey(w, "new-key-1"));
    };
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000), addRow(5_000), addRow(1_000, { side: "sell" })]));
    await advance(2_000);
    await sending;
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1", "new-key-3", "new-key-2"]);
    expect(firstWhenSecondLeft).toEqual([expect.objectContaining({ status: "filled" })]);
    expect((await w.log()).map((r) => [r.status, r.notionalBefore])).toEqual([
      ["filled", 100_000],
      ["filled", 125_000],
      ["filled", 50_000],
    ]);
    expect(desk.waits()).toEqual([]);
  });

  it("send() skips what cannot go now and says why: blocked lines, duplicates, and sides waiting for a decision or a resume", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    w.service.seed({ side: "sell", notional_usd: 100_000 });
    const decide = await w.journalled(
      addRow(1_000),
      { sentAt: iso(START - 3_600_000), hedgeId: "h-1", notionalBefore: 100_000 },
      { loggedAt: iso(START - 3_600_000) },
    );
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect((await byKey(w, decide.idempotencyKey)).status).toBe("needs_decision");
    // A row another pane journalled meanwhile, not taken up by this one.
    desk.stop();
    await w.journalled(addRow(1_000, { market: "USDTXAF" }), {}, { loggedAt: iso(START - 60_000) });
    const desk2 = await w.desk();
    const preview = previewOf([
      addRow(1, { rowNumber: 3 }),
      addRow(2, { rowNumber: 4, market: "USDTXAF" }),
      addRow(3, { rowNumber: 5, side: "sell" }),
      addRow(4, { rowNumber: 6, side: "sell" }),
      addRow(5, { rowNumber: 7, side: "sell" }),
    ]);
    preview.lines[2].blockers = ["Row 5: over the capacity.", "Balance too low for its collateral."];
    preview.lines[3].duplicateOf = {
      idempotencyKey: "old-key",
      loggedAt: iso(START - 60_000),
      status: "filled",
      hedgeId: null,
      reason: "same_day",
    };
    const sending = desk2.send(preview);
    await advance(100);
    const result = await sending;
    expect(result.skipped).toEqual([
      {
        rowNumber: 3,
        reason: `USDTNGN buy waits for your decision on the add logged 2025-03-04 04:06:07 UTC: decide it under Unfinished rows first.`,
      },
      {
        rowNumber: 4,
        reason: "USDTXAF buy has an unfinished row, the add logged 2025-03-04 05:05:07 UTC: resume it under Unfinished rows first.",
      },
      { rowNumber: 5, reason: "Row 5: over the capacity. Balance too low for its collateral." },
      {
        rowNumber: 6,
        reason: 'Already in the log (filled, logged 2025-03-04 05:05:07 UTC, key old-key): tick "send again" to send it anyway.',
      },
    ]);
    expect(result.rows.map((r) => r.notional)).toEqual([5]);
    // A send in which nothing can go writes nothing: no Excel call, no write to this computer's journal, no request.
    const [calls, writes, posts] = [w.workbook.calls, w.store.writes, w.service.posts.length];
    const nothing = await desk2.send({ ...preview, lines: [preview.lines[2], preview.lines[3]] });
    expect(nothing).toEqual({ rows: [], skipped: result.skipped.slice(2) });
    expect([w.workbook.calls, w.store.writes, w.service.posts.length]).toEqual([calls, writes, posts]);
    // The duplicate goes when the user ticks "send again" (it waits its turn behind the row just sent on its side).
    const again = desk2.send({ ...preview, lines: [preview.lines[3]] }, { sendAgain: true });
    await advance(100);
    expect((await again).rows.map((r) => r.notional)).toEqual([4]);
  });

  it("a preview for another environment, or with batch blockers, sends nothing", async () => {
    const w = world();
    const desk = await w.desk();
    await expect(desk.send({ ...previewOf([row()]), environment: "production" })).rejects.toThrow(
      "This preview was made for production, but the desk trades in sandbox: preview again. Nothing was sent.",
    );
    await expect(desk.send({ ...previewOf([row()]), blockers: ["Balance too low.", "Exposure too high."] })).rejects.toThrow(
      "Nothing was sent: Balance too low. Exposure too high.",
    );
    expect(await desk.send({ ...previewOf([row()]), lines: [] })).toEqual({ rows: [], skipped: [] });
    expect(w.service.posts).toEqual([]);
  });
});

describe("the preview says which row a market side waits on", () => {
  const reasons = async (desk: TradingDesk, side: "buy" | "sell" = "buy") => {
    const p = await desk.preview("close", [row({ action: "close", notional: null, tenor: null, side, clientReference: null })]);
    return { blockers: p.lines[0].blockers.filter((b) => b.includes(" UTC")), warnings: p.lines[0].warnings };
  };

  it("a row this pane works on holds the side (a warning: the new row waits its turn); a decision blocks it", async () => {
    const w = world();
    const busy = await w.journalled(row(), { sentAt: iso(START), status: "submitted", hedgeId: "h-x" });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(await reasons(desk)).toEqual({
      blockers: [],
      warnings: ["USDTNGN buy is busy with the open logged 2025-03-04 05:06:07 UTC: this row goes once that one is final."],
    });
    await w.journalled(
      addRow(1),
      { sentAt: iso(START - 3_600_000), hedgeId: "h-x", notionalBefore: 1 },
      { loggedAt: iso(START - 3_600_000) },
    );
    const desk2 = await w.desk();
    await desk2.inspect();
    expect((await reasons(desk2)).blockers).toEqual([
      "USDTNGN buy has an unfinished row, the open logged 2025-03-04 05:06:07 UTC: resume it under Unfinished rows first.",
    ]);
    await advance(MISMATCH_LIMIT_MS);
    expect(desk.needsDecision()).toEqual([expect.objectContaining({ idempotencyKey: busy.idempotencyKey, status: "needs_decision" })]);
    expect((await reasons(desk)).blockers).toEqual([
      "USDTNGN buy waits for your decision on the open logged 2025-03-04 05:06:07 UTC: decide it under Unfinished rows first.",
    ]);
  });

  it("a row only the workbook knows (planted, needing a decision) never blocks rows this computer journals: they go, and it waits alone", async () => {
    const w = world();
    const planted = intentFromRow(row({ clientReference: "PLANTED" }), "planted", "sandbox", iso(START - 60_000), ACCOUNT);
    await w.workbook.appendLog([{ ...intentToLogRecord(planted), status: "needs_decision", sentAt: iso(START - 60_000) }]);
    const desk = await w.desk();
    expect((await desk.inspect()).items.map((i) => [i.row.idempotencyKey, i.step])).toEqual([["planted", "decide"]]);
    expect((await reasons(desk)).blockers).toEqual([]);
    const h = w.service.seed({ notional_usd: 100_000 });
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    const mine = await sending;
    expect(mine.skipped).toEqual([]);
    expect(w.service.posts.map((p) => [p.op, p.key])).toEqual([["add", mine.rows[0].idempotencyKey]]);
    expect(await byKey(w, mine.rows[0].idempotencyKey)).toMatchObject({ status: "filled", hedgeId: h.id });
    expect(await byKey(w, "planted")).toMatchObject({ status: "needs_decision" });
  });

  it("'It was done' on a Close nothing shows while the service cannot be asked: the question says so; confirmed, the Close is recorded closed", async () => {
    const w = world();
    const planted = intentFromRow(
      row({ action: "close", notional: null, tenor: null }),
      "planted",
      "sandbox",
      iso(START - 60_000),
      ACCOUNT,
    );
    await w.workbook.appendLog([{ ...intentToLogRecord(planted), status: "needs_decision", sentAt: iso(START - 60_000), hedgeId: "h-9" }]);
    const desk = await w.desk();
    await desk.inspect();
    w.service.readsDownFor(60_000);
    await expect(desk.decide("planted", "done")).rejects.toMatchObject({
      name: "NothingShownError",
      code: "confirm_nothing_shown",
      message: "The service could not be asked, and this computer's journal has nothing of this row. Record it as done anyway?",
    });
    expect(await desk.decide("planted", "done", { nothingShown: true })).toMatchObject({ status: "closed" });
    expect(await byKey(w, "planted")).toMatchObject({
      status: "closed",
      decision: "done (nothing on the service)",
      message:
        "Recorded as done by the user although neither the service nor this computer's journal shows anything of it; the service showed: The service could not be asked.",
    });
    expect(w.service.posts).toEqual([]);
  });

  it("'It was done' on a row neither the service nor this computer's journal shows asks first, changing nothing; confirmed, the log says so", async () => {
    const w = world();
    const planted = intentFromRow(row({ clientReference: "PLANTED" }), "planted", "sandbox", iso(START - 60_000), ACCOUNT);
    await w.workbook.appendLog([{ ...intentToLogRecord(planted), status: "needs_decision", sentAt: iso(START - 60_000) }]);
    const desk = await w.desk();
    await desk.inspect();
    const before = await byKey(w, "planted");
    await expect(desk.decide("planted", "done")).rejects.toMatchObject({
      code: "confirm_nothing_shown",
      message: "The service shows nothing of this row. Record it as done anyway?",
    });
    await advance(1_000);
    expect(await byKey(w, "planted")).toEqual(before);
    expect(await desk.decide("planted", "done", { nothingShown: true })).toMatchObject({ status: "filled" });
    expect(await byKey(w, "planted")).toMatchObject({ status: "filled", decision: "done (nothing on the service)" });
    // A row this computer journalled and sent is decided as before: no second question.
    const sent = await w.journalled(row({ side: "sell", clientReference: "SENT" }), {
      sentAt: iso(START - 3_600_000),
      status: "needs_decision",
    });
    const desk2 = await w.desk();
    await desk2.inspect();
    expect(await desk2.decide(sent.idempotencyKey, "done")).toMatchObject({ idempotencyKey: sent.idempotencyKey });
    expect((await byKey(w, sent.idempotencyKey)).decision).toMatch(/^done: /);
  });

  it("an Add with no open hedge on its side is blocked, and says when the lists were too long to read to the end", async () => {
    const w = world();
    const desk = await w.desk();
    const blockers = async () => (await desk.preview("add", [addRow(5_000)])).lines[0].blockers;
    expect(await blockers()).toEqual(["No open hedge on USDTNGN buy: use Open first."]);
    w.service.seed({ id: "h-mine" });
    for (let i = 0; i < 10_000; i++) w.service.seed({ market: `USDTX${i}` });
    expect(await blockers()).toContain(
      "No open hedge on USDTNGN buy among the newest 10,000 filled and accepted hedges (the service lists more): check the hedge on the service.",
    );
  });

  it("rows of another account, another environment, or final ones hold nothing", async () => {
    const w = world();
    const theirs = intentFromRow(row(), "theirs", "sandbox", iso(START), "0x00000000000000000000000000000000000000bb");
    const production = intentFromRow(row(), "prod", "production", iso(START), ACCOUNT);
    await new Journal(w.workbook).append([theirs, production]);
    await w.journalled(row({ side: "sell" }), { status: "rejected" });
    const desk = await w.desk();
    expect(await reasons(desk)).toEqual({ blockers: [], warnings: [] });
    expect(await reasons(desk, "sell")).toEqual({ blockers: [], warnings: [] });
  });
});

describe("a market side judged as a chain (issue 22)", () => {
  const sell = (over: Partial<TradeRow>) => row({ side: "sell", tenor: null, clientReference: null, ...over });

  it("the crash window: an Add submitted and the Reduce after it, both executed, resolve with no decision; a Close chosen meanwhile closes the hedge", async () => {
    const w = world();
    const h = w.service.seed({ side: "sell", notional_usd: 50_000 }); // both executed: 100,000 + 50,000 − 100,000
    await w.journalled(row({ side: "sell", notional: 100_000, clientReference: "O-1" }), {
      status: "filled",
      hedgeId: h.id,
      sentAt: iso(START - 60_000),
    });
    const addRow1 = await w.journalled(sell({ action: "add", notional: 50_000 }), {
      status: "submitted",
      hedgeId: h.id,
      notionalBefore: 100_000,
      sentAt: iso(START - 50_000),
    });
    const reduce = await w.journalled(sell({ action: "reduce", notional: 100_000 }), {
      hedgeId: h.id,
      notionalBefore: 150_000,
      sentAt: iso(START - 40_000),
    });
    const desk = await w.desk();
    const plan = await desk.inspect();
    expect(plan.items.map((i) => [i.row.action, i.step])).toEqual([
      ["add", "record"],
      ["reduce", "record"],
    ]);
    expect(plan.items[0].serviceSays).toContain("The next row of this side (reduce sell 100,000.00 USD");
    await desk.resume();
    const closing = desk.send(previewOf([sell({ action: "close", notional: null })]));
    await advance(3_000);
    await closing;
    const log = await w.log();
    expect(log.map((r) => [r.action, r.status])).toEqual([
      ["open", "filled"],
      ["add", "filled"],
      ["reduce", "filled"],
      ["close", "closed"],
    ]);
    expect(desk.needsDecision()).toEqual([]);
    expect(h.status).toBe("closed");
    // Nothing was sent again: the one request is the Close's.
    expect(w.service.posts.map((p) => p.op)).toEqual(["close"]);
    expect([addRow1, reduce].map((r) => log.find((x) => x.idempotencyKey === r.idempotencyKey)!.message)).toEqual([
      "Filled: the next row of this side found the hedge at 150,000.00 USD.",
      "Filled: hedge notional now 50,000.00 USD.",
    ]);
  });

  it("an unexplained change stays unclear: the row needs your decision as before, and the Close behind it waits", async () => {
    const w = world();
    const h = w.service.seed({ side: "sell", notional_usd: 185_000 });
    const added = await w.journalled(sell({ action: "add", notional: 50_000 }), {
      status: "submitted",
      hedgeId: h.id,
      notionalBefore: 100_000,
      sentAt: iso(START - 50_000),
    });
    const desk = await w.desk();
    // On opening the accepted row is listed as followed (the service is asked again), not yet as a decision.
    expect((await desk.inspect()).items.map((i) => [i.row.idempotencyKey, i.step])).toEqual([[added.idempotencyKey, "follow"]]);
    await desk.resume();
    const closing = desk.send(previewOf([sell({ action: "close", notional: null })]));
    await advance(130_000);
    expect((await closing).rows[0].status).toBe("submitting");
    expect((await byKey(w, added.idempotencyKey)).status).toBe("needs_decision");
    expect(desk.waits()).toEqual([expect.objectContaining({ reason: "needs_decision", queued: 1 })]);
    expect(w.service.posts).toEqual([]);
  });

  it("the Unfinished rows list names a change of the hedge before a side's first unfinished row that no row explains", async () => {
    const w = world();
    // The Open left the hedge at 100,000; the Add found it at 120,000 and took effect from there.
    const h = w.service.seed({ side: "sell", notional_usd: 170_000 });
    await w.journalled(row({ side: "sell", notional: 100_000, clientReference: "O-1" }), {
      status: "filled",
      hedgeId: h.id,
      sentAt: iso(START - 60_000),
    });
    await w.journalled(sell({ action: "add", notional: 50_000 }), {
      status: "submitted",
      hedgeId: h.id,
      notionalBefore: 120_000,
      sentAt: iso(START - 50_000),
    });
    const plan = await (await w.desk()).inspect();
    expect(plan.items.map((i) => [i.row.action, i.step])).toEqual([["add", "record"]]);
    expect(plan.items[0].serviceSays).toMatch(
      /^Hedge h-1 is filled at 170,000\.00 USD\..* The open before it left the hedge at 100,000\.00 USD, but this add found it at 120,000\.00 USD: a change no row of this log explains \(another workbook or person\)\.$/,
    );
    expect(w.service.posts).toEqual([]);
  });
});
