// The unfinished rows listed on opening, and what Resume does with each.
import { Journal } from "../../../src/trading/journal";
import { intentScope } from "../../../src/trading/intent-store";
import { intentFromRow } from "../../../src/trading/intent";
import { ACCOUNT, KEY_ID } from "../../support/fake-service";
import { START, iso, row, addRow, previewOf, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("the unfinished rows listed on opening, and what Resume does with each", () => {
  it("Resume pressed while this pane's row is still in flight leaves it to the send under way: one request, its own", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const release = w.holdAnswers();
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    expect(w.service.posts).toHaveLength(1);
    const { resumed } = await desk.resume();
    expect(resumed.map((r) => r.status)).toEqual(["submitting"]);
    await advance(120_000);
    release();
    await advance(100);
    expect((await sending).rows.map((r) => r.status)).toEqual(["submitted"]);
    await advance(10_000);
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1"]);
    expect((await w.log())[0]).toMatchObject({ status: "filled", notionalBefore: 100_000 });
  });

  it("Resume sends a side's never-sent rows of one send in the order they were journalled", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const at = iso(START - 60_000);
    const rows = [];
    for (const amount of [1_000, 2_000, 3_000]) rows.push(await w.journalled(addRow(amount), {}, { loggedAt: at }));
    const desk = await w.desk();
    await desk.resume();
    await advance(5_000);
    expect(w.service.posts.map((p) => p.key)).toEqual(rows.map((r) => r.idempotencyKey));
    expect(w.service.posts.map((p) => p.body.additional_notional_usd)).toEqual([1_000, 2_000, 3_000]);
  });

  it("Resume takes a side's rows up in the order they went, whatever the log's order: by time logged, then sent ones in the order sent, then never-sent ones", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const t0 = START - 3_600_000;
    const a = await w.journalled(addRow(1_000), { sentAt: iso(t0 + 20_000) }, { loggedAt: iso(t0) });
    const b = await w.journalled(addRow(2_000), {}, { loggedAt: iso(t0) });
    const c = await w.journalled(addRow(3_000), { sentAt: iso(t0 + 10_000) }, { loggedAt: iso(t0) });
    const d = await w.journalled(addRow(4_000), {}, { loggedAt: iso(t0 - 60_000) });
    const { resumed } = await (await w.desk()).resume();
    expect(resumed.map((r) => r.idempotencyKey)).toEqual([d, c, a, b].map((r) => r.idempotencyKey));
  });

  it("a row journalled under another API key and never sent goes with this desk's key, which this computer's journal then names", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const r = await w.journalled(addRow(1_000), {}, { keyId: "k-another-key" });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual([r.idempotencyKey]);
    const entry = (await w.store.load(intentScope("sandbox", ACCOUNT))).find((e) => e.record.idempotencyKey === r.idempotencyKey)!;
    // A doubt about this send is then this key's own (asked, then sent again with the same idempotency key), not another key's.
    expect(entry.keyId).toBe(KEY_ID);
  });

  it("the list never promises a re-send the desk would not make: a row sent with another API key minutes ago is for the user", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const other = await w.journalled(
      addRow(1_000),
      { sentAt: iso(START - 60_000), hedgeId: "h-1", notionalBefore: 100_000 },
      { keyId: "k-another-key" },
    );
    const mine = await w.journalled(addRow(2_000, { side: "sell" }), {
      sentAt: iso(START - 60_000),
      hedgeId: "h-2",
      notionalBefore: 5_000,
    });
    w.service.seed({ id: "h-2", side: "sell", notional_usd: 5_000 });
    const desk = await w.desk();
    const plan = await desk.inspect();
    const step = (key: string) => plan.items.find((i) => i.row.idempotencyKey === key)!;
    expect(step(other.idempotencyKey)).toMatchObject({
      step: "decide",
      detail: "Not on the service, and sent with another API key or from another computer: a re-send could act twice.",
    });
    expect(step(mine.idempotencyKey)).toMatchObject({ step: "resend" });
    await desk.resume();
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual([mine.idempotencyKey]);
    expect((await byKey(w, other.idempotencyKey)).status).toBe("needs_decision");
  });

  it("says what the service shows and what Resume would do, row by row, before anything is done", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 125_000 });
    w.service.seed({
      id: "h-acc",
      side: "sell",
      client_reference: "ACC",
      notional_usd: 10_000,
      status: "submitted",
      opened_at: iso(START),
    });
    const followed = await w.journalled(row({ side: "sell", clientReference: "ACC" }), {
      sentAt: iso(START),
      status: "submitted",
      hedgeId: "h-acc",
    });
    const recorded = await w.journalled(addRow(25_000), {
      sentAt: iso(START),
      status: "submitted",
      hedgeId: h.id,
      notionalBefore: 100_000,
    });
    const neverSentAdd = await w.journalled(addRow(1_000, { market: "USDTXAF" }));
    const neverSentOpen = await w.journalled(row({ market: "USDTXAF", side: "sell", clientReference: "NS" }));
    const found = await w.journalled(addRow(25_000, { market: "USDTXBF" }), { sentAt: iso(START), hedgeId: h.id, notionalBefore: 100_000 });
    const unclear = await w.journalled(addRow(5_000, { market: "USDTXCF" }), {
      sentAt: iso(START),
      hedgeId: h.id,
      notionalBefore: 100_000,
    });
    const desk = await w.desk();
    const reads = w.service.reads.length;
    const plan = await desk.inspect();
    expect(plan.items.map((i) => [i.row.idempotencyKey, i.owner, i.step, i.serviceSays, i.detail])).toEqual([
      [
        followed.idempotencyKey,
        "mine",
        "follow",
        "Hedge h-acc is accepted (submitted) for 10,000.00 USD, not filled yet.",
        "Accepted by the service: Resume follows it to its fill.",
      ],
      [recorded.idempotencyKey, "mine", "record", "Hedge h-1 is filled at 125,000.00 USD.", "Resume records it as filled."],
      [
        neverSentAdd.idempotencyKey,
        "mine",
        "send",
        "Not asked: this computer's journal shows it was never sent.",
        "Never sent: Resume sends it.",
      ],
      [
        neverSentOpen.idempotencyKey,
        "mine",
        "send",
        "No hedge with client reference NS on USDTXAF sell since the row was logged.",
        "Never sent: Resume sends it.",
      ],
      [
        found.idempotencyKey,
        "mine",
        "record",
        "Hedge h-1 is filled at 125,000.00 USD.",
        "It took effect: Resume records it as filled, without sending anything.",
      ],
      [
        unclear.idempotencyKey,
        "mine",
        "decide",
        "Hedge h-1 is filled at 125,000.00 USD. Before this row it was 100,000.00 USD: the change does not match the row.",
        "The service shows something this row does not match: your decision.",
      ],
    ]);
    expect(w.service.reads.length - reads).toBeGreaterThan(0);
    expect(w.service.posts).toEqual([]);
  });

  it("when the service cannot be asked, the list says so; a row waiting for a decision shows what the service says", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const submitted = await w.journalled(addRow(1_000), {
      sentAt: iso(START),
      status: "submitted",
      hedgeId: "h-1",
      notionalBefore: 100_000,
    });
    const sent = await w.journalled(addRow(1_000, { side: "sell" }), { sentAt: iso(START), hedgeId: "h-1", notionalBefore: 100_000 });
    const decide = await w.journalled(addRow(1_000, { market: "USDTXAF" }), {
      sentAt: iso(START),
      hedgeId: "h-1",
      notionalBefore: 100_000,
    });
    const desk = await w.desk();
    await desk.inspect();
    const journal = new Journal(w.workbook, { store: w.store, scope: intentScope("sandbox", ACCOUNT) });
    await journal.load();
    journal.update(journal.get(decide.idempotencyKey)!, { status: "needs_decision" });
    await journal.flush();
    w.service.failReads(3);
    const plan = await desk.inspect();
    expect(plan.items.map((i) => [i.row.idempotencyKey, i.step, i.serviceSays, i.detail])).toEqual([
      [
        submitted.idempotencyKey,
        "follow",
        "Could not ask the service (service_unavailable).",
        "Accepted by the service: Resume follows it to its fill.",
      ],
      // Sent moments ago: not a decision yet; Resume asks again before anything is sent.
      [sent.idempotencyKey, "ask", "Could not ask the service (service_unavailable).", "Resume asks the service again first."],
      [
        decide.idempotencyKey,
        "decide",
        "Could not ask the service (service_unavailable).",
        "The service could not tell whether this row took effect: your decision.",
      ],
    ]);
    const again = await desk.inspect();
    expect(again.items[2]).toMatchObject({
      step: "decide",
      serviceSays: "Hedge h-1 is filled at 100,000.00 USD. Its notional is the one before this row.",
    });
  });

  it("a row sent longer ago than the resend window and the doubt limit, when the service cannot be asked, is listed for your decision", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const sent = await w.journalled(addRow(1_000), { sentAt: iso(START - 30 * 60_000), hedgeId: "h-1", notionalBefore: 100_000 });
    const desk = await w.desk();
    w.service.failReads(3);
    const plan = await desk.inspect();
    expect(plan.items.map((i) => [i.row.idempotencyKey, i.step, i.detail])).toEqual([
      [sent.idempotencyKey, "decide", "The service could not be asked, and the row was sent 30 min ago: your decision."],
    ]);
    expect(w.service.posts).toEqual([]);
  });

  it("lists another account's rows as a count, rows it can never send with the reason, and sends nothing for them", async () => {
    const w = world();
    const theirs = intentFromRow(row({ side: "sell" }), "theirs", "sandbox", iso(START), "0x00000000000000000000000000000000000000bb");
    const production = intentFromRow(row({ side: "sell" }), "prod", "production", iso(START), ACCOUNT);
    const unclaimed = intentFromRow(row({ market: "USDTXAF" }), "unclaimed", "sandbox", iso(START), null);
    await new Journal(w.workbook).append([theirs, production, unclaimed]);
    const logged = (await w.log())[0];
    await w.workbook.appendLog([
      { ...logged, idempotencyKey: " ", market: "USDTXBF", account: ACCOUNT },
      // Not this desk's to list: final, another environment's, another account's.
      { ...logged, idempotencyKey: " ", market: "USDTXCF", account: ACCOUNT, status: "filled" },
      { ...logged, idempotencyKey: " ", market: "USDTXDF", account: ACCOUNT, environment: "production" },
      { ...logged, idempotencyKey: " ", market: "USDTXEF", account: "0x00000000000000000000000000000000000000bb" },
      // Neither environment nor account written: it may be this desk's, so it is listed.
      { ...logged, idempotencyKey: " ", market: "USDTXFF", account: null, environment: "" },
    ]);
    const desk = await w.desk();
    const plan = await desk.inspect();
    expect(plan.otherAccounts).toBe(2);
    expect(plan.items.map((i) => [i.row.idempotencyKey, i.owner])).toEqual([["unclaimed", "unclaimed"]]);
    const reason =
      "Never sent by the add-in: its Idempotency key is empty (or has spaces around it), so the service could not tell whether it already acted on it. Check it on the service, then correct or delete the row.";
    expect(plan.unusable).toEqual([
      expect.objectContaining({ market: "USDTXBF", reason }),
      expect.objectContaining({ market: "USDTXFF", reason }),
    ]);
    // Resume without claiming: nothing is taken up. Claimed, the row gets this account; it may have been sent from another
    // computer, so it is asked about, never sent blindly: not on the service, it waits for the user.
    expect((await desk.resume()).resumed).toEqual([]);
    expect((await desk.resume({ claim: ["unclaimed"] })).resumed).toEqual([
      expect.objectContaining({ idempotencyKey: "unclaimed", account: ACCOUNT }),
    ]);
    await advance(100);
    expect(w.service.posts).toEqual([]);
    expect(await byKey(w, "unclaimed")).toMatchObject({ account: ACCOUNT, status: "needs_decision" });
  });

  it("a resumed Open this computer never sent is first looked for on the service: found, it is recorded, not sent", async () => {
    const w = world();
    const r = await w.journalled(row());
    const twice = await w.journalled(row({ side: "sell", clientReference: "TWO" }));
    w.service.seed({ id: "h-there", client_reference: "D-1", notional_usd: 10_000, status: "filled", opened_at: iso(START) });
    w.service.seed({ id: "h-a", side: "sell", client_reference: "TWO", notional_usd: 10_000, status: "filled", opened_at: iso(START) });
    w.service.seed({ id: "h-b", side: "sell", client_reference: "TWO", notional_usd: 10_000, status: "filled", opened_at: iso(START) });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "filled", hedgeId: "h-there", message: "Filled." });
    expect(await byKey(w, twice.idempotencyKey)).toMatchObject({ status: "needs_decision" });
    expect((await byKey(w, twice.idempotencyKey)).message).toMatch(/2 hedges carry client reference TWO on USDTNGN sell/);
    expect(w.service.posts).toEqual([]);
  });

  it("a resumed Open whose answer was lost is found by its client reference, though a later Add on its hedge is logged", async () => {
    const w = world();
    // The Open went 20 minutes ago and its answer was lost (no hedge id); meanwhile an Add on its hedge was done and logged.
    const open = await w.journalled(row(), { sentAt: iso(START - 20 * 60_000) }, { loggedAt: iso(START - 21 * 60_000) });
    await w.journalled(addRow(5_000), { sentAt: iso(START - 60_000), status: "filled", hedgeId: "h-1" }, { loggedAt: iso(START - 60_000) });
    w.service.seed({ id: "h-1", client_reference: "D-1", notional_usd: 15_000, status: "filled", opened_at: iso(START - 20 * 60_000) });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    // Only an Open row holds the hedge it opened: the Add's hedge id does not hide the Open's own hedge from it.
    expect(await byKey(w, open.idempotencyKey)).toMatchObject({ status: "filled", hedgeId: "h-1" });
    expect(w.service.posts).toEqual([]);
  });
});
