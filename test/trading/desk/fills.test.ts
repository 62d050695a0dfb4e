// Following rows the service accepted until they are final: polls, hedge_not_found and mismatches counted, a stopped desk silent.
import { MISMATCH_LIMIT_MS, MISMATCH_MIN_MS } from "../../../src/trading/desk/rule";
import { START, iso, row, addRow, previewOf, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("following rows the service accepted until they are final", () => {
  it("hedge_not_found while following: asked again for at least 30 s and 5 rounds, then the user decides", async () => {
    const w = world();
    const r = await w.journalled(addRow(25_000), { sentAt: iso(START), status: "submitted", hedgeId: "h-gone", notionalBefore: 100_000 });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({
      status: "submitted",
      errorCode: "hedge_not_found",
      message: "The service does not know hedge h-gone yet: asking again.",
    });
    await advance(MISMATCH_MIN_MS - 1_000);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("submitted");
    await advance(2_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "needs_decision" });
    expect((await byKey(w, r.idempotencyKey)).message).toMatch(
      /^Needs your decision: The service does not know hedge h-gone \(hedge_not_found\), asked 3\d times\./,
    );
    expect(w.service.posts).toEqual([]);
  });

  it("hedge_not_found, then the accepted hedge shown as it should be: the doubt is over, and a later hedge_not_found starts a new count", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START), status: "submitted", hedgeId: "h-1" });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "submitted", errorCode: "hedge_not_found" });
    w.service.seed({
      id: "h-1",
      status: "submitted",
      client_reference: "D-1",
      notional_usd: 10_000,
      opened_at: iso(START),
      filled_at: null,
    });
    await advance(1_000);
    const shown = await byKey(w, r.idempotencyKey);
    expect(shown).toMatchObject({ status: "submitted", errorCode: null });
    expect(shown.message).not.toMatch(/does not know/);
    // Three minutes later (past the 2 min cap of one count of doubt) the service loses it once: asked again, not parked.
    await advance(3 * 60_000);
    w.service.hedges.splice(
      w.service.hedges.findIndex((h) => h.id === "h-1"),
      1,
    );
    await advance(1_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "submitted", errorCode: "hedge_not_found" });
  });

  it("hedge_not_found asked slowly (a 10 s poll): 30 s are not enough without 5 rounds; the 5th round parks it; 2 min park it whatever the rounds", async () => {
    const w = world();
    const r = await w.journalled(addRow(25_000), { sentAt: iso(START), status: "submitted", hedgeId: "h-gone", notionalBefore: 100_000 });
    const desk = await w.desk({ pollIntervalMs: 10_000 });
    await desk.resume();
    const asked = () => w.service.reads.filter((x) => x === "get h-gone").length;
    await advance(35_000); // rounds at 0, 10, 20, 30 s
    expect([asked(), (await byKey(w, r.idempotencyKey)).status]).toEqual([4, "submitted"]);
    await advance(10_000); // the 5th round, at 40 s
    expect([asked(), (await byKey(w, r.idempotencyKey)).status]).toEqual([5, "needs_decision"]);

    // Polled every 40 s, the 4th round falls at exactly 2 min: that is enough.
    const w2 = world();
    const r2 = await w2.journalled(addRow(25_000), { sentAt: iso(START), status: "submitted", hedgeId: "h-gone", notionalBefore: 100_000 });
    const desk2 = await w2.desk({ pollIntervalMs: 40_000 });
    await desk2.resume();
    await advance(MISMATCH_LIMIT_MS + 100);
    expect((await byKey(w2, r2.idempotencyKey)).status).toBe("needs_decision");
  });

  it("an Add whose hedge closed at the size it had before is dropped (failed); one not filled yet is waited for", async () => {
    const w = world();
    const dropped = w.service.seed({ notional_usd: 100_000 });
    const waitingHedge = w.service.seed({ side: "sell", notional_usd: 100_000 });
    const a = await w.journalled(addRow(25_000), { sentAt: iso(START), status: "submitted", hedgeId: dropped.id, notionalBefore: 100_000 });
    const b = await w.journalled(addRow(25_000, { side: "sell" }), {
      sentAt: iso(START),
      status: "submitted",
      hedgeId: waitingHedge.id,
      notionalBefore: 100_000,
    });
    w.service.end(dropped);
    const desk = await w.desk();
    await desk.resume();
    await advance(5_000);
    expect(await byKey(w, a.idempotencyKey)).toMatchObject({
      status: "failed",
      message:
        "The hedge ended before this add took effect: it was dropped (nothing happened). Hedge h-1 is closed. Since the row: close of 100,000.00 USD. It closed at the size it had before this add.",
    });
    expect(await byKey(w, b.idempotencyKey)).toMatchObject({ status: "submitted", errorCode: null });
    waitingHedge.notional_usd = 125_000;
    await advance(1_000);
    expect(await byKey(w, b.idempotencyKey)).toMatchObject({ status: "filled", message: "Filled: hedge notional now 125,000.00 USD." });
    expect(w.service.posts).toEqual([]);
  });

  it("a hedge that stops matching the row while followed: asked for 30 s, then the user decides", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 110_000 });
    const r = await w.journalled(addRow(25_000), { sentAt: iso(START), status: "submitted", hedgeId: h.id, notionalBefore: 100_000 });
    const desk = await w.desk();
    await desk.resume();
    await advance(MISMATCH_MIN_MS - 1_000);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("submitted");
    await advance(2_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "needs_decision" });
    expect((await byKey(w, r.idempotencyKey)).message).toMatch(/the change does not match the row/);
  });

  it("an accepted open whose answer had no hedge id gets it from the service, and polling stops once every row is final", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START), status: "submitted" });
    w.service.seed({
      id: "h-new",
      client_reference: "D-1",
      notional_usd: 10_000,
      status: "submitted",
      opened_at: iso(START),
      filled_at: null,
    });
    const desk = await w.desk();
    await desk.resume();
    await advance(1_500);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({
      status: "submitted",
      hedgeId: "h-new",
      message: "Submitted: waiting for the fill.",
    });
    w.service.fill();
    await advance(1_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "filled", hedgeId: "h-new" });
    const reads = w.service.reads.length;
    await advance(30_000);
    expect(w.service.reads).toHaveLength(reads);
  });

  it("a stopped desk (the pane closed) sends and reads nothing more", async () => {
    const w = world();
    w.service.fail("open", { code: "service_unavailable" });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    await sending;
    desk.stop();
    const reads = w.service.reads.length;
    await advance(60_000);
    expect(w.service.posts).toHaveLength(1);
    expect(w.service.reads).toHaveLength(reads);
    expect((await w.log())[0].status).toBe("submitting");
  });
});
