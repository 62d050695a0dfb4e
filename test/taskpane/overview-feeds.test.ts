// The overview's feeds on simulated time: at most one request per 2 s per figure while the pane is visible, none while it is hidden, a fresh value at once when shown again.
import { ManualClock } from "../../src/feeds/clock";
import { FeedHub } from "../../src/feeds/hub";
import { ManualVisibility } from "../../src/feeds/visibility";
import { positionsTopic } from "../../src/feeds/topics";
import { followOverview } from "../../src/taskpane/overview-feeds";
import { feedStatusText } from "../../src/taskpane/overview-model";
import { FakeClient, FakeSource } from "../feeds/fake-client";

function setup(visible = true) {
  const clock = new ManualClock();
  const client = new FakeClient();
  const hub = new FeedHub({ source: new FakeSource(client), clock });
  const visibility = new ManualVisibility(visible);
  const seen = { account: 0, markets: 0, prices: 0 };
  const pane = followOverview(hub, visibility, {
    account: (s) => void (s.value && seen.account++),
    markets: (s) => void (s.value && seen.markets++),
    prices: (s) => void (s.value && seen.prices++),
  });
  const advance = (ms: number) => clock.advance(ms, () => hub.settled());
  return { clock, client, hub, visibility, pane, seen, advance };
}

test("pane visible, no cells: at most one request per 2 s per figure shown", async () => {
  const { client, pane, advance } = setup();
  pane.setConnected(true);
  await advance(60_000);
  expect(client.count("account")).toBeLessThanOrEqual(31); // 0, 2, …, 60 s
  expect(client.count("prices")).toBeLessThanOrEqual(31);
  expect(client.count("markets")).toBeLessThanOrEqual(13); // every 5 s (it also answers the allowed-markets check)
  expect(client.count("account")).toBeGreaterThanOrEqual(30);
});

test("pane hidden and no cells: zero requests over 60 s, and a poll under way when it hides is aborted", async () => {
  const { client, hub, pane, visibility, advance } = setup();
  pane.setConnected(true);
  await advance(1_000);
  const release = client.hold();
  const sent = client.count();
  hub.refresh(); // the pane's three polls go out and wait for their answers
  await new Promise((r) => setImmediate(r));
  const inFlight = client.calls.slice(sent);
  expect(inFlight.map((c) => c.method).sort()).toEqual(["account", "markets", "prices"]);
  visibility.set(false);
  expect(pane.following).toBe(false);
  for (const call of inFlight) expect(call.signal?.aborted).toBe(true);
  release();
  await advance(0);
  const before = client.count();
  await advance(60_000);
  expect(client.count()).toBe(before);
});

test("a pane that starts hidden sends nothing until shown; shown again, it gets a fresh value at once", async () => {
  const { client, pane, visibility, seen, advance } = setup(false);
  pane.setConnected(true);
  await advance(60_000);
  expect(client.count()).toBe(0);
  visibility.set(true);
  await advance(0);
  expect(seen.account).toBe(1);
  expect(seen.prices).toBe(1);
  expect(client.count("account")).toBe(1);

  await advance(10_000);
  visibility.set(false);
  await advance(10_000); // hidden for longer than the intervals
  const before = { account: seen.account, requests: client.count("account") };
  visibility.set(true);
  expect(seen.account).toBe(before.account + 1); // the last value at once…
  await advance(0);
  expect(client.count("account")).toBe(before.requests + 1); // …and a fresh one right after
  expect(seen.account).toBe(before.account + 2);
});

test("forgetting the key (disconnected) stops the pane's polls even while visible", async () => {
  const { client, pane, advance } = setup();
  pane.setConnected(true);
  await advance(0);
  pane.setConnected(false);
  const before = client.count();
  await advance(30_000);
  expect(client.count()).toBe(before);
});

test("the pane's status line shows the requests of the last minute, the 429s among them and the rate allowed now", () => {
  const status = {
    environment: "sandbox" as const,
    connected: true,
    reason: "",
    lastError: null,
    lastSuccessAt: Date.UTC(2026, 10, 2, 9, 30, 5),
    requestsInLastMinute: 84,
    ratePerSecond: 19.5,
    rateLimitedInLastMinute: 2,
    paused: false,
    activeTopics: 3,
  };
  expect(feedStatusText(status)).toBe(
    "Live data updating, last answer 09:30:05 UTC; 84 requests in the last minute, 2 refused (429), up to 19.5/s.",
  );
  expect(feedStatusText({ ...status, rateLimitedInLastMinute: 0 })).toBe(
    "Live data updating, last answer 09:30:05 UTC; 84 requests in the last minute, up to 19.5/s.",
  );
});

test("the maturities' positions: polled with the overview while it shows, one poll shared with =HEDGE.POSITIONS cells, none while hidden", async () => {
  const clock = new ManualClock();
  const client = new FakeClient();
  const hub = new FeedHub({ source: new FakeSource(client), clock });
  const visibility = new ManualVisibility(true);
  let positions = 0;
  const pane = followOverview(hub, visibility, {
    account: () => undefined,
    markets: () => undefined,
    prices: () => undefined,
    positions: (s) => void (s.value && positions++),
  });
  const cell = hub.subscribe(positionsTopic(), () => undefined);
  const advance = (ms: number) => clock.advance(ms, () => hub.settled());
  pane.setConnected(true);
  await advance(30_000);
  expect(positions).toBeGreaterThan(0);
  const polled = client.count("positions");
  expect(polled).toBeGreaterThan(0);
  // One request per interval for the pane and the cell together (the same topic).
  expect(polled).toBeLessThanOrEqual(Math.ceil(30_000 / 2_000) + 1);
  cell();
  visibility.set(false);
  await advance(0);
  const before = client.count("positions");
  await advance(60_000);
  expect(client.count("positions")).toBe(before);
  pane.dispose();
});
