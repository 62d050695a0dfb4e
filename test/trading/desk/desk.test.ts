// The desk's row state machine against a small in-memory service under fake timers: journalled before anything leaves, one row at a time per market side, the service asked before any re-send, re-sent only with the same key while young, and every row final or waiting for the user's word.
import { MemoryWorkbook } from "../../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import {
  ALREADY_SENT,
  BACKOFF_MS,
  createDesk,
  DOUBT_LIMIT_MS,
  INSPECT_ASK_MAX,
  MISMATCH_LIMIT_MS,
  MISMATCH_MIN_MS,
  RESEND_WINDOW_MS,
  classifyFailure,
  submittedMessage,
} from "../../../src/trading/desk";
import { Journal } from "../../../src/trading/journal";
import { intentFromRow, intentToLogRecord, type Intent } from "../../../src/trading/intent";
import { intentScope } from "../../../src/trading/intent-store";
import { HedgingApiError } from "../../../src/api/errors";
import type { LogRecord } from "../../../src/trading/log/hedge-log";
import type { Preview, TradeRow } from "../../../src/trading/types";
import type { DeskOptions, TradingDesk } from "../../../src/trading/desk/contract";
import { ACCOUNT, FakeService, KEY_ID } from "../fake-service";

const START = Date.parse("2025-03-04T05:06:07.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: START }));
afterEach(() => jest.useRealTimers());

const row = (over: Partial<TradeRow> = {}): TradeRow => ({
  rowNumber: 2,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 10_000,
  tenor: 7,
  clientReference: "D-1",
  ...over,
});
const addRow = (amount: number, over: Partial<TradeRow> = {}) =>
  row({ action: "add", notional: amount, tenor: null, clientReference: null, ...over });

/** The preview the pane would pass back to send(): every row sendable. */
function previewOf(rows: TradeRow[]): Preview {
  return {
    action: rows[0].action,
    environment: "sandbox",
    createdAt: iso(Date.now()),
    lines: rows.map((r) => ({
      row: r,
      quote: null,
      position: null,
      collateralUsdc: 0,
      carryUsdc: 0,
      marginBackUsdc: 0,
      duplicateOf: null,
      blockers: [],
      warnings: [],
    })),
    totals: { rows: rows.length, priced: rows.length, notionalUsd: 0, collateralUsdc: 0, carryUsdc: 0, marginBackUsdc: 0 },
    checks: [],
    blockers: [],
    duplicates: 0,
    account: null,
    markets: [],
    cancelled: false,
    quoteRequests: 0,
  };
}

interface World {
  service: FakeService;
  workbook: MemoryWorkbook;
  store: MemoryIntentStore;
  errors: Error[];
  desk(options?: Partial<DeskOptions>): Promise<TradingDesk>;
  /** A row as this computer journalled it (its key id known), with `patch` applied (e.g. sentAt: it was sent). */
  journalled(
    r: TradeRow,
    patch?: Parameters<Journal["update"]>[1],
    options?: { key?: string; keyId?: string | null; loggedAt?: string },
  ): Promise<Intent>;
  log(): Promise<LogRecord[]>;
  /** The service takes requests but answers none until the returned release() is called. */
  holdAnswers(): () => void;
}

function world(): World {
  const service = new FakeService();
  const workbook = new MemoryWorkbook();
  const store = new MemoryIntentStore();
  const errors: Error[] = [];
  let n = 0;
  const desks: TradingDesk[] = [];
  afterEachDesk.push(() => desks.forEach((d) => d.stop()));
  return {
    service,
    workbook,
    store,
    errors,
    desk: async (options = {}) => {
      const d = await createDesk({
        client: service.client(),
        workbook,
        intentStore: store,
        pollIntervalMs: 1_000,
        onError: (e) => errors.push(e),
        newKey: () => `new-key-${++n}`,
        ...options,
      });
      desks.push(d);
      return d;
    },
    journalled: async (r, patch = {}, options = {}) => {
      const loggedAt = options.loggedAt ?? iso(Date.now());
      const intent = intentFromRow(r, options.key ?? `key-${++n}`, "sandbox", loggedAt, ACCOUNT);
      intent.keyId = options.keyId === undefined ? KEY_ID : options.keyId;
      const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
      await journal.load();
      await journal.append([intent]);
      journal.update(intent, patch);
      await journal.flush();
      return intent;
    },
    log: () => workbook.readLog(),
    holdAnswers: () => {
      let release!: () => void;
      const answer = new Promise<void>((r) => (release = r));
      service.onPost = () => answer;
      return () => release();
    },
  };
}
const afterEachDesk: Array<() => void> = [];
afterEach(() => afterEachDesk.splice(0).forEach((f) => f()));

const byKey = async (w: World, key: string) => (await w.log()).find((r) => r.idempotencyKey === key)!;
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe("journalled before anything leaves", () => {
  it("an Add leaves only once the log says it was sent, with the hedge it acts on and its notional before", async () => {
    const w = world();
    const h = w.service.seed({ notional_usd: 100_000 });
    const seen: LogRecord[] = [];
    w.service.onPost = async () => {
      seen.push(...(await w.log()));
    };
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    const { rows } = await sending;
    expect(seen).toEqual([
      expect.objectContaining({ status: "submitting", hedgeId: h.id, notionalBefore: 100_000, sentAt: iso(START), account: ACCOUNT }),
    ]);
    expect(rows).toEqual([
      expect.objectContaining({
        status: "submitted",
        hedgeId: h.id,
        message: "Submitted: the service expects the hedge at 125,000.00 USD.",
      }),
    ]);
    expect(w.service.posts.map((p) => [p.op, p.key, p.body])).toEqual([
      ["add", "new-key-1", { market: "USDTNGN", side: "buy", additional_notional_usd: 25_000 }],
    ]);
  });

  it("while the log cannot be written nothing is sent; once it can, the row is sent once", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    const desk = await w.desk();
    const updateLog = w.workbook.updateLog.bind(w.workbook);
    let broken = true;
    w.workbook.updateLog = async (u) => {
      if (broken) throw new Error("Excel is busy");
      return updateLog(u);
    };
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(20_000);
    await sending;
    expect(w.service.posts).toEqual([]);
    expect((await w.log())[0]).toMatchObject({ status: "submitting", sentAt: null });
    broken = false;
    await advance(30_000);
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1"]);
    expect((await w.log())[0]).toMatchObject({ status: "filled", notionalBefore: 100_000 });
  });

  it("a pane that died before its row left: the next pane knows from this computer's journal it was never sent, and sends it once", async () => {
    const w = world();
    w.service.seed({ notional_usd: 100_000 });
    // The first pane journals the row, then Excel stops it while it reads the side's hedge.
    const stuck = w.service.client();
    stuck.list = () => new Promise(() => undefined);
    const first = await w.desk({ client: stuck });
    void first.send(previewOf([addRow(25_000)]));
    await advance(100);
    first.stop();
    expect(w.service.posts).toEqual([]);
    const next = await w.desk();
    const plan = await next.inspect();
    expect(plan.items.map((i) => [i.step, i.serviceSays])).toEqual([
      ["send", "Not asked: this computer's journal shows it was never sent."],
    ]);
    await next.resume();
    await advance(100);
    expect(w.service.posts.map((p) => p.key)).toEqual(["new-key-1"]);
    expect((await w.log())[0]).toMatchObject({ status: "filled", notionalBefore: 100_000 });
  });

  it("an Add with no open hedge on its side is rejected before anything is sent", async () => {
    const w = world();
    w.service.seed({ side: "sell" });
    w.service.seed({ market: "USDTXAF" });
    w.service.seed({ status: "closed" });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(25_000)]));
    await advance(100);
    expect((await sending).rows).toEqual([
      expect.objectContaining({
        status: "rejected",
        errorCode: "no_open_hedge",
        message: "No open hedge on USDTNGN buy (checked just before sending): nothing was sent. Use Open first.",
      }),
    ]);
    expect(w.service.posts).toEqual([]);
  });

  it("the hedge is found past the first page of filled hedges, or among the accepted ones", async () => {
    const w = world();
    // The oldest hedge of 501: the list (newest first, 500 a page) shows it on its second page.
    w.service.seed({ id: "h-mine", notional_usd: 70_000 });
    for (let i = 0; i < 500; i++) w.service.seed({ market: `USDTX${i}` });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(5_000)]));
    await advance(100);
    await sending;
    expect((await w.log())[0]).toMatchObject({ hedgeId: "h-mine", notionalBefore: 70_000 });

    const w2 = world();
    w2.service.seed({ id: "h-accepted", status: "submitted", side: "sell", notional_usd: 30_000 });
    // (This service refuses an add to a hedge not filled yet: what matters is which hedge the row was journalled against.)
    const desk2 = await w2.desk();
    const s2 = desk2.send(previewOf([addRow(5_000, { side: "sell" })]));
    await advance(100);
    await s2;
    expect((await w2.log())[0]).toMatchObject({ hedgeId: "h-accepted", notionalBefore: 30_000, status: "rejected" });
  });

  it("a side's hedge on the first page of filled hedges is looked for no further: one list request before the Add leaves", async () => {
    const w = world();
    for (let i = 0; i < 600; i++) w.service.seed({ market: `USDTX${i}` });
    w.service.seed({ id: "h-mine", notional_usd: 70_000 });
    let readBeforeSend: string[] = [];
    w.service.onPost = () => void (readBeforeSend = [...w.service.reads]);
    const desk = await w.desk();
    await Promise.all([desk.send(previewOf([addRow(5_000)])), advance(100)]);
    expect(readBeforeSend.filter((r) => r.startsWith("list"))).toEqual(["list status=filled limit=500"]);
    expect((await w.log())[0]).toMatchObject({ hedgeId: "h-mine", notionalBefore: 70_000 });
  });

  it("a side's hedge older than the newest 10,000 filled ones is not looked for further: nothing is sent, and the row says why", async () => {
    const w = world();
    w.service.seed({ id: "h-mine", notional_usd: 70_000 });
    for (let i = 0; i < 10_000; i++) w.service.seed({ market: `USDTX${i}` });
    const desk = await w.desk();
    const sending = desk.send(previewOf([addRow(5_000)]));
    await advance(100);
    expect((await sending).rows[0]).toMatchObject({
      status: "rejected",
      errorCode: "no_open_hedge",
      message:
        "No open hedge on USDTNGN buy among the newest 10,000 filled and accepted hedges (the service lists more): nothing was sent. Check the hedge on the service.",
    });
    expect(w.service.posts).toEqual([]);
    expect(w.service.reads.filter((r) => r.startsWith("list status=filled"))).toHaveLength(20);
  });
});

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
    expect(desk.pending()).toEqual([]);
    expect(desk.waits()).toEqual([
      expect.objectContaining({ reason: "needs_decision", queued: 1, row: expect.objectContaining({ idempotencyKey: r.idempotencyKey }) }),
    ]);
    expect(w.service.posts).toEqual([]);
    const decided = await desk.decide(r.idempotencyKey, "not_done");
    expect(decided).toMatchObject({
      status: "not_sent",
      errorCode: null,
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
});

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
});

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

describe("reading the selection", () => {
  it("the Hedge Log itself is not a selection of trades; a failed read is shown as a selection problem", async () => {
    const w = world();
    w.workbook.setSheet("Hedge Log", [["x"]]).select("Hedge Log", "A1:A1");
    const desk = await w.desk({ account: ACCOUNT });
    const e = await desk.readRows("open").catch((x: unknown) => x as Error);
    expect(e).toMatchObject({
      code: "selection",
      message: "The selection is on the Hedge Log sheet: select the rows of your exposure sheet instead.",
    });
    w.workbook.readSelection = () => Promise.reject("Excel closed the workbook");
    expect(await desk.readRows("open").catch((x: unknown) => x)).toMatchObject({ code: "selection", message: "Excel closed the workbook" });
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
    const desk = await createDesk({ client: w.service.client(), workbook: other, intentStore: w.store, pollIntervalMs: 1_000 });
    afterEachDesk.push(() => desk.stop());
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
    // The same file with its log gone (its id is saved in it): a final row is listed, not written back unasked.
    const emptied = new MemoryWorkbook({ customProperties: Object.fromEntries(w.workbook.customProperties) });
    const desk = await createDesk({ client: w.service.client(), workbook: emptied, intentStore: w.store, pollIntervalMs: 1_000 });
    afterEachDesk.push(() => desk.stop());
    const plan = await desk.inspect();
    expect(plan.missing).toEqual([expect.objectContaining({ idempotencyKey: r.idempotencyKey, status: "filled" })]);
    expect(await desk.restore([r.idempotencyKey])).toEqual([expect.objectContaining({ idempotencyKey: r.idempotencyKey })]);
    expect(await emptied.readLog()).toEqual([expect.objectContaining({ idempotencyKey: r.idempotencyKey, status: "filled" })]);
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
});

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
    expect(again.skipped).toEqual([{ rowNumber: 2, reason: ALREADY_SENT }]);
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
