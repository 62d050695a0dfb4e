// The fill follower across a stop: a desk stopped while a row waits for its fill, then used again, follows that row to its fill (no poll left armed by the stop keeps it from starting again).
import { MemoryWorkbook } from "../../src/excel/memory-workbook";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { createDesk } from "../../src/trading/desk";
import { Journal } from "../../src/trading/journal";
import { intentFromRow } from "../../src/trading/intent";
import { intentScope } from "../../src/trading/intent-store";
import type { TradingDesk } from "../../src/trading/types";
import { ACCOUNT, FakeService, KEY_ID } from "./fake-service";

const START = Date.parse("2025-03-04T05:06:07.000Z");

beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: START }));
afterEach(() => jest.useRealTimers());

let desk: TradingDesk | null = null;
afterEach(() => desk?.stop());

it("a desk stopped while a row waits for its fill, then asked to follow again, records the fill", async () => {
  const service = new FakeService();
  const workbook = new MemoryWorkbook();
  const store = new MemoryIntentStore();
  const open = intentFromRow(
    { rowNumber: 2, action: "open", market: "USDTNGN", side: "buy", notional: 10_000, tenor: 7, clientReference: "D-1" },
    "key-open",
    "sandbox",
    new Date(START).toISOString(),
    ACCOUNT,
  );
  open.keyId = KEY_ID;
  const journal = new Journal(workbook, { store, scope: intentScope("sandbox", ACCOUNT) });
  await journal.load();
  await journal.append([open]);
  await journal.flush();

  const errors: string[] = [];
  desk = await createDesk({
    client: service.client(),
    workbook,
    intentStore: store,
    pollIntervalMs: 1_000,
    onError: (e) => errors.push(e.message),
  });
  await desk.resume();
  await jest.advanceTimersByTimeAsync(1_500);
  const row = async () => (await workbook.readLog()).find((r) => r.idempotencyKey === "key-open");
  expect(await row()).toMatchObject({ status: "submitted" });

  // The pane stops the desk (e.g. hidden) while the row waits; polls that were due meanwhile are not made.
  desk.stop();
  const readsAtStop = service.reads.length;
  await jest.advanceTimersByTimeAsync(5_000);
  expect(service.reads.length).toBe(readsAtStop);
  expect(errors).toEqual([]);

  // The hedge fills; the desk is asked to follow again and records it.
  service.fill();
  desk.startFillPolling();
  await jest.advanceTimersByTimeAsync(3_000);
  expect(await row()).toMatchObject({ status: "filled", struckRate: 1501 });
  expect(service.posts).toHaveLength(1);
});
