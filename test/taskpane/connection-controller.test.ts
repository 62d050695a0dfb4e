// Connect and Forget against the real sandbox over HTTP: the key is adopted and saved only after GET /account answers, and never shown unmasked.
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_LIVE_API_KEY, DEMO_REVOKED_API_KEY } from "../../src/sandbox/demo";
import { memoryStore } from "../../src/excel/settings";
import { SETTING_KEYS } from "../../src/feeds/settings-store";
import { Connection } from "../../src/feeds/connection";
import { HedgingApiError } from "../../src/api/errors";
import { ConnectionController, errorView, type ConnectionState } from "../../src/taskpane/connection-controller";
import { connectionSummary } from "../../src/taskpane/connection-panel";

describe("connection controller against the sandbox", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, http: true, seed: 5 });
  });
  afterAll(() => sandbox.close());

  function setup(initial: Record<string, string> = {}) {
    const store = memoryStore(initial);
    const connection = new Connection();
    const controller = new ConnectionController({ store, connection, defaultBaseUrl: sandbox.baseUrl });
    const states: ConnectionState[] = [];
    controller.onChange((s) => states.push(s));
    return { store, connection, controller, states };
  }

  const everyText = (states: ConnectionState[]) => states.map((s) => JSON.stringify({ ...s, client: undefined }) + connectionSummary(s));

  test("a good key connects: account read, shared connection configured, key and URL saved, only the masked key in any state", async () => {
    const { store, connection, controller, states } = setup();
    const state = await controller.connect(` ${DEMO_API_KEY} `, sandbox.baseUrl);
    expect(state.status).toBe("connected");
    if (state.status !== "connected") return;
    expect(state.account.account_address).toBe("0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172");
    expect(state.maskedKey).toBe("svc_test_…0001");
    expect(state.environment).toBe("sandbox");
    expect(connection.client).toBe(state.client);
    expect(store.dump()).toEqual({ [SETTING_KEYS.apiKey]: DEMO_API_KEY, [SETTING_KEYS.baseUrl]: sandbox.baseUrl });
    expect(states.map((s) => s.status)).toEqual(["connecting", "connected"]);
    expect(everyText(states).filter((t) => t.includes(DEMO_API_KEY))).toEqual([]);
  });

  test("a LIVE key is reported as production", async () => {
    const { controller } = setup();
    const state = await controller.connect(DEMO_LIVE_API_KEY, sandbox.baseUrl);
    expect(state.status === "connected" && state.environment).toBe("production");
  });

  test("a revoked key: the service's code and advice, nothing saved, the shared connection untouched", async () => {
    const { store, connection, controller, states } = setup();
    const state = await controller.connect(DEMO_REVOKED_API_KEY, sandbox.baseUrl);
    expect(state.status).toBe("disconnected");
    expect(state.status === "disconnected" && state.error).toMatchObject({
      code: "invalid_api_key",
      advice: expect.stringMatching(/not accepted/),
    });
    expect(store.dump()).toEqual({});
    expect(connection.client).toBeNull();
    expect(everyText(states).filter((t) => t.includes(DEMO_REVOKED_API_KEY))).toEqual([]);
  });

  test("http to a non-local host and an unknown key prefix are refused before any request", async () => {
    const { store, controller } = setup();
    let state = await controller.connect(DEMO_API_KEY, "http://hedging.example.com/v2");
    expect(state.status === "disconnected" && state.error?.code).toBe("validation_error");
    expect(state.status === "disconnected" && state.error?.message).toMatch(/https/);
    state = await controller.connect("pk_0123456789abcdef", sandbox.baseUrl);
    expect(state.status === "disconnected" && state.error?.code).toBe("invalid_api_key");
    expect(JSON.stringify(state)).not.toContain("pk_0123456789abcdef");
    state = await controller.connect("", sandbox.baseUrl);
    expect(state.status === "disconnected" && state.error?.code).toBe("missing_credentials");
    expect(store.dump()).toEqual({});
  });

  test("restore reconnects with the saved key; an empty key field reuses it; Forget removes it and drops the client", async () => {
    const { store, connection, controller } = setup({ [SETTING_KEYS.apiKey]: DEMO_API_KEY, [SETTING_KEYS.baseUrl]: sandbox.baseUrl });
    expect((await controller.restore()).status).toBe("connected");
    expect((await controller.connect("", sandbox.baseUrl)).status).toBe("connected");
    await controller.forget();
    expect(controller.current.status).toBe("disconnected");
    expect(connection.client).toBeNull();
    expect(store.dump()).toEqual({ [SETTING_KEYS.baseUrl]: sandbox.baseUrl });
    expect((await controller.restore()).status).toBe("disconnected");
  });
});

describe("restore while the service is unreachable", () => {
  test("the cells get the saved key at once and show the network error; a later connect reuses the same client", async () => {
    const sandbox = await startSandbox({ port: 0, http: true, seed: 6 });
    const baseUrl = sandbox.baseUrl;
    await sandbox.close();
    const store = memoryStore({ [SETTING_KEYS.apiKey]: DEMO_API_KEY, [SETTING_KEYS.baseUrl]: baseUrl });
    const connection = new Connection({ retry: { maxAttempts: 1 } });
    const changes: unknown[] = [];
    connection.onChange((c) => changes.push(c));
    const controller = new ConnectionController({ store, connection, defaultBaseUrl: baseUrl });
    const state = await controller.restore();
    expect(state.status === "disconnected" && state.error?.code).toBe("network_error");
    // The saved key is in use for the cells: they report network_error rather than "Set your API key".
    expect(connection.client).not.toBeNull();
    await expect(connection.client!.account()).rejects.toMatchObject({ code: "network_error" });
    expect(store.dump()[SETTING_KEYS.apiKey]).toBe(DEMO_API_KEY);
    // Configuring the same key and URL again keeps the client and does not make every feed start over.
    const client = connection.client;
    expect(connection.configure({ apiKey: DEMO_API_KEY, baseUrl })).toBe(client);
    expect(changes).toHaveLength(1);
  });
});

describe("error view", () => {
  test("masks the key anywhere in a message and keeps the code and advice", () => {
    const key = "svc_test_secretsecret9876";
    const view = errorView(new HedgingApiError({ code: "rate_limited", status: 429, message: `Too many requests for ${key}` }), key);
    expect(view).toEqual({
      code: "rate_limited",
      message: "Too many requests for svc_test_…9876",
      advice: expect.stringMatching(/slows down/),
    });
    expect(errorView(new Error(`boom ${key}`), key)).toEqual({ code: "unexpected_error", message: "boom svc_test_…9876", advice: null });
  });
});
