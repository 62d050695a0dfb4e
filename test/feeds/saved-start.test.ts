// The saved connection started by the functions' engine (src/feeds/saved-start.ts) against the real sandbox: the cells' client and the key's check at once, the check's answer handed to the pane once (one GET /account in all), and nothing sent where the pane's restore would refuse.
import { OPEN_POLICY } from "../../src/api/environment";
import { fetchTransport, type HttpTransport } from "../../src/api/transport";
import { Connection } from "../../src/feeds/connection";
import { noteSavedStart, savedCheckSent, savedStartAnswered, startSavedConnection, takeSavedCheck } from "../../src/feeds/saved-start";
import { FeedHub } from "../../src/feeds/hub";
import { pricesTopic } from "../../src/feeds/topics";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import type { RunningSandbox } from "../../src/sandbox/server";
import { memoryStore } from "../../src/excel/settings";
import { ConnectionController } from "../../src/taskpane/connection-controller";
import { start } from "../sandbox/helpers";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.close());

/** A connection whose every request is noted ("GET /v2/account"). */
function counted(): { connection: Connection; sent: string[] } {
  const sent: string[] = [];
  const transport: HttpTransport = (request) => {
    sent.push(`${request.method} ${new URL(request.url).pathname}`);
    return fetchTransport(request);
  };
  return { connection: new Connection({ transport }), sent };
}

const saved = (baseUrl: string, origin: string = new URL(baseUrl).origin) =>
  memoryStore({ "hedge.apiKey": DEMO_API_KEY, "hedge.baseUrl": baseUrl, "hedge.apiKeyOrigin": origin });

test("the pane does not wait when no saved start was noted", async () => {
  const hub = { settled: () => new Promise<void>(() => undefined) };
  const started = Date.now();
  await savedStartAnswered(hub, 10_000);
  expect(Date.now() - started).toBeLessThan(1_000);
});

test("the pane waits for the saved start's first answers: the key's check and the cells' first price, set before it runs", async () => {
  const { connection } = counted();
  const hub = new FeedHub({ source: connection });
  const values: unknown[] = [];
  hub.subscribe(pricesTopic("USDTNGN"), (s) => void values.push(s.value));
  noteSavedStart(startSavedConnection(saved(sb.baseUrl), connection, OPEN_POLICY, ""));
  // In time: the pane's start may load the panels' code at once (pane-start.ts), the check being still untaken.
  await expect(savedStartAnswered(hub, 10_000)).resolves.toBe(true);
  expect(values.filter((v) => v !== undefined)).toHaveLength(1);
  expect(savedCheckSent()).toBe(true);
  expect(takeSavedCheck(DEMO_API_KEY, sb.baseUrl)).not.toBeNull();
  expect(savedCheckSent()).toBe(false);
  hub.dispose();
});

test("a saved start whose answers do not come holds the pane no longer than the limit", async () => {
  noteSavedStart(new Promise(() => undefined));
  const started = Date.now();
  // Not in time: the pane starts, but loads the panels' code only once it connects.
  await expect(savedStartAnswered({ settled: async () => undefined }, 200)).resolves.toBe(false);
  expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  expect(Date.now() - started).toBeLessThan(2_000);
});

test("a saved key starts the cells' client and its check at once; the pane takes the answer instead of asking again", async () => {
  const { connection, sent } = counted();
  const store = saved(sb.baseUrl);
  await startSavedConnection(store, connection, OPEN_POLICY, "");
  expect(connection.client).not.toBeNull();
  expect(connection.ready).toBe(true);
  const controller = new ConnectionController({ store, connection, defaultBaseUrl: "", sentCheck: takeSavedCheck });
  const state = await controller.restore();
  expect(state.status).toBe("connected");
  expect(sent.filter((s) => s.endsWith("/account"))).toEqual(["GET /v2/account"]);
  // Taken once: a later connect asks the service itself.
  expect(takeSavedCheck(DEMO_API_KEY, sb.baseUrl)).toBeNull();
});

test("a check sent for another key or base URL is not taken", async () => {
  const { connection } = counted();
  await startSavedConnection(saved(sb.baseUrl), connection, OPEN_POLICY, "");
  expect(takeSavedCheck("svc_test_someone_else_0001", sb.baseUrl)).toBeNull();
  expect(takeSavedCheck(DEMO_API_KEY, `${sb.baseUrl}/other`)).toBeNull();
  expect(takeSavedCheck(DEMO_API_KEY, sb.baseUrl)).not.toBeNull();
});

test("nothing is sent for a key bound to another origin, a destination the build refuses, or no saved key", async () => {
  const cases = [
    saved(sb.baseUrl, "https://elsewhere.example"),
    // A production build allowing only its SERVICE_ORIGINS: the loopback sandbox is not one.
    saved(sb.baseUrl),
    memoryStore({}),
  ];
  const policies = [OPEN_POLICY, { origins: ["https://api.hedging.example"], loopback: false, liveNeedsHttps: true }, OPEN_POLICY];
  for (const [i, store] of cases.entries()) {
    const { connection, sent } = counted();
    await startSavedConnection(store, connection, policies[i], "");
    expect([i, connection.client, sent]).toEqual([i, null, []]);
    expect(takeSavedCheck(DEMO_API_KEY, sb.baseUrl)).toBeNull();
  }
});
