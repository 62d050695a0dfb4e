// What the desk's messages say: how long ago, an unknown outcome's words, a decision's text, a mismatch count started again.
import { HedgingApiError } from "../../../src/api/errors";
import { ACCOUNT } from "../../support/fake-service";
import { START, iso, row, addRow, previewOf, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("how long ago, in the words of the message", () => {
  it.each([
    [-5_000, "Sent 0 s ago"], // this computer's clock went back since
    [45_000, "Sent 45 s ago"],
    [89_000, "Sent 89 s ago"],
    [90_000, "Sent 2 min ago"],
    [14 * 60_000, "Sent 14 min ago"],
  ])("a row sent %i ms ago and not on the service: %s, sent again", async (ms, words) => {
    const w = world();
    await w.journalled(row(), { sentAt: iso(START - ms) });
    const plan = await (await w.desk()).inspect();
    expect(plan.items[0]).toMatchObject({ step: "resend", detail: expect.stringContaining(`${words}: Resume sends it again`) });
  });

  it.each([
    [89 * 60_000, "89 min"],
    [90 * 60_000, "2 h"],
    [47 * 3_600_000, "47 h"],
    [48 * 3_600_000, "2 days"],
  ])("a row sent %i ms ago, not on the service: sent %s ago, the user decides", async (ms, words) => {
    const w = world();
    await w.journalled(row(), { sentAt: iso(START - ms) });
    const plan = await (await w.desk()).inspect();
    expect(plan.items[0]).toMatchObject({ step: "decide", detail: expect.stringContaining(`sent ${words} ago:`) });
  });
});

describe("more of what the messages say", () => {
  it("an unknown outcome quotes the error's own words, trimmed, or none when it has none", async () => {
    const w = world();
    w.service.fail("open", { code: "idempotency_key_reuse", message: "Key used for another body.  \n" });
    const client = w.service.client();
    const open = client.open.bind(client);
    let calls = 0;
    client.open = (...a: Parameters<typeof open>) => (++calls === 2 ? Promise.reject("a bare string") : open(...a));
    const desk = await w.desk({ client });
    const sending = desk.send(previewOf([row(), row({ side: "sell", clientReference: "D-2" })]));
    await advance(100);
    const { rows } = await sending;
    expect(rows[0].message).toBe(
      "Outcome unknown (idempotency_key_reuse): Key used for another body. The service may have acted on this row; do not send it again yourself. The add-in asks the service what it did (a few times, then it asks for your decision).",
    );
    expect(rows[1].message).toBe(
      "Outcome unknown (unexpected_error): The service may have acted on this row; do not send it again yourself. The add-in asks the service what it did (a few times, then it asks for your decision).",
    );
  });

  it("a decision keeps at most 250 characters of what the service showed", async () => {
    const w = world();
    const reference = "R".repeat(300);
    const r = await w.journalled(row({ clientReference: reference }), { sentAt: iso(START - 3_600_000) });
    const desk = await w.desk();
    await desk.resume();
    await advance(100);
    await desk.decide(r.idempotencyKey, "done");
    const { decision } = await byKey(w, r.idempotencyKey);
    expect(decision).toHaveLength(250);
    expect(decision).toBe(`done: No hedge with client reference ${reference}`.slice(0, 250));
  });

  it("a desk given the account its pane's connection proved asks the service nothing for it, and logs rows under it", async () => {
    const w = world();
    const client = w.service.client();
    let asked = 0;
    (client as unknown as { account: () => Promise<unknown> }).account = () => {
      asked++;
      return Promise.reject(new HedgingApiError({ code: "rate_limited", status: 429, message: "Slow down." }));
    };
    const desk = await w.desk({ client, account: ACCOUNT });
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({ account: ACCOUNT, status: "submitted" });
    expect(asked).toBe(0);
  });

  it("a hedge that shows the row's side as it was before, between two mismatches, starts the count of mismatches again", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 110_000 });
    const r = await w.journalled(addRow(25_000), { sentAt: iso(START), status: "submitted", hedgeId: h.id, notionalBefore: 100_000 });
    const desk = await w.desk();
    await desk.resume();
    await advance(20_000);
    h.notional_usd = 100_000; // not filled yet: as before the row
    await advance(2_000);
    h.notional_usd = 110_000;
    await advance(20_000);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("submitted");
    await advance(15_000);
    expect((await byKey(w, r.idempotencyKey)).status).toBe("needs_decision");
  });
});
