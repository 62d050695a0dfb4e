// The fill follower across a stop: a desk stopped while a row waits for its fill (between polls, or with a poll out) makes no poll after it, and used again follows that row to its fill with one poll at a time; a round with a row not done yet still records the others.
import type { TradingDesk } from "../../../src/trading/desk/contract";
import { journalledOpen } from "./resumed-open";
import { addRow, byKey, iso, row, useDeskWorlds, world } from "../../support/desk-world";

const START = Date.parse("2025-03-04T05:06:07.000Z");

beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate"], now: START }));
afterEach(() => jest.useRealTimers());

let desk: TradingDesk | null = null;
afterEach(() => desk?.stop());
useDeskWorlds();

/** A resumed Open, sent and accepted (not filled yet), followed by a desk polling every second. */
async function waitingForItsFill(errors: string[]) {
  const world = await journalledOpen(START);
  desk = await world.desk(1_000, errors);
  await desk.resume();
  await jest.advanceTimersByTimeAsync(1_500);
  expect(await world.row()).toMatchObject({ status: "submitted" });
  return { ...world, desk };
}

it("a desk stopped between polls makes no poll; asked to follow again, it records the fill", async () => {
  const errors: string[] = [];
  const { service, desk, row } = await waitingForItsFill(errors);

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

it("a desk stopped while a poll is out makes no poll after that one, and started again polls one round at a time", async () => {
  const errors: string[] = [];
  const { service, desk, row } = await waitingForItsFill(errors);
  // A slow service: each read answers 3 s after it arrives, longer than the poll interval.
  service.readDelayMs = 3_000;
  await jest.advanceTimersByTimeAsync(1_000);
  const readsAtStop = service.reads.length;
  expect(service.maxReadsInFlight).toBe(1);

  // Stopped with that read out: when it answers, nothing more is asked.
  desk.stop();
  await jest.advanceTimersByTimeAsync(10_000);
  expect(service.reads.length).toBe(readsAtStop);

  // Stopped again with a read out, then at once asked to follow: the stopped round's end starts no second chain of polls.
  desk.startFillPolling();
  await jest.advanceTimersByTimeAsync(500);
  desk.stop();
  desk.startFillPolling();
  service.fill();
  await jest.advanceTimersByTimeAsync(20_000);
  expect(await row()).toMatchObject({ status: "filled", struckRate: 1501 });
  // Two rounds overlap at most once (the stopped one's read still out); never a third.
  expect(service.maxReadsInFlight).toBeLessThanOrEqual(2);
  expect(errors).toEqual([]);
});

it("a send whose every row is refused leaves nothing to follow and makes no poll", async () => {
  const world = await journalledOpen(START);
  const { service } = world;
  service.fail("open", { code: "invalid_request", status: 400, message: "Scripted refusal." });
  const d = (desk = await world.desk(1_000));
  await d.resume();
  await jest.advanceTimersByTimeAsync(1_000);
  expect(await world.row()).toMatchObject({ status: "rejected" });
  const readsAfterRefusal = service.reads.length;
  d.startFillPolling();
  await jest.advanceTimersByTimeAsync(5_000);
  expect(service.reads.slice(readsAfterRefusal)).toEqual([]);
});

it("a poll round in which the service does not show an accepted Add yet keeps following it, and records the other rows it shows done", async () => {
  const w = world();
  // The Add was accepted; its hedge still stands at the notional before it. The Open on the other side has filled.
  w.service.seed({ id: "h-1", client_reference: "D-1", notional_usd: 10_000, status: "filled", opened_at: iso(START) });
  w.service.seed({ id: "h-2", client_reference: "D-2", side: "sell", notional_usd: 20_000, status: "filled", opened_at: iso(START) });
  const add = await w.journalled(addRow(5_000), { sentAt: iso(START), status: "submitted", hedgeId: "h-1", notionalBefore: 10_000 });
  const sell = row({ rowNumber: 3, side: "sell", notional: 20_000, clientReference: "D-2" });
  const open = await w.journalled(sell, { sentAt: iso(START), status: "submitted", hedgeId: "h-2" });
  desk = await w.desk();
  await desk.resume();
  await jest.advanceTimersByTimeAsync(1_500);
  expect(await byKey(w, add.idempotencyKey)).toMatchObject({ status: "submitted" });
  expect(await byKey(w, open.idempotencyKey)).toMatchObject({ status: "filled" });
  expect(w.errors).toEqual([]);

  // The Add takes effect: the next round records it.
  w.service.hedges[0].notional_usd = 15_000;
  await jest.advanceTimersByTimeAsync(2_000);
  expect(await byKey(w, add.idempotencyKey)).toMatchObject({ status: "filled" });
  expect(w.errors).toEqual([]);
});
