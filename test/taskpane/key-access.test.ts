// What the key in use may do: the sandbox says its scopes in meta.key_scopes of GET /account (over HTTP), the client reads them tolerantly, the pane's connection learns "read only" from them or from a 403 insufficient_scope, and refuses direct trading accordingly.
import { keyScopesOf } from "../../src/api/schemas";
import { publicKeyFingerprint } from "../../src/api/environment";
import { memoryStore } from "../../src/excel/settings";
import { Connection } from "../../src/feeds/connection";
import { DEMO_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY } from "../../src/sandbox/demo";
import type { RunningSandbox } from "../../src/sandbox/server";
import { directTradeRefusal, keyAccessNote, keyAccessOf, learntAccess } from "../../src/taskpane/key-access";
import { ConnectionController, type ConnectionState } from "../../src/taskpane/connection-controller";
import { control, raw, start } from "../sandbox/helpers";
import * as ex from "../support/examples";
import { ok, startScriptedServer } from "../support/scripted-server";

describe("GET /account says the scopes of the key that asked (sandbox, over HTTP)", () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start();
  });
  afterAll(() => sb.close());

  test("the trading key has read and trade, the read-only key of the same account read alone, a key added later its own", async () => {
    const scopes = async (key: string) => (await raw(sb, "GET", "/account", { key })).json.meta?.key_scopes;
    expect(await scopes(DEMO_API_KEY)).toEqual(["read", "trade"]);
    expect(await scopes(DEMO_READ_API_KEY)).toEqual(["read"]);
    const added = "svc_test_added_reader_for_meta_0001";
    expect((await control(sb, "POST", "/accounts/keys", { account_key: DEMO_API_KEY, api_key: added, scopes: ["read"] })).status).toBe(201);
    expect(await scopes(added)).toEqual(["read"]);
  });

  test("the connection reads them: the read-only key connects as read only, the trading key as trading", async () => {
    const connect = async (key: string) => {
      const controller = new ConnectionController({ store: memoryStore(), connection: new Connection(), defaultBaseUrl: sb.baseUrl });
      return controller.connect(key, sb.baseUrl);
    };
    const reader = await connect(DEMO_READ_API_KEY);
    const trader = await connect(DEMO_API_KEY);
    expect(reader.status === "connected" && [reader.access, reader.fingerprint]).toEqual([
      "read_only",
      publicKeyFingerprint(DEMO_READ_API_KEY),
    ]);
    expect(trader.status === "connected" && [trader.access, trader.fingerprint]).toEqual(["trade", publicKeyFingerprint(DEMO_API_KEY)]);
    expect(reader.status === "connected" && trader.status === "connected" && reader.fingerprint !== trader.fingerprint).toBe(true);
  });
});

describe("a service that does not say the key's scopes", () => {
  test("the key is of unknown scope until a 403 insufficient_scope says it is read only; other codes change nothing", async () => {
    const server = await startScriptedServer(() => ok(ex.account, { source: "sandbox" }));
    try {
      const controller = new ConnectionController({ store: memoryStore(), connection: new Connection(), defaultBaseUrl: server.baseUrl });
      const states: ConnectionState[] = [];
      controller.onChange((s) => states.push(s));
      const access = () => (controller.current.status === "connected" ? controller.current.access : null);
      await controller.connect(DEMO_API_KEY, server.baseUrl);
      expect(access()).toBe("unknown");
      controller.learnFrom("exposure_exceeded");
      controller.learnFrom(null);
      expect([access(), states.length]).toEqual(["unknown", 2]);
      controller.learnFrom("insufficient_scope");
      expect([access(), states.length]).toEqual(["read_only", 3]);
    } finally {
      await server.close();
    }
  });

  test("meta.key_scopes is read tolerantly: a list of names (any case, spaces trimmed), else unknown", () => {
    expect(keyScopesOf({ key_scopes: [" Read ", "TRADE"] })).toEqual(["read", "trade"]);
    expect(keyScopesOf({ key_scopes: [] })).toEqual([]);
    expect(keyScopesOf({})).toBeNull();
    expect(keyScopesOf({ key_scopes: "read" })).toBeNull();
    expect(keyScopesOf({ key_scopes: ["read", 7] })).toBeNull();
    expect(keyScopesOf({ key_scopes: null })).toBeNull();
  });
});

describe("what the pane says and refuses for a key", () => {
  test("scopes without trade are read only, with trade trading, unknown when not said", () => {
    expect([keyAccessOf(["read"]), keyAccessOf([]), keyAccessOf(["read", "trade"]), keyAccessOf(["trade"]), keyAccessOf(null)]).toEqual([
      "read_only",
      "read_only",
      "trade",
      "trade",
      "unknown",
    ]);
    expect(keyAccessNote("read_only")).toBe("read only: you can prepare, not trade");
    expect(keyAccessNote("unknown")).toBeNull();
    expect(learntAccess("trade", "insufficient_scope")).toBe("read_only");
    expect(learntAccess("trade", "validation_error")).toBe("trade");
  });

  test("direct trading: a read-only key never; a LIVE key not while the workbook's rule is on; a sandbox key always may", () => {
    expect(directTradeRefusal("sandbox", "read_only", false)).toMatch(/read only: you can prepare, not trade.*Submit for approval/);
    expect(directTradeRefusal("production", "trade", true)).toMatch(/LIVE trades need approval.*Submit for approval/);
    expect(directTradeRefusal("production", "unknown", true)).toMatch(/LIVE trades need approval/);
    expect(directTradeRefusal("production", "trade", false)).toBeNull();
    expect(directTradeRefusal("sandbox", "trade", true)).toBeNull();
    expect(directTradeRefusal("sandbox", "unknown", true)).toBeNull();
  });

  test("the LIVE demo key is told apart from the sandbox one by its fingerprint, which never shows the key", () => {
    const fps = [DEMO_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY].map(publicKeyFingerprint);
    expect(new Set(fps).size).toBe(3);
    for (const fp of fps) expect(fp).toMatch(/^fp-[0-9a-f]{16}$/);
  });
});
