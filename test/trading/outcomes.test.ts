// What a failed send means for a row: a 4xx refusal is `rejected`; anything that may have acted (an unreadable 200, a key reused, a 429, a 5xx) is asked about before any re-send, re-sent with the same key only while young, and capped: then the user decides.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { DOUBT_MAX_ROUNDS } from "../../src/trading/desk/rule";
import { Journal } from "../../src/trading/journal";
import { intentFromRow } from "../../src/trading/intent";
import { intentScope } from "../../src/trading/intent-store";
import { findDuplicate } from "../../src/trading/duplicates";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/log/hedge-log";
import { HedgingApiError } from "../../src/api/errors";
import type { HedgingClient } from "../../src/api/client";
import type { Hedge } from "../../src/api/schemas";
import type { TradeRow } from "../../src/trading/types";
import { OPEN_ROW } from "../support/builders";
import { useDeskWorlds, world } from "../support/desk-world";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const KEY_ID = "k-this-api-key";
const LOGGED = "2025-03-04T05:06:07.000Z";

useDeskWorlds();

const openRow: TradeRow = { ...OPEN_ROW, clientReference: "D-1" };

function hedge(over: Partial<Hedge> = {}): Hedge {
  return {
    id: "h-1",
    market: "USDTNGN",
    side: "buy",
    notional_usd: 100_000,
    tenor_days: 7,
    status: "submitted",
    order_tx_hash: "0xorder",
    fill_tx_hash: null,
    struck_rate: null,
    filled_at: null,
    client_reference: "D-1",
    opened_at: LOGGED,
    ...over,
  } as unknown as Hedge;
}

/** A client whose open answers from a script; the service's hedge list shows `listed()` (nothing by default). */
function fakeClient(openAnswers: Array<() => Promise<unknown>>, listed: () => Hedge[] = () => []) {
  const keys: string[] = [];
  const client = {
    environment: "sandbox",
    keyId: KEY_ID,
    open: jest.fn(async (_body: unknown, options: { idempotencyKey: string }) => {
      keys.push(options.idempotencyKey);
      const next = openAnswers.shift();
      if (!next) throw new Error("no more scripted answers");
      return next();
    }),
    list: jest.fn(async () => ({ data: listed() })),
    get: jest.fn(async () => ({ data: hedge() })),
    account: jest.fn(async () => ({ data: { account_address: ACCOUNT } })),
  };
  return { client: client as unknown as HedgingClient, keys, open: client.open };
}

const accepted = () =>
  Promise.resolve({
    data: { hedge_id: "h-1", order_tx_hash: "0xorder", status: "submitted", quote: { notional_usd: 100_000 } },
    meta: {},
    idempotencyKey: "x",
  });
const failWith = (init: ConstructorParameters<typeof HedgingApiError>[0]) => () => Promise.reject(new HedgingApiError(init));

/** A row this computer journalled and sent a moment ago under this key (its answer was lost): the desk knows it. */
async function sentRow(workbook: MemoryWorkbook, store: MemoryIntentStore, sentAt = LOGGED) {
  const intent = intentFromRow(openRow, "key-1", "sandbox", LOGGED, ACCOUNT);
  intent.keyId = KEY_ID;
  const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
  await journal.append([intent]);
  journal.update(intent, { sentAt });
  await journal.flush();
  return intent;
}

describe("a send whose outcome the service did not make clear", () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: Date.parse(LOGGED) + 1_000 }));
  afterEach(() => jest.useRealTimers());

  it.each([
    ["invalid_response", 200],
    ["idempotency_key_reuse", 409],
  ])(
    "%s: the row stays unfinished (counted as done), the service is asked before each re-send with the same key, and after a capped number of rounds the user decides",
    async (code) => {
      const { workbook, store, desk: deskOf } = world();
      await sentRow(workbook, store);
      const odd = failWith({ code, status: code === "invalid_response" ? 200 : 409, message: "Something odd." });
      const { client, keys } = fakeClient(Array.from({ length: 20 }, () => odd));
      const list = client.list as jest.Mock;
      const desk = await deskOf({ client });
      await desk.resume();
      await jest.advanceTimersByTimeAsync(500);
      let [row] = await workbook.readLog();
      expect(row).toMatchObject({ status: "submitting", errorCode: code });
      expect(row.message).toMatch(/Outcome unknown/);
      // The duplicate check counts it as done: "send again" is needed to repeat it.
      expect(
        findDuplicate(openRow, "sandbox", await workbook.readLog(), ACCOUNT, { dayStart: "2025-03-04T00:00:00.000Z", hedgeId: null }),
      ).toMatchObject({
        idempotencyKey: "key-1",
      });
      // Each re-send follows a question to the service (its hedges with this client reference).
      await jest.advanceTimersByTimeAsync(60_000);
      expect(keys.every((k) => k === "key-1")).toBe(true);
      expect(list.mock.calls.length).toBeGreaterThanOrEqual(keys.length);
      // Capped: after DOUBT_MAX_ROUNDS unclear answers the row waits for the user, and nothing more is sent.
      expect(keys.length).toBe(DOUBT_MAX_ROUNDS);
      [row] = await workbook.readLog();
      expect(row.status).toBe("needs_decision");
      expect(row.message).toContain(`Asked 6 times without a clear answer (last: ${code}).`);
      expect(row.message).toMatch(/^Needs your decision: /);
      await jest.advanceTimersByTimeAsync(600_000);
      expect(keys.length).toBe(DOUBT_MAX_ROUNDS);
      expect(desk.pending()).toEqual([]);
      desk.stop();
    },
  );

  it("when the service shows the row's hedge, it is adopted and never sent again", async () => {
    const { workbook, store, desk: deskOf } = world();
    await sentRow(workbook, store);
    const { client, keys } = fakeClient([], () => [
      hedge({ status: "filled", fill_tx_hash: "0xfill", struck_rate: 1501, filled_at: LOGGED }),
    ]);
    const desk = await deskOf({ client });
    await desk.resume();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(keys).toEqual([]);
    expect((await workbook.readLog())[0]).toMatchObject({ status: "filled", hedgeId: "h-1", fillTxHash: "0xfill" });
    desk.stop();
  });

  it("a row sent more than the resend window ago, not on the service, is never re-sent: the user decides", async () => {
    const { workbook, store, desk: deskOf } = world();
    jest.setSystemTime(Date.parse(LOGGED) + 25 * 3_600_000);
    await sentRow(workbook, store);
    const { client, keys } = fakeClient([accepted]);
    const desk = await deskOf({ client });
    const plan = await desk.inspect();
    expect(plan.items.map((i) => i.step)).toEqual(["decide"]);
    await desk.resume();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(keys).toEqual([]);
    const [row] = await workbook.readLog();
    expect(row.status).toBe("needs_decision");
    expect(row.message).toMatch(/It was sent 25 h ago: the service may have forgotten its idempotency key/);
    desk.stop();
  });

  it("a row sent with another API key (a key rotation) is never re-sent under this one", async () => {
    const { workbook, store, desk: deskOf } = world();
    const intent = await sentRow(workbook, store);
    void intent;
    const { client, keys } = fakeClient([accepted]);
    (client as unknown as { keyId: string }).keyId = "k-the-new-key";
    const desk = await deskOf({ client });
    await desk.resume();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(keys).toEqual([]);
    expect((await workbook.readLog())[0].message).toMatch(/sent with another API key/);
    desk.stop();
  });

  it("a 4xx refusal the service sent is final `rejected` and not a duplicate", async () => {
    const { workbook, store, desk: deskOf } = world();
    await sentRow(workbook, store);
    const { client, keys } = fakeClient([failWith({ code: "hedge_exists", status: 409, message: "A hedge is already open." })]);
    const desk = await deskOf({ client });
    await desk.resume();
    await jest.advanceTimersByTimeAsync(30_000);
    expect(keys).toEqual(["key-1"]);
    const log = await workbook.readLog();
    expect(log[0]).toMatchObject({ status: "rejected", errorCode: "hedge_exists" });
    expect(findDuplicate(openRow, "sandbox", log, ACCOUNT, { dayStart: "2025-03-04T00:00:00.000Z", hedgeId: null })).toBeNull();
    desk.stop();
  });

  it("429 stays transient: asked about, then re-sent soon with the same key, never rejected", async () => {
    const { workbook, store, desk: deskOf } = world();
    await sentRow(workbook, store);
    const { client, keys } = fakeClient([failWith({ code: "rate_limited", status: 429, message: "Slow down." }), accepted]);
    const desk = await deskOf({ client });
    await desk.resume();
    await jest.advanceTimersByTimeAsync(2_500);
    expect(keys).toEqual(["key-1", "key-1"]);
    expect((await workbook.readLog())[0]).toMatchObject({ status: "submitted" });
    desk.stop();
  });
});

describe("log writes the user should know about", () => {
  it("a log row deleted while its trade is in flight reaches onError and is written again at the end; the other rows are still updated", async () => {
    const { workbook, store, errors, desk: deskOf } = world();
    const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
    const a = intentFromRow(openRow, "key-a", "sandbox", LOGGED, ACCOUNT);
    const b = intentFromRow({ ...openRow, side: "sell", clientReference: "D-2" }, "key-b", "sandbox", LOGGED, ACCOUNT);
    a.keyId = b.keyId = KEY_ID;
    await journal.append([a, b]);
    const deleteRowA = () => {
      // The user deletes row a (its key cell goes) while its request is out.
      const cells = workbook.cells(LOG_SHEET_NAME);
      cells[1][LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey")] = "";
      workbook.setSheet(LOG_SHEET_NAME, cells);
      return accepted();
    };
    const { client } = fakeClient([deleteRowA, accepted]);
    const desk = await deskOf({ client, concurrency: 1, pollIntervalMs: 60_000 });
    await desk.resume();
    for (let i = 0; i < 100 && desk.pending().some((r) => r.status !== "submitted"); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200)); // the journal's coalesced write
    desk.stop();
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining("has no row with idempotency key key-a")]);
    const log = await workbook.readLog();
    expect(log.find((r) => r.idempotencyKey === "key-b")).toMatchObject({ status: "submitted" });
    expect(log.filter((r) => r.idempotencyKey === "key-a")).toEqual([expect.objectContaining({ status: "submitted", hedgeId: "h-1" })]);
  });
});
