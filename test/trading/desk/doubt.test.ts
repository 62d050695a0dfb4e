// A send whose outcome is not known: the service asked before anything is sent again, re-sent only with the same key while young, and what a failed send means.
import { HedgingApiError } from "../../../src/api/errors";
import {
  BACKOFF_MS,
  DOUBT_LIMIT_MS,
  MISMATCH_LIMIT_MS,
  MISMATCH_MIN_MS,
  RESEND_WINDOW_MS,
  classifyFailure,
  submittedMessage,
} from "../../../src/trading/desk/rule";
import { START, iso, row, addRow, previewOf, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("a send whose outcome is not known: the service is asked before anything is sent again", () => {
  it("an answer lost after the service acted: the row is found on the service and adopted, never sent twice", async () => {
    const w = world();
    w.service.fail("open", { code: "network_error", status: null, acted: true });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows).toEqual([
      expect.objectContaining({
        status: "submitting",
        errorCode: "network_error",
        message: "Not confirmed yet (network_error): the add-in asks the service before sending again with the same idempotency key.",
      }),
    ]);
    await advance(BACKOFF_MS[0]);
    w.service.fill();
    await advance(2_000);
    expect(w.service.posts).toHaveLength(1);
    expect((await w.log())[0]).toMatchObject({ status: "filled", hedgeId: "h-1", errorCode: null, fillTxHash: "0xf-h-1" });
  });

  it("an answer lost before the service acted: not on the service, so sent again with the same key, once", async () => {
    const w = world();
    w.service.fail("open", { code: "service_unavailable" });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    await sending;
    await advance(BACKOFF_MS[0]);
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1", "new-key-1"]);
    expect(w.service.reads.filter((r) => r.includes("client_reference=D-1"))).toHaveLength(1);
    expect((await w.log())[0]).toMatchObject({ status: "submitted", errorCode: null });
    await advance(60_000);
    expect(w.service.posts).toHaveLength(2);
  });

  it("while the service cannot be asked, it is asked again after 1, 2, 4, 8, 15 and 15 s, and nothing is sent meanwhile", async () => {
    const w = world();
    w.service.fail("open", { code: "service_unavailable" });
    w.service.failReads(6);
    const desk = await w.desk();
    const asked = () => w.service.readTimes.filter((_, i) => w.service.reads[i].includes("client_reference=D-1")).map((t) => t - START);
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    await sending;
    await advance(44_000);
    expect(asked()).toEqual([1_000, 3_000, 7_000, 15_000, 30_000]);
    expect(w.service.posts).toHaveLength(1);
    await advance(20_000);
    expect(asked().slice(5, 7)).toEqual([45_000, 60_000]);
    expect(w.service.posts.map((p) => p.at - START)).toEqual([0, 60_000]);
  });

  it("a row sent 25 minutes ago or more whose service cannot be asked waits for the user; younger, it is asked again", async () => {
    const w = world();
    const old = await w.journalled(
      row(),
      { sentAt: iso(START - RESEND_WINDOW_MS - DOUBT_LIMIT_MS) },
      { loggedAt: iso(START - 26 * 60_000) },
    );
    const young = await w.journalled(row({ side: "sell" }), { sentAt: iso(START - RESEND_WINDOW_MS - DOUBT_LIMIT_MS + 1_000) });
    w.service.failReads(2);
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(await byKey(w, old.idempotencyKey)).toMatchObject({
      status: "needs_decision",
      message:
        'Needs your decision: The service could not be asked (service_unavailable) since the row was sent 25 min ago. Choose "It was done" or "It was not done" under Unfinished rows.',
    });
    expect(await byKey(w, young.idempotencyKey)).toMatchObject({ status: "submitting", errorCode: "service_unavailable" });
    expect(w.service.posts).toEqual([]);
    // Why it waits is a field of its status (the pane lists it without reading the Message), kept across a reload by
    // this computer's journal; the other row waits for nothing.
    const why = "The service could not be asked (service_unavailable) since the row was sent 25 min ago.";
    expect(desk.needsDecision().map((r) => [r.idempotencyKey, r.parkedFor])).toEqual([[old.idempotencyKey, why]]);
    expect(desk.pending().map((r) => r.parkedFor)).toEqual([null]);
    desk.stop();
    await advance(1_000);
    const reloaded = await w.desk();
    expect(reloaded.needsDecision().map((r) => r.parkedFor)).toEqual([why]);
    reloaded.stop();
  });

  it("an unreadable answer, then no clear answer for over 10 minutes: the user decides, and nothing was sent again", async () => {
    const w = world();
    w.service.fail("open", { code: "invalid_response", status: 200, message: "Unexpected body." });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({
      status: "submitting",
      errorCode: "invalid_response",
      message:
        "Outcome unknown (invalid_response): Unexpected body. The service may have acted on this row; do not send it again yourself. The add-in asks the service what it did (a few times, then it asks for your decision).",
    });
    w.service.readsDownFor(DOUBT_LIMIT_MS + 30_000);
    await advance(DOUBT_LIMIT_MS + 60_000);
    expect(w.service.posts).toHaveLength(1);
    expect((await w.log())[0]).toMatchObject({ status: "needs_decision" });
    expect((await w.log())[0].message).toMatch(
      /^Needs your decision: No hedge with client reference D-1 on USDTNGN buy since the row was logged\. No clear answer for 1[01] min \(last: service_unavailable\)\./,
    );
  });

  it("a send that failed with something not an error, or an error without words, is in doubt: the row says the outcome is unknown", async () => {
    for (const thrown of ["socket closed", new Error("")]) {
      const w = world();
      const client = w.service.client();
      const open = client.open.bind(client);
      let first = true;
      client.open = (...a: Parameters<typeof open>) => {
        if (!first) return open(...a);
        first = false;
        return open(...a).then(() => Promise.reject(thrown));
      };
      const desk = await w.desk({ client });
      const sending = desk.send(previewOf([row()]));
      await advance(100);
      expect((await sending).rows[0]).toMatchObject({
        status: "submitting",
        errorCode: "unexpected_error",
        message:
          "Outcome unknown (unexpected_error): The service may have acted on this row; do not send it again yourself. The add-in asks the service what it did (a few times, then it asks for your decision).",
      });
      // Asked, found on the service, and adopted: sent once.
      await advance(BACKOFF_MS[0] + 100);
      expect((await w.log())[0]).toMatchObject({ status: "submitted", errorCode: null });
      expect(w.service.posts).toHaveLength(1);
      desk.stop();
    }
  });

  it("an answer the service gives 10 minutes to the millisecond after the doubt began is still in time: the row goes again, once", async () => {
    const w = world();
    w.service.fail("open", { code: "invalid_response", status: 200, message: "Unexpected body." });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(0);
    const { rows } = await sending;
    // Asked after 1, 2, 4 and 8 s, then every 15 s: the 40th question falls on 10 min 0 ms, the first the service answers.
    w.service.readsDownFor(DOUBT_LIMIT_MS - 1);
    await advance(DOUBT_LIMIT_MS);
    expect(w.service.readTimes.at(-1)).toBe(START + DOUBT_LIMIT_MS);
    expect(w.service.posts.map((p) => p.key)).toEqual([rows[0].idempotencyKey, rows[0].idempotencyKey]);
    await advance(100);
    expect((await w.log())[0]).toMatchObject({ status: "submitted" });
    expect(w.service.effects(rows[0].idempotencyKey)).toBe(1);
  });

  it("re-sent with the same key only while the service surely keeps it: under 15 minutes from the first send", async () => {
    const w = world();
    const young = await w.journalled(row(), { sentAt: iso(START - RESEND_WINDOW_MS + 1) });
    const old = await w.journalled(row({ side: "sell", clientReference: "D-2" }), { sentAt: iso(START - RESEND_WINDOW_MS) });
    const desk = await w.desk();
    const plan = await desk.inspect();
    expect(plan.items.map((i) => [i.row.idempotencyKey, i.step, i.detail])).toEqual([
      [young.idempotencyKey, "resend", "Sent 15 min ago: Resume sends it again with the same idempotency key (the service acts once)."],
      [
        old.idempotencyKey,
        "decide",
        "Not on the service, and sent 15 min ago: the service may have forgotten its key, so a re-send could act twice.",
      ],
    ]);
    await desk.resume();
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual([young.idempotencyKey]);
    expect(await byKey(w, old.idempotencyKey)).toMatchObject({ status: "needs_decision" });
    expect((await byKey(w, old.idempotencyKey)).message).toMatch(
      /It was sent 15 min ago: the service may have forgotten its idempotency key, so a re-send could act a second time\./,
    );
  });

  it("a row only the log knows (another computer, or an older version) is never re-sent, sent or not", async () => {
    const w = world();
    const r = await w.journalled(row(), {}, { keyId: null });
    const desk = await w.desk();
    expect((await desk.inspect()).items.map((i) => [i.step, i.detail])).toEqual([
      ["decide", "Not on the service, and sent with another API key or from another computer: a re-send could act twice."],
    ]);
    await desk.resume();
    await advance(5_000);
    expect(w.service.posts).toEqual([]);
    expect((await byKey(w, r.idempotencyKey)).message).toMatch(
      /It was sent from another computer \(or before this version\): a re-send with this key could act a second time\./,
    );
  });

  it("a hedge that does not match the row is asked about for at least 30 s and 5 rounds, then the user decides; nothing is sent", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 110_000 });
    const r = await w.journalled(addRow(25_000), { sentAt: iso(START), hedgeId: h.id, notionalBefore: 100_000 });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({
      status: "submitting",
      message:
        "Asking the service again: Hedge h-1 is filled at 110,000.00 USD. Before this row it was 100,000.00 USD: the change does not match the row.",
    });
    await advance(MISMATCH_MIN_MS - 1_000);
    expect(w.service.reads.filter((x) => x === "get h-1")).toHaveLength(5);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("submitting");
    await advance(1_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "needs_decision" });
    expect(w.service.posts).toEqual([]);
  });

  it("a mismatch, then two minutes the service cannot be read, then a mismatch again: the user decides at once", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 110_000 });
    const r = await w.journalled(addRow(25_000), { sentAt: iso(START), hedgeId: h.id, notionalBefore: 100_000 });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    w.service.readsDownFor(MISMATCH_LIMIT_MS);
    await advance(MISMATCH_LIMIT_MS - 1_000);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("submitting");
    await advance(16_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "needs_decision" });
    expect(w.service.reads.filter((x) => x === "get h-1").length).toBeLessThan(MISMATCH_LIMIT_MS / 1_000);
  });

  it("a refusal the service sent is final, with its message and what to do; a 409 on the key is not a refusal", async () => {
    const w = world();
    w.service.fail("open", { code: "insufficient_collateral", message: "Balance too low." });
    w.service.fail("open", { code: "idempotency_in_flight", message: "Still working." });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row(), row({ side: "sell", clientReference: "D-2" })]));
    await advance(100);
    const { rows } = await sending;
    expect(rows[0]).toMatchObject({
      status: "rejected",
      errorCode: "insufficient_collateral",
      message: "Balance too low. The free balance is too low: reduce the notional or add funds.",
    });
    expect(rows[1]).toMatchObject({ status: "submitting", errorCode: "idempotency_in_flight" });
    await advance(BACKOFF_MS[0]);
    expect((await w.log())[1]).toMatchObject({ status: "submitted" });
    expect(w.service.effects(rows[1].idempotencyKey)).toBe(1);
  });

  it("a refusal the add-in has no advice for shows the service's words alone", async () => {
    const w = world();
    w.service.fail("open", { code: "validation_error", message: "tenor_days must be 1 to 365." });
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({
      status: "rejected",
      errorCode: "validation_error",
      message: "tenor_days must be 1 to 365.",
    });
    expect((await w.log())[0]).toMatchObject({ status: "rejected", message: "tenor_days must be 1 to 365." });
  });

  it("a row without a usable idempotency key is never sent: the user decides", async () => {
    const w = world();
    const desk = await w.desk({ newKey: () => "" });
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({
      status: "needs_decision",
      message:
        'Needs your decision: The row has no usable idempotency key: it is never sent. Choose "It was done" or "It was not done" under Unfinished rows.',
    });
    await advance(60_000);
    expect(w.service.posts).toEqual([]);
  });
});

describe("what a failed send means", () => {
  const e = (code: string, status: number | null) => new HedgingApiError({ code, status, message: "x" });
  it("transient: nothing known yet; refused: a 4xx saying nothing was done; unknown: the service may have acted", () => {
    expect(classifyFailure(e("network_error", null))).toBe("transient");
    expect(classifyFailure(e("service_unavailable", 503))).toBe("transient");
    expect(classifyFailure(e("rate_limited", 429))).toBe("transient");
    expect(classifyFailure(e("idempotency_in_flight", 409))).toBe("transient");
    expect(classifyFailure(e("validation_error", 400))).toBe("refused");
    expect(classifyFailure(e("hedge_exists", 409))).toBe("refused");
    expect(classifyFailure(e("odd_client_error", 499))).toBe("refused");
    expect(classifyFailure(e("idempotency_key_reuse", 409))).toBe("unknown");
    expect(classifyFailure(e("invalid_response", 200))).toBe("unknown");
    // A 5xx that is not retried (an answer that could not be read) is never taken for a refusal: the service may have acted.
    expect(classifyFailure(e("invalid_response", 502))).toBe("unknown");
    expect(classifyFailure(e("redirect", 399))).toBe("unknown");
    expect(classifyFailure(e("unexpected", null))).toBe("unknown");
    expect(classifyFailure(new Error("boom"))).toBe("unknown");
  });

  it("the submitted message says the notional expected after an Add or a Reduce", () => {
    expect(submittedMessage("add", 125_000)).toBe("Submitted: the service expects the hedge at 125,000.00 USD.");
    expect(submittedMessage("reduce", 75_000.5)).toBe("Submitted: the service expects the hedge at 75,000.50 USD.");
    expect(submittedMessage("add", null)).toBe("Submitted: waiting for the fill.");
    expect(submittedMessage("open", 10_000)).toBe("Submitted: waiting for the fill.");
    expect(submittedMessage("close", 0)).toBe("Submitted: waiting for the fill.");
  });
});
