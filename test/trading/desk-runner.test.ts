// The row runner's sends that follow a question to the service: a resumed row this computer never sent is journalled as sent (Sent at, in the log) before its request leaves, then sent once with its own key.
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

describe("a resumed Open this computer never sent, which the service does not show", () => {
  it("is asked about, then journalled as sent before its request leaves, and sent once with its own key", async () => {
    const service = new FakeService();
    const workbook = new MemoryWorkbook();
    const store = new MemoryIntentStore();
    // The pane closed after the row was journalled and before it left: Sent at is empty.
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

    // What the log says at the moment the request reaches the service.
    const sentAtWhenPosted: Array<string | null | undefined> = [];
    service.onPost = async (post) => {
      sentAtWhenPosted.push((await workbook.readLog()).find((r) => r.idempotencyKey === post.key)?.sentAt);
    };
    desk = await createDesk({ client: service.client(), workbook, intentStore: store, pollIntervalMs: 1_000 });
    await desk.resume();
    await jest.advanceTimersByTimeAsync(2_000);

    expect(service.posts.map((p) => [p.op, p.key])).toEqual([["open", "key-open"]]);
    expect(sentAtWhenPosted).toEqual([new Date(START).toISOString()]);
    expect((await workbook.readLog()).find((r) => r.idempotencyKey === "key-open")).toMatchObject({
      status: "submitted",
      sentAt: new Date(START).toISOString(),
    });
  });
});
