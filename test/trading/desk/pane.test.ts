// What the pane sees of the desk: progress while rows go, settled(), the key's account, stop() and a pane that closes, hosts without AbortSignal.any.
import { HedgingApiError } from "../../../src/api/errors";
import { ACCOUNT } from "../../support/fake-service";
import { START, iso, row, addRow, previewOf, world, byKey, advance, useDeskClock } from "../../support/desk-world";

useDeskClock();

describe("what the pane sees while rows go", () => {
  it("progress after every change: the row, how many rows, how many final, and counts by status; a failing listener stops nothing", async () => {
    const w = world();
    w.service.fillAtOnce = true;
    const seen: Array<[string, number, number, number, number]> = [];
    const desk = await w.desk({
      onProgress: (p) => {
        seen.push([p.row.status, p.total, p.done, p.counts.submitting, p.counts.filled]);
        throw new Error("a broken listener");
      },
    });
    const sending = desk.send(previewOf([row(), row({ side: "sell", clientReference: "D-2" })]));
    await advance(2_000);
    await sending;
    expect(seen.slice(0, 2)).toEqual([
      ["submitting", 1, 0, 1, 0],
      ["submitting", 2, 0, 2, 0],
    ]);
    expect(seen.at(-1)).toEqual(["filled", 2, 2, 0, 2]);
    expect((await w.log()).map((r) => r.status)).toEqual(["filled", "filled"]);
  });

  it("rounds that change nothing tell the pane nothing: a poll that sees the row still accepted, a question the service cannot answer", async () => {
    const w = world();
    let told = 0;
    const desk = await w.desk({ onProgress: () => told++ });
    await Promise.all([desk.send(previewOf([row()])), advance(100)]);
    expect((await w.log())[0]).toMatchObject({ status: "submitted" });
    let before = told;
    await advance(10_000);
    expect(w.service.reads.filter((r) => r.startsWith("list status=submitted")).length).toBeGreaterThanOrEqual(5);
    expect(told).toBe(before);

    // A row whose send may have acted, and a service that cannot be read: asked after 1, 2, 4, 8 and 15 s, the same answer.
    w.service.fail("open", { code: "invalid_response", status: 200, message: "Unexpected body." });
    await Promise.all([desk.send(previewOf([row({ side: "sell", clientReference: "D-2" })])), advance(100)]);
    w.service.readsDownFor(60_000);
    await advance(1_500);
    before = told;
    const asked = w.service.reads.length;
    await advance(30_000);
    expect(w.service.reads.length - asked).toBeGreaterThanOrEqual(3);
    expect(told).toBe(before);
  });

  it("settled() waits until every row is final; it gives up after its time with how many are left, which stay listed", async () => {
    const w = world();
    const desk = await w.desk();
    await desk.settled(10);
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    await sending;
    const giveUp = desk.settled(5_000).catch((e: Error) => e.message);
    await advance(5_000);
    expect(await giveUp).toBe("1 row(s) still not final after 5000 ms; they stay in the log and are listed next time.");
    const done = desk.settled(10_000);
    w.service.fill();
    await advance(1_000);
    await expect(done).resolves.toBeUndefined();
    expect((await w.log())[0].status).toBe("filled");
  });

  it("the account of the key is asked once, before the desk is built, with no retry of the desk's own: a 429 or a refused key fails the desk, and the next one asks again", async () => {
    const w = world();
    const client = w.service.client();
    const answers = [
      () => Promise.reject(new HedgingApiError({ code: "invalid_api_key", status: 401, message: "Bad key." })),
      () => Promise.reject(new HedgingApiError({ code: "rate_limited", status: 429, message: "Slow down." })),
      () => Promise.resolve({ data: { account_address: ACCOUNT } }),
    ];
    let asked = 0;
    (client as unknown as { account: () => Promise<unknown> }).account = () => answers[asked++]();
    await expect(w.desk({ client })).rejects.toThrow("Bad key.");
    // The sender already spent its attempts on a 429 that reaches the desk: the desk does not ask again on top of them.
    await expect(w.desk({ client })).rejects.toThrow("Slow down.");
    expect(asked).toBe(2);
    const desk = await w.desk({ client });
    await expect(desk.log()).resolves.toEqual([]);
    await desk.log();
    expect(asked).toBe(3);
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({ account: ACCOUNT, status: "submitted" });
  });

  it("stop() stops every request the pane has out, one sent before a Resume included", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const release = w.holdAnswers();
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    await desk.resume(); // the pane shown again, Resume pressed, while the Add is out
    desk.stop(); // then the pane closes
    await advance(0);
    expect((await sending).rows[0].status).toBe("submitting");
    release();
    await advance(60_000);
    // The Add's wait ended with the pane: the request was given up before the service acted, and nothing was sent again.
    expect(w.service.posts).toHaveLength(1);
    expect(w.service.executions.get("new-key-1") ?? 0).toBe(0);
    expect((await w.log())[0]).toMatchObject({ status: "submitting", notionalBefore: 100_000 });
    expect((await sending).rows[0].message).toContain("The desk was stopped: nothing more is sent.");
  });

  it("a desk stopped and used again (the pane shown again) sends with a fresh signal; an aborted send stops waiting at once", async () => {
    const w = world();
    const desk = await w.desk();
    desk.stop();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    expect((await sending).rows[0].status).toBe("submitted");
    w.service.onPost = () => new Promise<void>(() => undefined); // the service never answers
    const abort = new AbortController();
    const second = desk.send(previewOf([row({ side: "sell", clientReference: "D-2" })]), { signal: abort.signal });
    await advance(100);
    abort.abort();
    await advance(0);
    expect((await second).rows[0].status).toBe("submitting");
    // The aborted send's row is not asked about nor sent again by this pane: Resume takes it up.
    await advance(60_000);
    expect(w.service.posts).toHaveLength(2);
  });
});

describe("a pane that closes", () => {
  it("stop() while a send waits for its answer: the send returns, and an answer or a poll that comes after writes nothing", async () => {
    const w = world();
    let answer: () => void = () => undefined;
    w.service.onPost = () => new Promise<void>((resolve) => (answer = resolve));
    const desk = await w.desk();
    const sending = desk.send(previewOf([row()]));
    await advance(100);
    desk.stop();
    await advance(0);
    expect((await sending).rows[0].status).toBe("submitting");
    answer();
    await advance(5_000);
    expect((await w.log())[0]).toMatchObject({ status: "submitting" });
  });

  it("a poll under way when the pane closes changes nothing in the log", async () => {
    const w = world();
    const r = await w.journalled(row(), { sentAt: iso(START), status: "submitted", hedgeId: "h-1" });
    w.service.seed({ id: "h-1", client_reference: "D-1", notional_usd: 10_000, status: "filled", opened_at: iso(START) });
    const client = w.service.client();
    const list = client.list.bind(client);
    let release: () => void = () => undefined;
    client.list = (...a: Parameters<typeof list>) => new Promise<void>((resolve) => (release = resolve)).then(() => list(...a));
    const desk = await w.desk({ client });
    await desk.resume();
    await advance(100);
    desk.stop();
    release();
    await advance(5_000);
    expect(await byKey(w, r.idempotencyKey)).toMatchObject({ status: "submitted" });
  });
});

describe("a desk in a host without AbortSignal.any", () => {
  const any = (AbortSignal as unknown as { any?: unknown }).any;
  beforeEach(() => delete (AbortSignal as unknown as { any?: unknown }).any);
  afterEach(() => Object.assign(AbortSignal, { any }));

  it("an aborted send, or a stopped desk, still stops the row's request", async () => {
    const w = world();
    w.service.onPost = () => new Promise<void>(() => undefined);
    const desk = await w.desk();
    const abort = new AbortController();
    const sending = desk.send(previewOf([row()]), { signal: abort.signal });
    await advance(100);
    abort.abort(new Error("The pane was closed."));
    await advance(0);
    expect((await sending).rows[0]).toMatchObject({ status: "submitting", message: expect.stringContaining("The pane was closed.") });

    const w2 = world();
    w2.service.onPost = () => new Promise<void>(() => undefined);
    const desk2 = await w2.desk();
    const done = new AbortController();
    done.abort(new Error("Aborted before it began."));
    const early = desk2.send(previewOf([row()]), { signal: done.signal });
    await advance(100);
    expect((await early).rows[0]).toMatchObject({ status: "submitting" });
    expect(w2.service.posts).toEqual([]);
  });

  it("a row still queued behind another when its send is aborted never takes effect", async () => {
    const w = world();
    const release = w.holdAnswers();
    // One request at a time: the sell row waits for the buy row's turn to end.
    const desk = await w.desk({ concurrency: 1 });
    const abort = new AbortController();
    const sell = row({ rowNumber: 3, side: "sell", clientReference: "D-2" });
    const sending = desk.send(previewOf([row(), sell]), { signal: abort.signal });
    await advance(100);
    abort.abort(new Error("The pane was closed."));
    await advance(100);
    release();
    await advance(60_000);
    const { rows } = await sending;
    expect(rows.map((r) => r.status)).toEqual(["submitting", "submitting"]);
    expect(rows.map((r) => w.service.effects(r.idempotencyKey))).toEqual([0, 0]);
    expect(w.service.hedges).toEqual([]);
  });
});
