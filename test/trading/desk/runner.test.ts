// The row runner's sends that follow a question to the service: a resumed row this computer never sent is journalled as sent (Sent at, in the log) before its request leaves, then sent once with its own key.
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { journalledOpen, OPEN_KEY } from "./resumed-open";
import { useDeskWorlds } from "../../support/desk-world";

const START = Date.parse("2025-03-04T05:06:07.000Z");

beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: START }));
afterEach(() => jest.useRealTimers());

let desk: TradingDesk | null = null;
afterEach(() => desk?.stop());
useDeskWorlds();

describe("a resumed Open this computer never sent, which the service does not show", () => {
  it("is asked about, then journalled as sent before its request leaves, and sent once with its own key", async () => {
    // The pane closed after the row was journalled and before it left: Sent at is empty.
    const world = await journalledOpen(START);
    const { service, workbook } = world;

    // What the log says at the moment the request reaches the service.
    const sentAtWhenPosted: Array<string | null | undefined> = [];
    service.onPost = async (post) => {
      sentAtWhenPosted.push((await workbook.readLog()).find((r) => r.idempotencyKey === post.key)?.sentAt);
    };
    desk = await world.desk(1_000);
    await desk.resume();
    await jest.advanceTimersByTimeAsync(2_000);

    expect(service.posts.map((p) => [p.op, p.key])).toEqual([["open", OPEN_KEY]]);
    expect(sentAtWhenPosted).toEqual([new Date(START).toISOString()]);
    expect(await world.row()).toMatchObject({ status: "submitted", sentAt: new Date(START).toISOString() });
  });
});
