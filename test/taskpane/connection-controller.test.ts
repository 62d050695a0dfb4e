// Connect and Forget against the real sandbox over HTTP: the key is adopted and saved only after GET /account answers, and never shown unmasked.
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY, DEMO_LIVE_API_KEY, DEMO_REVOKED_API_KEY } from "../../src/sandbox/demo";
import { memoryStore } from "../../src/excel/settings";
import { SETTING_KEYS } from "../../src/feeds/settings-store";
import { Connection } from "../../src/feeds/connection";
import { HedgingApiError } from "../../src/api/errors";
import { ConnectionController, errorView, type ConnectionState } from "../../src/taskpane/connection-controller";
import { connectionSummary } from "../../src/taskpane/connection-panel";
import type { ServicePolicy } from "../../src/api/environment";
import { ok, startScriptedServer, type ScriptedServer } from "../support/scripted-server";
import * as ex from "../support/examples";

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
    expect(store.dump()).toEqual({
      [SETTING_KEYS.apiKey]: DEMO_API_KEY,
      [SETTING_KEYS.apiKeyOrigin]: new URL(sandbox.baseUrl).origin,
      [SETTING_KEYS.baseUrl]: sandbox.baseUrl,
    });
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
    const { store, connection, controller } = setup({
      [SETTING_KEYS.apiKey]: DEMO_API_KEY,
      [SETTING_KEYS.apiKeyOrigin]: new URL(sandbox.baseUrl).origin,
      [SETTING_KEYS.baseUrl]: sandbox.baseUrl,
    });
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

describe("a key is bound to the origin it was saved for", () => {
  let sandbox: RunningSandbox;
  /** A second service on another origin (another port): it answers GET /account and counts requests carrying the key. */
  let other: ScriptedServer;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, http: true, seed: 8 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    other = await startScriptedServer(() => ok(ex.account));
  });
  afterEach(() => other.close());

  const withKey = (key: string) => other.received.filter((r) => JSON.stringify(r.headers).includes(key) || r.url.includes(key)).length;

  function setup(initial: Record<string, string> = {}, policy?: ServicePolicy) {
    const store = memoryStore(initial);
    const connection = new Connection({ retry: { maxAttempts: 1 } });
    const controller = new ConnectionController({ store, connection, defaultBaseUrl: sandbox.baseUrl, policy });
    return { store, connection, controller };
  }

  test("with the key field empty, Connect to another origin sends nothing there, says why, and keeps the saved key", async () => {
    const { store, controller } = setup();
    expect((await controller.connect(DEMO_API_KEY, sandbox.baseUrl)).status).toBe("connected");
    const state = await controller.connect("", other.baseUrl);
    expect(state.status).toBe("disconnected");
    expect(state.status === "disconnected" && state.error).toMatchObject({
      code: "key_origin_mismatch",
      message: expect.stringContaining(`was given for ${new URL(sandbox.baseUrl).origin}`),
      advice: expect.stringMatching(/Type the API key again/),
    });
    expect(JSON.stringify(state)).not.toContain(DEMO_API_KEY);
    expect(other.received).toHaveLength(0);
    expect(store.dump()[SETTING_KEYS.apiKeyOrigin]).toBe(new URL(sandbox.baseUrl).origin);
    // Typed again, the key goes there, and is then bound to the new origin.
    expect((await controller.connect(DEMO_API_KEY, other.baseUrl)).status).toBe("connected");
    expect(withKey(DEMO_API_KEY)).toBe(1);
    expect(store.dump()[SETTING_KEYS.apiKeyOrigin]).toBe(new URL(other.baseUrl).origin);
    // And now the first origin is the other one: an empty key field does not take it back there.
    expect((await controller.connect("", sandbox.baseUrl)).status).toBe("disconnected");
  });

  test("the same origin with another path keeps the key (the binding is the origin)", async () => {
    const { controller } = setup();
    await controller.connect(DEMO_API_KEY, other.baseUrl);
    expect((await controller.connect("", `${new URL(other.baseUrl).origin}/v2/`)).status).toBe("connected");
    expect(withKey(DEMO_API_KEY)).toBe(2);
  });

  test("on open, saved settings whose URL is not the key's origin neither configure the cells nor reach that URL", async () => {
    const { connection, controller } = setup({
      [SETTING_KEYS.apiKey]: DEMO_API_KEY,
      [SETTING_KEYS.apiKeyOrigin]: new URL(sandbox.baseUrl).origin,
      [SETTING_KEYS.baseUrl]: other.baseUrl,
    });
    const state = await controller.restore();
    expect(state.status === "disconnected" && state.error?.code).toBe("key_origin_mismatch");
    expect(connection.client).toBeNull();
    expect(other.received).toHaveLength(0);
  });

  test("settings saved before keys were bound: the key belongs to the URL it was saved with", async () => {
    const { store, controller } = setup({ [SETTING_KEYS.apiKey]: DEMO_API_KEY, [SETTING_KEYS.baseUrl]: sandbox.baseUrl });
    expect((await controller.restore()).status).toBe("connected");
    expect(store.dump()[SETTING_KEYS.apiKeyOrigin]).toBe(new URL(sandbox.baseUrl).origin);
    expect((await controller.connect("", other.baseUrl)).status).toBe("disconnected");
    expect(other.received).toHaveLength(0);
  });

  test("Forget removes the key and its origin", async () => {
    const { store, controller } = setup();
    await controller.connect(DEMO_API_KEY, sandbox.baseUrl);
    await controller.forget();
    expect(store.dump()).toEqual({ [SETTING_KEYS.baseUrl]: sandbox.baseUrl });
  });

  test.each([
    ["user-info", (u: string) => u.replace("http://", "http://user:pass@"), /user name or password/],
    ["a query", (u: string) => `${u}?api_key=x`, /query/],
    ["a fragment", (u: string) => `${u}#x`, /fragment/],
  ])("a base URL with %s is refused before any request", async (_what, change, message) => {
    const { store, controller } = setup();
    const state = await controller.connect(DEMO_API_KEY, change(other.baseUrl));
    expect(state.status === "disconnected" && state.error).toMatchObject({
      code: "validation_error",
      message: expect.stringMatching(message),
    });
    expect(other.received).toHaveLength(0);
    expect(store.dump()).toEqual({});
  });

  describe("a production build's policy", () => {
    const production = (): ServicePolicy => ({ origins: [new URL(other.baseUrl).origin], loopback: false, liveNeedsHttps: true });

    test("an origin the build does not list is refused before any request, naming the allowed ones", async () => {
      const { controller } = setup({}, production());
      const state = await controller.connect(DEMO_API_KEY, sandbox.baseUrl);
      expect(state.status === "disconnected" && state.error).toMatchObject({
        code: "origin_not_allowed",
        message: expect.stringContaining(`connects only to ${new URL(other.baseUrl).origin}`),
      });
      expect((await controller.connect(DEMO_API_KEY, other.baseUrl)).status).toBe("connected");
    });

    test("a LIVE key never goes over plain http, not even to this machine; a sandbox key may", async () => {
      const { store, controller } = setup({}, production());
      const state = await controller.connect(DEMO_LIVE_API_KEY, other.baseUrl);
      expect(state.status === "disconnected" && state.error).toMatchObject({
        code: "validation_error",
        message: expect.stringMatching(/svc_live_ key \(production money\) is sent only over https/),
      });
      expect(withKey(DEMO_LIVE_API_KEY)).toBe(0);
      expect(store.dump()).toEqual({});
      expect((await controller.connect(DEMO_API_KEY, other.baseUrl)).status).toBe("connected");
    });

    test("development builds (loopback allowed, LIVE over http allowed) connect a LIVE key to the local sandbox", async () => {
      const { controller } = setup({}, { origins: [], loopback: true, liveNeedsHttps: false });
      expect((await controller.connect(DEMO_LIVE_API_KEY, sandbox.baseUrl)).status).toBe("connected");
    });
  });
});
