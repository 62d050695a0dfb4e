// The user's word on a row that needs a decision at the desk: It was done, It was not done, and which rows may be decided.
import { Journal } from "../../../src/trading/journal";
import { MISMATCH_LIMIT_MS, MISMATCH_MIN_MS } from "../../../src/trading/desk/rule";
import { intentFromRow, intentToLogRecord } from "../../../src/trading/intent";
import { ACCOUNT } from "../../support/fake-service";
import { START, iso, row, addRow, previewOf, type World, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("the user's word on a row that needs a decision", () => {
  /** An Add sent with its answer lost, which the service shows as something else: the user decides. */
  async function waiting(w: World, hedge: { notional_usd: number; status?: "filled" | "closed" }, action: "add" | "close" = "add") {
    const h = w.service.seed({ notional_usd: hedge.notional_usd, status: hedge.status ?? "filled" });
    const r = await w.journalled(action === "add" ? addRow(25_000) : row({ action: "close", notional: null, tenor: null }), {
      sentAt: iso(START - 20 * 60_000),
      hedgeId: h.id,
      notionalBefore: 100_000,
    });
    await w.journalled(addRow(1_000), {}, { key: "behind" });
    const desk = await w.desk();
    await desk.resume();
    await advance(MISMATCH_MIN_MS + 1_000);
    return { desk, r, h };
  }

  it("It was not done: the row is not sent, ever, and the row queued behind it on the side goes", async () => {
    const w = world();
    const { desk, r } = await waiting(w, { notional_usd: 100_000 });
    expect((await byKey(w, r.idempotencyKey)).status).toBe("needs_decision");
    // Why it waits, as the pane's list of rows to decide shows it.
    expect(desk.needsDecision()).toEqual([
      expect.objectContaining({
        idempotencyKey: r.idempotencyKey,
        parkedFor:
          "Hedge h-1 is filled at 100,000.00 USD. Its notional is the one before this row. It was sent 20 min ago: the service may have forgotten its idempotency key, so a re-send could act a second time.",
      }),
    ]);
    expect(desk.pending()).toEqual([]);
    expect(desk.waits()).toEqual([
      expect.objectContaining({ reason: "needs_decision", queued: 1, row: expect.objectContaining({ idempotencyKey: r.idempotencyKey }) }),
    ]);
    expect(w.service.posts).toEqual([]);
    const decided = await desk.decide(r.idempotencyKey, "not_done");
    // Decided, the row no longer says why it waited (the pane's list of rows to decide shows that reason).
    expect(decided).toMatchObject({
      status: "not_sent",
      errorCode: null,
      parkedFor: null,
      message: "Marked not sent by the user (2025-03-04 05:06:38 UTC): nothing is sent for this row.",
    });
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "not_sent", decision: "not done", decidedAt: iso(Date.now()) });
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual(["behind"]);
    expect(await byKey(w, "behind")).toMatchObject({ status: "filled", notionalBefore: 100_000 });
    await expect(desk.decide(r.idempotencyKey, "done")).rejects.toThrow("That row is already final (not_sent): nothing to decide.");
  });

  it("a side waiting for a decision holds only itself: another side's row is in progress, and send() waits for its answer", async () => {
    const w = world();
    const { desk, r } = await waiting(w, { notional_usd: 100_000 });
    expect((await byKey(w, r.idempotencyKey)).status).toBe("needs_decision");
    let answer: () => void = () => undefined;
    w.service.onPost = () => new Promise<void>((resolve) => (answer = resolve));
    let returned = false;
    const sending = desk.send(previewOf([row({ side: "sell", clientReference: "S-1" })])).then((x) => ((returned = true), x));
    await advance(100);
    expect(desk.pending()).toEqual([expect.objectContaining({ side: "sell", status: "submitting" })]);
    expect(returned).toBe(false);
    answer();
    await advance(100);
    expect((await sending).rows).toEqual([expect.objectContaining({ side: "sell", status: "submitted" })]);
    expect(desk.pending()).toEqual([expect.objectContaining({ side: "sell", status: "submitted" })]);
  });

  it("a row of the same send behind one that comes to need a decision does not hold send(): it returns with both", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 100_000 });
    // The first Add's answer is lost; meanwhile someone else's trade moves the hedge by an amount this row cannot explain.
    w.service.fail("add", { code: "network_error", status: null, acted: false });
    w.service.onPost = () => {
      w.service.onPost = null;
      h.notional_usd = 107_000;
    };
    const desk = await w.desk();
    let returned = false;
    const sending = desk.send(previewOf([addRow(25_000), addRow(5_000, { rowNumber: 3 })])).then((x) => ((returned = true), x));
    await advance(MISMATCH_LIMIT_MS + 60_000);
    expect(returned).toBe(true);
    expect((await sending).rows.map((r) => r.status)).toEqual(["needs_decision", "submitting"]);
    expect(w.service.posts).toHaveLength(1);
  });

  it("a decision waited on by a later row of the side does not hold an earlier one: that one is still in progress", async () => {
    const w = world();
    w.service.seed({ notional_usd: 110_000 });
    const earlier = await w.journalled(
      addRow(25_000),
      { sentAt: iso(START), hedgeId: "h-1", notionalBefore: 100_000 },
      { loggedAt: iso(START - 60_000) },
    );
    const later = await w.journalled(addRow(1_000), { status: "needs_decision" });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(desk.pending()).toEqual([expect.objectContaining({ idempotencyKey: earlier.idempotencyKey, status: "submitting" })]);
    expect(desk.needsDecision()).toEqual([expect.objectContaining({ idempotencyKey: later.idempotencyKey })]);
  });

  it("It was done, and the service shows the effect: the row takes the service's state", async () => {
    const w = world();
    const { desk, r, h } = await waiting(w, { notional_usd: 100_000 });
    h.notional_usd = 125_000; // the fill arrives before the user answers
    const decided = await desk.decide(r.idempotencyKey, "done");
    expect(decided).toMatchObject({ status: "filled", message: "Filled: hedge notional now 125,000.00 USD." });
    expect((await byKey(w, r.idempotencyKey)).decision).toBe("done: Hedge h-1 is filled at 125,000.00 USD.");
    expect(w.service.posts).toEqual([]);
  });

  it("It was done on a row another computer sent, which the service shows took effect: recorded as the service shows it, without asking to confirm", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 125_000 });
    const theirs = intentFromRow(addRow(25_000), "theirs", "sandbox", iso(START - 3_600_000), ACCOUNT);
    await w.workbook.appendLog([
      { ...intentToLogRecord(theirs), status: "needs_decision", sentAt: iso(START - 3_600_000), hedgeId: h.id, notionalBefore: 100_000 },
    ]);
    const desk = await w.desk();
    await desk.inspect();
    expect(await desk.decide("theirs", "done")).toMatchObject({ status: "filled", message: "Filled: hedge notional now 125,000.00 USD." });
    expect(await byKey(w, "theirs")).toMatchObject({ status: "filled", decision: "done: Hedge h-1 is filled at 125,000.00 USD." });
    expect(w.service.posts).toEqual([]);
  });

  it("It was done, but the hedge ended without it: the service's word wins, the row failed", async () => {
    const w = world();
    const { desk, r, h } = await waiting(w, { notional_usd: 100_000 });
    w.service.end(h);
    expect(await desk.decide(r.idempotencyKey, "done")).toMatchObject({
      status: "failed",
      message: expect.stringMatching(
        /^The service shows it had no effect: Hedge h-1 is closed\. Since the row: close of 100,000\.00 USD\. It closed at the size it had before this add\.$/,
      ),
    });
  });

  it("It was done, and the service shows something else or cannot be asked: the user's word stands", async () => {
    const w = world();
    const { desk, r } = await waiting(w, { notional_usd: 110_000 });
    expect(await desk.decide(r.idempotencyKey, "done")).toMatchObject({
      status: "filled",
      message: expect.stringMatching(
        /^Marked done by the user; the service showed: Hedge h-1 is filled at 110,000\.00 USD\. Before this row/,
      ),
    });
    const w2 = world();
    const close = await waiting(w2, { notional_usd: 100_000 }, "close");
    expect((await byKey(w2, close.r.idempotencyKey)).status).toBe("needs_decision");
    w2.service.failReads(1);
    expect(await close.desk.decide(close.r.idempotencyKey, "done")).toMatchObject({
      status: "closed",
      message: "Marked done by the user; the service showed: The service could not be asked.",
    });
    expect((await byKey(w2, close.r.idempotencyKey)).decision).toBe("done: The service could not be asked.");
  });

  it("a decision is refused for a row it does not apply to, and says why", async () => {
    const w = world();
    const mine = await w.journalled(row(), { sentAt: iso(START) });
    const theirs = intentFromRow(row({ side: "sell" }), "theirs", "sandbox", iso(START), "0x00000000000000000000000000000000000000bb");
    const live = intentFromRow(row({ side: "sell", market: "USDTXAF" }), "live", "production", iso(START), ACCOUNT);
    await new Journal(w.workbook).append([theirs, live]);
    const desk = await w.desk();
    await expect(desk.decide("nope", "done")).rejects.toThrow("No unfinished row with idempotency key nope in the Hedge Log.");
    for (const key of ["theirs", "live"])
      await expect(desk.decide(key, "done")).rejects.toThrow(
        "That row belongs to another account or environment: decide it with that account's key.",
      );
    w.service.failReads(1);
    await desk.resume();
    await advance(10);
    await expect(desk.decide(mine.idempotencyKey, "not_done")).rejects.toThrow(
      "The add-in is still working on that row (it needs no decision): wait for its outcome.",
    );
    expect((await byKey(w, mine.idempotencyKey)).status).toBe("submitting");
  });

  it("a row not taken up yet can be decided from the list: marked not sent, without asking or sending anything", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START - 3_600_000) });
    const desk = await w.desk();
    await desk.inspect();
    const reads = w.service.reads.length;
    expect(await desk.decide(r.idempotencyKey, "not_done")).toMatchObject({ status: "not_sent" });
    expect(w.service.reads).toHaveLength(reads);
    expect(w.service.posts).toEqual([]);
    // A row of an older log without an account becomes this account's when decided.
    const unclaimed = intentFromRow(row({ side: "sell" }), "unclaimed", "sandbox", iso(START), null);
    await new Journal(w.workbook).append([unclaimed]);
    await desk.inspect();
    expect(await desk.decide("unclaimed", "not_done")).toMatchObject({ status: "not_sent", account: ACCOUNT });
    expect(await byKey(w, "unclaimed")).toMatchObject({ status: "not_sent", account: ACCOUNT });
    // A row logged under this account written in capitals is this account's: decided, it keeps its account as logged.
    const capitals = intentFromRow(row({ side: "sell", market: "USDTKES" }), "capitals", "sandbox", iso(START), ACCOUNT.toUpperCase());
    await new Journal(w.workbook).append([capitals]);
    await desk.inspect();
    expect(await desk.decide("capitals", "not_done")).toMatchObject({ status: "not_sent", account: ACCOUNT.toUpperCase() });
    expect(await byKey(w, "capitals")).toMatchObject({ status: "not_sent", account: ACCOUNT.toUpperCase() });
  });

  it("It was done on an open the service accepted but has not filled: followed until it fills", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START - 20 * 60_000) }, { keyId: null });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("needs_decision");
    w.service.seed({ client_reference: "D-1", notional_usd: 10_000, status: "submitted", opened_at: iso(START), filled_at: null });
    expect(await desk.decide(r.idempotencyKey, "done")).toMatchObject({ status: "submitted" });
    w.service.fill();
    await advance(2_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "filled", fillTxHash: "0xf-h-1" });
    expect(w.service.posts).toEqual([]);
  });

  it("It was not done on a desk stopped meanwhile (the pane closed its panel): the decision starts it again, and the row queued behind goes", async () => {
    const w = world();
    const { desk, r } = await waiting(w, { notional_usd: 100_000 });
    desk.stop();
    expect(await desk.decide(r.idempotencyKey, "not_done")).toMatchObject({ status: "not_sent" });
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual(["behind"]);
  });

  it("It was done on a desk stopped meanwhile (the pane closed its panel): the decision starts it again, and the accepted open is followed until it fills", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START - 20 * 60_000) }, { keyId: null });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    desk.stop();
    w.service.seed({ client_reference: "D-1", notional_usd: 10_000, status: "submitted", opened_at: iso(START), filled_at: null });
    expect(await desk.decide(r.idempotencyKey, "done")).toMatchObject({ status: "submitted" });
    w.service.fill();
    await advance(2_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "filled", fillTxHash: "0xf-h-1" });
  });
});
