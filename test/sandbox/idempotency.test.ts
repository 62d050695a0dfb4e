// Idempotency over HTTP: replays, key reuse, in-flight, concurrent duplicates, drop-after-commit, scoping, retention.
import { z } from "zod";
import { hedgeSchema, openHedgeResultSchema } from "../../src/api/schemas";
import { DEMO_API_KEY, DEMO_API_KEY_2, DEMO_APPROVER_API_KEY, DEMO_LIVE_API_KEY, DEMO_READ_API_KEY } from "../../src/sandbox/demo";
import {
  canonicalJson,
  DEFAULT_RETENTION_MS,
  fingerprintOf,
  IdempotencyStore,
  type IdempotencyRecord,
} from "../../src/sandbox/idempotency";
import type { RunningSandbox } from "../../src/sandbox/server";
import { client, OPEN, raw, start, until } from "./helpers";

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const hedges = async (key = DEMO_API_KEY) => z.array(hedgeSchema).parse((await raw(sb, "GET", "/hedges", { key })).json.data);
const open = (idem: string, body: unknown = OPEN, apiKey = DEMO_API_KEY) =>
  raw(sb, "POST", "/hedges", { key: apiKey, body, headers: { "Idempotency-Key": idem } });

test("same key and body: the stored answer comes back, byte for byte, and nothing happens twice", async () => {
  const first = await open("idem-1", OPEN);
  const again = await open("idem-1", { tenor_days: 7, side: "buy", notional_usd: 100_000, market: "USDTNGN" }); // same body, other key order
  expect(again.status).toBe(200);
  expect(again.text).toBe(first.text);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(first.headers.get("idempotent-replayed")).toBeNull();
  expect(await hedges()).toHaveLength(1);
  const acct = await raw(sb, "GET", "/account");
  expect((acct.json.data as { balance_usdc: number }).balance_usdc).toBe(250_000 - 10_100);
});

test("same key, another body or another endpoint: 409 idempotency_key_reuse", async () => {
  await open("idem-2", OPEN);
  const other = await open("idem-2", { ...OPEN, notional_usd: 100_001 });
  expect(other.status).toBe(409);
  expect(other.json.error?.code).toBe("idempotency_key_reuse");
  const elsewhere = await raw(sb, "POST", "/hedges/close", {
    body: { market: "USDTNGN", side: "buy" },
    headers: { "Idempotency-Key": "idem-2" },
  });
  expect(elsewhere.json.error?.code).toBe("idempotency_key_reuse");
  expect(await hedges()).toHaveLength(1);
});

test("20 concurrent opens with one key open exactly one hedge and all see the same answer", async () => {
  const answers = await Promise.all(Array.from({ length: 20 }, () => open("idem-burst", OPEN)));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
  expect(await hedges()).toHaveLength(1);
});

test("while the first request is processing, duplicates get 409 idempotency_in_flight; the hedge is submitting meanwhile", async () => {
  sb.faults.apply({ latency_ms: 300, latency_path: "/hedges" });
  const first = open("idem-slow", OPEN);
  await new Promise((r) => setTimeout(r, 100));
  const duplicates = await Promise.all(Array.from({ length: 5 }, () => open("idem-slow", OPEN)));
  for (const d of duplicates) {
    expect(d.status).toBe(409);
    expect(d.json.error?.code).toBe("idempotency_in_flight");
  }
  sb.faults.apply({ latency_ms: 0 });
  const listed = await hedges();
  expect(listed.map((h) => [h.status, "order_tx_hash" in h])).toEqual([["submitting", false]]); // no order sent yet
  // Another key for the same side sees the submitting hedge as open.
  expect((await open("idem-other", OPEN)).json.error?.code).toBe("hedge_exists");
  const done = await first;
  expect(done.status).toBe(200);
  expect((await open("idem-slow", OPEN)).text).toBe(done.text);
  expect((await hedges())[0].status).not.toBe("submitting");
});

test("keys are scoped per account and environment: another account and the other environment open their own", async () => {
  const a = await open("shared-key", OPEN, DEMO_API_KEY);
  const b = await open("shared-key", OPEN, DEMO_API_KEY_2);
  const live = await open("shared-key", OPEN, DEMO_LIVE_API_KEY);
  const ids = [a, b, live].map((r) => openHedgeResultSchema.parse(r.json.data).hedge_id);
  expect(new Set(ids).size).toBe(3);
  expect([b, live].map((r) => r.headers.get("idempotent-replayed"))).toEqual([null, null]);
});

test("keys of one account share their Idempotency-Keys: a second trading key replays the first's answer, and nothing happens twice", async () => {
  const first = await open("batch-row-1", OPEN, DEMO_API_KEY);
  const second = await open("batch-row-1", OPEN, DEMO_APPROVER_API_KEY);
  expect(second.status).toBe(200);
  expect(second.text).toBe(first.text);
  expect(second.headers.get("idempotent-replayed")).toBe("true");
  expect(await hedges()).toHaveLength(1);
  // Another body under the same key, from the account's other key: a reuse, not a second trade.
  const other = await open("batch-row-1", { ...OPEN, side: "sell" }, DEMO_APPROVER_API_KEY);
  expect(other.json.error?.code).toBe("idempotency_key_reuse");
  // A read-only key of the account is refused for its scope, before its key is looked at: nothing is replayed to it.
  expect((await open("batch-row-1", OPEN, DEMO_READ_API_KEY)).json.error?.code).toBe("insufficient_scope");
  expect(await hedges(DEMO_APPROVER_API_KEY)).toHaveLength(1);
});

test("business errors are stored too (a retry of a refused open is refused the same way); 5xx are not", async () => {
  await open("first", OPEN);
  const refused = await open("refused", OPEN);
  expect(refused.json.error?.code).toBe("hedge_exists");
  await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } });
  await new Promise((r) => setTimeout(r, 80));
  const replay = await open("refused", OPEN);
  expect(replay.text).toBe(refused.text);

  sb.faults.apply({ price_unavailable: true });
  const outage = await open("outage", { ...OPEN, side: "sell" });
  expect(outage.status).toBe(503);
  sb.faults.apply({ price_unavailable: false });
  const retried = await open("outage", { ...OPEN, side: "sell" });
  expect(retried.status).toBe(200);
  expect(retried.headers.get("idempotent-replayed")).toBeNull();

  sb.faults.apply({ fail_next: { count: 1, code: "executor_unavailable", path: "/hedges" } });
  const injected = await open("injected", { ...OPEN, side: "buy" });
  expect(injected.json.error?.code).toBe("executor_unavailable");
  expect((await open("injected", { ...OPEN, side: "buy" })).status).toBe(200);
});

test("a key is kept 24 h of sandbox time; after that it acts again", async () => {
  await open("old", OPEN);
  sb.clock.advance(23 * 3_600_000);
  expect((await open("old", OPEN)).headers.get("idempotent-replayed")).toBe("true");
  sb.clock.advance(2 * 3_600_000);
  const fresh = await open("old", OPEN);
  expect(fresh.headers.get("idempotent-replayed")).toBeNull();
  expect(fresh.json.error?.code).toBe("hedge_exists");
});

test("an Idempotency-Key must be 1 to 255 characters", async () => {
  const long = await open("k".repeat(256), OPEN);
  expect(long.status).toBe(400);
  expect(long.json.error?.details?.fields).toEqual({ "Idempotency-Key": expect.any(String) });
  expect((await open("k".repeat(255), OPEN)).status).toBe(200);
});

test("drop_after_commit: the open happens, the answer is lost; a retry with the same key gets the stored answer", async () => {
  sb.faults.apply({ drop_after_commit: 1 });
  await expect(open("dropped", OPEN)).rejects.toThrow();
  expect(await hedges()).toHaveLength(1);
  const retry = await open("dropped", OPEN);
  expect(retry.status).toBe(200);
  expect(retry.headers.get("idempotent-replayed")).toBe("true");
  expect(openHedgeResultSchema.parse(retry.json.data).hedge_id).toBe((await hedges())[0].id);
  expect(sb.faults.view().drop_after_commit).toBe(0);
});

test("the real client survives drops and 503 bursts with one key per action: one effect each", async () => {
  const c = client(sb);
  sb.faults.apply({ drop_after_commit: 2, fail_next: { count: 2, code: "service_unavailable", method: "POST" } });
  const opened = await c.open({ ...OPEN, client_reference: "R-1" });
  const added = await c.add({ market: "USDTNGN", side: "buy", additional_notional_usd: 10_000 });
  expect(opened.data.hedge_id).toBe(added.data.hedge_id);
  const listed = await hedges();
  expect(listed).toHaveLength(1);
  await until(async () => (await hedges())[0].notional_usd === 110_000 || undefined);
  await new Promise((r) => setTimeout(r, 100));
  expect((await hedges())[0].notional_usd).toBe(110_000);
  expect(sb.engine.accountState(DEMO_API_KEY)!.hedges[0].orders).toEqual([]);
});

test("the retention boundary: replayed until exactly 24 h after first use, acting again one millisecond later", async () => {
  const frozen = await start({ realNow: () => Date.UTC(2026, 10, 30, 12) });
  try {
    const first = await raw(frozen, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "edge" } });
    frozen.clock.advance(24 * 3_600_000);
    const atEdge = await raw(frozen, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "edge" } });
    expect(atEdge.headers.get("idempotent-replayed")).toBe("true");
    expect(atEdge.text).toBe(first.text);
    frozen.clock.advance(1);
    const after = await raw(frozen, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "edge" } });
    expect(after.headers.get("idempotent-replayed")).toBeNull();
    expect(after.json.error?.code).toBe("hedge_exists");
  } finally {
    await frozen.close();
  }
});

test("a key still in flight when its retention runs out stays in flight: a duplicate add never adds twice", async () => {
  await open("base", OPEN);
  const add = (body: unknown = { market: "USDTNGN", side: "buy", additional_notional_usd: 10_000 }) =>
    raw(sb, "POST", "/hedges/add", { body, headers: { "Idempotency-Key": "slow-add" } });
  sb.faults.apply({ latency_ms: 300, latency_path: "/hedges/add" });
  const first = add();
  await new Promise((r) => setTimeout(r, 100));
  sb.clock.advance(DEFAULT_RETENTION_MS + 3_600_000);
  const duplicate = await add();
  expect(duplicate.status).toBe(409);
  expect(duplicate.json.error?.code).toBe("idempotency_in_flight");
  sb.faults.apply({ latency_ms: 0 });
  expect((await first).status).toBe(200);
  await until(async () => (await hedges())[0].notional_usd === 110_000 || undefined);
  expect(await hedges()).toHaveLength(1);
  expect(sb.engine.accountState(DEMO_API_KEY)!.hedges[0].orders).toEqual([]);
});

test("a body containing null: the same body is replayed; null where a value was (or the field left out) is another request", async () => {
  const withNull = { ...OPEN, client_reference: null };
  const first = await open("with-null", withNull);
  expect(first.status).toBe(200);
  const again = await open("with-null", { client_reference: null, ...OPEN });
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(again.text).toBe(first.text);
  for (const other of [OPEN, { ...OPEN, client_reference: "null" }]) {
    expect((await open("with-null", other)).json.error?.code).toBe("idempotency_key_reuse");
  }
  expect(await hedges()).toHaveLength(1);
});

describe("the key store", () => {
  test("canonical JSON: object keys sorted at every depth, arrays kept in order, null and strings as JSON writes them", () => {
    expect(canonicalJson({ b: [3, { d: null, c: "x,y" }, [1, 2]], a: true, e: 1.5 })).toBe(
      '{"a":true,"b":[3,{"c":"x,y","d":null},[1,2]],"e":1.5}',
    );
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
    expect(canonicalJson(undefined)).toBe("null");
    expect(fingerprintOf("POST", "/hedges/close", { side: "buy", market: "USDTNGN" })).toBe(
      'POST /hedges/close\n{"market":"USDTNGN","side":"buy"}',
    );
  });

  test("keys loaded from a state file in any order are forgotten on time, each by its own first use", () => {
    let now = 0;
    const store = new IdempotencyStore(() => now, 1_000);
    const record = (key: string, createdAt: number): IdempotencyRecord => ({
      scope: "sandbox:k",
      key,
      fingerprint: `f-${key}`,
      createdAt,
      response: { status: 200, body: key },
    });
    store.load([record("newer", 500), record("older", 0)]);
    expect(store.records().map((r) => [r.scope, r.key, r.createdAt])).toEqual([
      ["sandbox:k", "older", 0],
      ["sandbox:k", "newer", 500],
    ]);
    now = 1_200;
    expect(store.claim("sandbox:k", "newer", "f-newer")).toEqual({ kind: "replay", response: { status: 200, body: "newer" } });
    expect(store.claim("sandbox:k", "older", "f-older")).toEqual({ kind: "new" });
  });

  test("only answered keys are saved; a released key runs again, an answered one is never released", () => {
    const store = new IdempotencyStore(() => 0);
    expect(store.claim("s", "answered", "f")).toEqual({ kind: "new" });
    store.complete("s", "answered", { status: 200, body: "ok" });
    expect(store.claim("s", "pending", "f")).toEqual({ kind: "new" });
    expect(store.records().map((r) => r.key)).toEqual(["answered"]);
    store.release("s", "answered");
    expect(store.claim("s", "answered", "f")).toEqual({ kind: "replay", response: { status: 200, body: "ok" } });
    store.release("s", "pending");
    expect(store.claim("s", "pending", "f")).toEqual({ kind: "new" });
    expect(store.claim("s", "pending", "f")).toEqual({ kind: "in_flight" });
    expect(store.claim("s", "pending", "g")).toEqual({ kind: "reuse" });
    expect(store.claim("other scope", "pending", "f")).toEqual({ kind: "new" });
  });

  test("a reset while a request runs: its late answer is not stored, and releasing an unknown key is harmless", () => {
    const store = new IdempotencyStore(() => 0);
    store.claim("s", "k", "f");
    store.clear();
    expect(store.size).toBe(0);
    store.complete("s", "k", { status: 200, body: "late" });
    store.release("s", "never-claimed");
    expect(store.size).toBe(0);
    expect(store.claim("s", "k", "f")).toEqual({ kind: "new" });
  });
});
