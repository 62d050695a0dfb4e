// Copy diagnostics: the report of a pane connected to the real sandbox names versions, sets, the connection, the learned rate, error codes and journal counts, and none of the key, amounts, client references or the account address planted in its state.
import fs from "fs";
import path from "path";
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { memoryStore } from "../../src/excel/settings";
import { MemoryIntentStore } from "../../src/excel/intent-store";
import { Connection } from "../../src/feeds/connection";
import { maskKey } from "../../src/api/environment";
import { intentScope, type StoredIntent } from "../../src/trading/intent-store";
import { ConnectionController } from "../../src/taskpane/connection-controller";
import { currentReport } from "../../src/taskpane/diagnostics-panel";
import { diagnosticsReport, ErrorLog, REQUIREMENT_SETS, type DiagnosticFacts } from "../../src/taskpane/diagnostics";
import { journalled } from "../support/builders";
import packageJson from "../../package.json";

const ROOT = path.resolve(__dirname, "../..");
const DEMO_ADDRESS = "0x5a4d0e1b2c3f40516273849a0b1c2d3e4f506172";
/** What must never be in a report, whatever the state holds. */
const PLANTED = {
  key: DEMO_API_KEY,
  keySecret: DEMO_API_KEY.slice("svc_test_".length),
  maskedKey: maskKey(DEMO_API_KEY),
  amount: "250000.55",
  amountFormatted: "250,000.55",
  secondAmount: "987654",
  clientReference: "DEAL-7001",
  otherReference: "deal_7002",
  address: DEMO_ADDRESS.slice(2),
};

function plantedIn(report: string): string[] {
  const lower = report.toLowerCase();
  return Object.entries(PLANTED)
    .filter(([, v]) => lower.includes(v.toLowerCase()))
    .map(([k]) => k);
}

describe("Copy diagnostics against the sandbox", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, http: true, seed: 7 });
  });
  afterAll(() => sandbox.close());

  test("a connected pane with secrets in its errors, journal and connection: the report has the facts and none of the secrets", async () => {
    const store = memoryStore();
    const connection = new Connection();
    const controller = new ConnectionController({ store, connection, defaultBaseUrl: sandbox.baseUrl });
    // A failed attempt first (a key for another service), then the real connection.
    await controller.connect("svc_test_not_a_key_of_this_service_987654", sandbox.baseUrl);
    const errors = new ErrorLog(50, () => Date.parse("2026-11-26T10:00:00Z"));
    errors.record("connection", controller.current.status === "disconnected" ? controller.current.error?.code : null);
    const state = await controller.connect(DEMO_API_KEY, sandbox.baseUrl);
    expect(state.status === "connected" && state.account.account_address).toBe(DEMO_ADDRESS);
    await connection.client?.markets();

    // Errors whose "codes" carry what a careless caller might pass: the key, a deal id, an amount, the address.
    for (const code of [DEMO_API_KEY, PLANTED.clientReference, PLANTED.otherReference, "250000.55", DEMO_ADDRESS, "insufficient_scope"])
      errors.record("trade", code);
    // The journal: rows with amounts, client references, the account and the key in their messages.
    const intentStore = new MemoryIntentStore();
    const entry = (key: string, status: string, message: string | null): StoredIntent => ({
      record: journalled(key, {
        status,
        notional: 250000.55,
        notionalBefore: 987654,
        clientReference: PLANTED.clientReference,
        account: DEMO_ADDRESS,
        message,
      }),
      keyId: null,
      anchor: null,
      finalAt: null,
    });
    await intentStore.put(intentScope("sandbox", DEMO_ADDRESS), [
      entry("k1", "submitting", null),
      entry("k2", "filled", `Filled 250,000.55 for ${PLANTED.clientReference}`),
      entry("k3", "failed", `Refused for ${DEMO_ADDRESS} with ${DEMO_API_KEY}`),
      entry("k4", "filled", null),
    ]);

    const report = await currentReport({
      controller,
      store,
      intentStore: () => intentStore,
      errors,
      officeFacts: () => null,
      now: () => Date.UTC(2026, 10, 26, 12),
    });

    expect(plantedIn(report)).toEqual([]);
    expect(report).toContain(`Add-in version: ${packageJson.version}`);
    expect(report).toContain("Connection: connected (sandbox)");
    expect(report).toContain(`Service: ${new URL(sandbox.baseUrl).origin}`);
    expect(report).toMatch(/Request rate allowed now: \d+\.\d\/s; learned limit: none yet/);
    expect(report).toContain("2026-11-26T10:00:00.000Z  invalid_api_key  (connection)");
    expect(report).toContain("insufficient_scope  (trade)");
    expect(report.match(/ {2}other {2}\(trade\)/g)).toHaveLength(5);
    expect(report).toContain("submitting 1, submitted 0, needs_decision 0, filled 2, failed 1");
    expect(report).toContain("ExcelApi 1.12: unknown");
  });

  test("the check can fail: the same state's raw text (codes and messages as given) holds every secret", async () => {
    // What the report would be if it listed messages: each planted value is found, so the check above is not vacuous.
    const raw = [
      DEMO_API_KEY,
      `Filled 250,000.55 and 250000.55 for DEAL-7001 deal_7002`,
      DEMO_ADDRESS,
      "987654",
      maskKey(DEMO_API_KEY),
    ].join("\n");
    expect(plantedIn(raw).sort()).toEqual(Object.keys(PLANTED).sort());
  });
});

function facts(over: Partial<DiagnosticFacts> = {}): DiagnosticFacts {
  return {
    version: "1.2.3",
    office: null,
    connection: { status: "disconnected", environment: null, serviceOrigin: null, errorCode: null },
    flow: null,
    errors: [],
    journal: null,
    now: new Date("2026-11-26T12:00:00Z"),
    ...over,
  };
}

test("Office's facts and the requirement sets it supports are listed; the last 50 errors, newest first", () => {
  const errors = new ErrorLog(
    50,
    (() => {
      let t = Date.parse("2026-11-26T00:00:00Z");
      return () => (t += 1000);
    })(),
  );
  for (let i = 0; i < 60; i++) errors.record("row", i % 2 ? "network_error" : "timeout");
  const supports = Object.fromEntries(REQUIREMENT_SETS.map((s) => [`${s.name} ${s.version}`, s.version !== "1.18"]));
  const report = diagnosticsReport(
    facts({ office: { host: "Excel", platform: "PC", version: "16.0.18000.20000", supports }, errors: errors.list() }),
    null,
  );
  expect(report).toContain("Office: host Excel, platform PC, version 16.0.18000.20000");
  expect(report).toContain("ExcelApi 1.18: NOT supported");
  expect(report).toContain("SharedRuntime 1.1: supported");
  const listed = report.split("\n").filter((l) => /^ {2}2026-/.test(l));
  expect(listed).toHaveLength(50);
  expect(listed[0]).toContain("2026-11-26T00:01:00.000Z"); // the 60th
  expect(listed[49]).toContain("2026-11-26T00:00:11.000Z"); // the 11th
  expect(report).toContain("Connection: disconnected");
  expect(report).toContain("not read: not connected");
});

test("the requirement sets listed are every set manifest.xml requires and every set src/ asks isSetSupported about", () => {
  const listed = new Set(REQUIREMENT_SETS.map((s) => `${s.name} ${s.version}`));
  const manifest = fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8");
  const used = [...manifest.matchAll(/<Set Name="(\w+)" MinVersion="([\d.]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
  const sources = fs
    .readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => fs.readFileSync(path.join(ROOT, "src", f), "utf8"));
  for (const text of sources) for (const m of text.matchAll(/supported\("(\w+)", "([\d.]+)"\)/g)) used.push(`${m[1]} ${m[2]}`);
  expect(used.length).toBeGreaterThanOrEqual(6);
  expect(used.filter((u) => !listed.has(u))).toEqual([]);
});
