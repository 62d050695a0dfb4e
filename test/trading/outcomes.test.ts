// What a failed send means for a row: only a 4xx refusal the service sent is `rejected`; an unreadable 200 or a key reused with another body leaves the row unfinished, counted as done, and re-asked with the same key.
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { createDesk } from "../../src/trading/desk";
import { Journal } from "../../src/trading/journal";
import { intentFromRow } from "../../src/trading/intent";
import { findDuplicate } from "../../src/trading/duplicates";
import { LOG_COLUMNS, LOG_SHEET_NAME } from "../../src/trading/hedge-log";
import { HedgingApiError } from "../../src/api/errors";
import type { HedgingClient } from "../../src/api/client";
import type { Hedge } from "../../src/api/schemas";
import type { TradeRow } from "../../src/trading/types";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";

const openRow: TradeRow = {
  rowNumber: 2,
  action: "open",
  market: "USDTNGN",
  side: "buy",
  notional: 100_000,
  tenor: 7,
  clientReference: "D-1",
};

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
    ...over,
  } as unknown as Hedge;
}

/** A client whose open answers from a script; list/get show one hedge. */
function fakeClient(openAnswers: Array<() => Promise<unknown>>) {
  const keys: string[] = [];
  const client = {
    environment: "sandbox",
    open: jest.fn(async (_body: unknown, options: { idempotencyKey: string }) => {
      keys.push(options.idempotencyKey);
      const next = openAnswers.shift();
      if (!next) throw new Error("no more scripted answers");
      return next();
    }),
    list: jest.fn(async () => ({ data: [hedge()] })),
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

async function journalled(workbook: MemoryWorkbook) {
  const intent = intentFromRow(openRow, "key-1", "sandbox", "2025-03-04T05:06:07.000Z");
  await new Journal(workbook).append([intent]);
  return intent;
}

describe("a send whose outcome the service did not make clear", () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"] }));
  afterEach(() => jest.useRealTimers());

  it.each([
    ["invalid_response", 200],
    ["idempotency_key_reuse", 409],
  ])(
    "%s leaves the row unfinished (counted as done), says the outcome is unknown, and re-asks with the same key at the slow cadence",
    async (code, status) => {
      const workbook = new MemoryWorkbook();
      await journalled(workbook);
      const { client, keys } = fakeClient([failWith({ code, status, message: "Something odd." }), accepted]);
      const desk = createDesk({ client, workbook, pollIntervalMs: 1_000 });
      const resumed = desk.resume();
      await jest.advanceTimersByTimeAsync(10);
      await resumed;
      await jest.advanceTimersByTimeAsync(200);
      const [row] = await workbook.readLog();
      expect(row).toMatchObject({ status: "submitting", errorCode: code });
      expect(row.message).toMatch(/Outcome unknown/);
      expect(row.message).toMatch(/Check the hedge on the service/);
      // The duplicate check counts it as done: "send again" is needed to repeat it.
      expect(findDuplicate(openRow, "sandbox", await workbook.readLog(), null)).toMatchObject({
        idempotencyKey: "key-1",
        status: "submitting",
      });
      // Not re-sent at the fast cadence (1 s), but at the slow one (15 s), with the same key.
      await jest.advanceTimersByTimeAsync(5_000);
      expect(keys).toEqual(["key-1"]);
      await jest.advanceTimersByTimeAsync(11_000);
      expect(keys).toEqual(["key-1", "key-1"]);
      await jest.advanceTimersByTimeAsync(500);
      expect((await workbook.readLog())[0]).toMatchObject({ status: "submitted", hedgeId: "h-1", errorCode: null });
      desk.stop();
    },
  );

  it("a 4xx refusal the service sent is final `rejected` and not a duplicate", async () => {
    const workbook = new MemoryWorkbook();
    await journalled(workbook);
    const { client, keys } = fakeClient([failWith({ code: "hedge_exists", status: 409, message: "A hedge is already open." })]);
    const desk = createDesk({ client, workbook, pollIntervalMs: 1_000 });
    const resumed = desk.resume();
    await jest.advanceTimersByTimeAsync(10);
    await resumed;
    await jest.advanceTimersByTimeAsync(30_000);
    expect(keys).toEqual(["key-1"]);
    const log = await workbook.readLog();
    expect(log[0]).toMatchObject({ status: "rejected", errorCode: "hedge_exists" });
    expect(findDuplicate(openRow, "sandbox", log, null)).toBeNull();
    desk.stop();
  });

  it("429 stays transient (resent soon with the same key), never rejected", async () => {
    const workbook = new MemoryWorkbook();
    await journalled(workbook);
    const { client, keys } = fakeClient([failWith({ code: "rate_limited", status: 429, message: "Slow down." }), accepted]);
    const desk = createDesk({ client, workbook, pollIntervalMs: 1_000 });
    const resumed = desk.resume();
    await jest.advanceTimersByTimeAsync(10);
    await resumed;
    await jest.advanceTimersByTimeAsync(2_500);
    expect(keys).toEqual(["key-1", "key-1"]);
    expect((await workbook.readLog())[0]).toMatchObject({ status: "submitted" });
    desk.stop();
  });
});

describe("log writes the user should know about", () => {
  it("a log row deleted while its trade is in flight reaches DeskOptions.onError, and the other rows are still updated", async () => {
    const workbook = new MemoryWorkbook();
    const a = intentFromRow(openRow, "key-a", "sandbox", "2025-03-04T05:06:07.000Z");
    const b = intentFromRow({ ...openRow, side: "sell", clientReference: "D-2" }, "key-b", "sandbox", "2025-03-04T05:06:07.000Z");
    await new Journal(workbook).append([a, b]);
    const deleteRowA = () => {
      // The user deletes row a (its key cell goes) while its request is out.
      const cells = workbook.cells(LOG_SHEET_NAME);
      cells[1][LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey")] = "";
      workbook.setSheet(LOG_SHEET_NAME, cells);
      return accepted();
    };
    const errors: Error[] = [];
    const { client } = fakeClient([deleteRowA, accepted]);
    const desk = createDesk({ client, workbook, account: null, concurrency: 1, pollIntervalMs: 60_000, onError: (e) => errors.push(e) });
    await desk.resume();
    desk.stop();
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining("has no row with idempotency key key-a")]);
    expect((await workbook.readLog()).find((r) => r.idempotencyKey === "key-b")).toMatchObject({ status: "submitted" });
  });
});
