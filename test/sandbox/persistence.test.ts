// --state across restarts (atomic writes, pending fills, idempotency, clock), the accounts file, and the CLI as a child process.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { closedHedgeSchema, hedgeSchema, openHedgeResultSchema } from "../../src/api/schemas";
import { parseAccounts } from "../../src/sandbox/accounts";
import { parseArgs, UsageError } from "../../src/sandbox/cli-args";
import { DEMO_API_KEY } from "../../src/sandbox/demo";
import { loadState, saveState } from "../../src/sandbox/persistence";
import { startSandbox } from "../../src/sandbox/server";
import { account, OPEN, raw, start, until } from "./helpers";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-state-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("--state keeps balances, hedges, history, idempotency keys and the clock across a restart", async () => {
  const file = join(dir, "state.json");
  let sb = await start({ stateFile: file });
  const opened = openHedgeResultSchema.parse(
    (await raw(sb, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "persist-1" } })).json.data,
  );
  await until(
    async () => ((await raw(sb, "GET", `/hedges/${opened.hedge_id}`)).json.data as { status: string }).status === "filled" || undefined,
  );
  await raw(sb, "POST", "/hedges/decrease", { body: { market: "USDTNGN", side: "buy", reduce_notional_usd: 25_000 } });
  await until(async () => ((await raw(sb, "GET", "/hedges/history")).json.data as unknown[]).length === 1 || undefined);
  sb.clock.advance(3_600_000);
  // A pending order: the close waits for fills to resume.
  sb.faults.apply({ stall_fills: true });
  await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } });
  const before = {
    account: (await raw(sb, "GET", "/account")).json.data,
    hedges: (await raw(sb, "GET", "/hedges")).json.data,
    history: (await raw(sb, "GET", "/hedges/history")).json.data,
  };
  await sb.close();
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  const saved = loadState(file)!;
  expect(saved.version).toBe(1);
  expect(saved.engine.clockOffsetMs).toBe(3_600_000);

  sb = await start({ stateFile: file, faults: { stall_fills: true } });
  try {
    expect(sb.clock.offsetMs).toBe(3_600_000);
    expect((await raw(sb, "GET", "/hedges/history")).json.data).toEqual(before.history);
    expect((await raw(sb, "GET", "/hedges")).json.data).toEqual(before.hedges);
    expect((await raw(sb, "GET", "/account")).json.data).toMatchObject({
      balance_usdc: (before.account as { balance_usdc: number }).balance_usdc,
    });
    const replay = await raw(sb, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "persist-1" } });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(openHedgeResultSchema.parse(replay.json.data).hedge_id).toBe(opened.hedge_id);
    // The pending close is still queued; it fills once fills resume.
    sb.faults.apply({ stall_fills: false });
    const closed = await until(async () => {
      const h = hedgeSchema.parse((await raw(sb, "GET", `/hedges/${opened.hedge_id}`)).json.data);
      return h.status === "closed" ? h : undefined;
    });
    expect(closed.notional_usd).toBe(75_000);
    const records = z.array(closedHedgeSchema).parse((await raw(sb, "GET", "/hedges/history")).json.data);
    const balance = ((await raw(sb, "GET", "/account")).json.data as { balance_usdc: number }).balance_usdc;
    expect(Math.round(balance * 100)).toBe(25_000_000 + records.reduce((s, r) => s + Math.round(r.net_pnl_usd * 100), 0));
  } finally {
    await sb.close();
  }
});

test("a stored refusal (no change of the engine) reaches the state file too, without waiting for shutdown", async () => {
  const file = join(dir, "refusal.json");
  let sb = await start({ stateFile: file });
  const refused = await raw(sb, "POST", "/hedges/close", {
    body: { market: "USDTNGN", side: "buy" },
    headers: { "Idempotency-Key": "refused-close" },
  });
  expect(refused.json.error?.code).toBe("no_open_hedge");
  await until(() => loadState(file)?.idempotency.some((r) => r.key === "refused-close") || undefined, 2_000, "the record to be written");
  await sb.close();
  sb = await start({ stateFile: file });
  try {
    const replay = await raw(sb, "POST", "/hedges/close", {
      body: { market: "USDTNGN", side: "buy" },
      headers: { "Idempotency-Key": "refused-close" },
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(refused.text);
  } finally {
    await sb.close();
  }
});

test("an open accepted but not yet sent when the process stopped is sent on restart", async () => {
  const file = join(dir, "submitting.json");
  const sb = await start({ stateFile: file, faults: { latency_ms: 100 } });
  const pending = raw(sb, "POST", "/hedges", { body: OPEN }).catch(() => null);
  await until(() => sb.engine.accountState(DEMO_API_KEY)!.hedges.length === 1 || undefined);
  expect(sb.engine.accountState(DEMO_API_KEY)!.hedges[0].status).toBe("submitting");
  sb.flush();
  await sb.close();
  await pending;
  const again = await start({ stateFile: file });
  try {
    const [hedge] = z.array(hedgeSchema).parse((await raw(again, "GET", "/hedges")).json.data);
    expect(hedge.status).not.toBe("submitting");
    expect(hedge.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The closed instance's request, still sleeping in its latency, never writes over the new instance's file.
    const written = readFileSync(file, "utf8");
    await new Promise((r) => setTimeout(r, 150));
    again.flush();
    expect(loadState(file)!.engine.accounts.length).toBe(JSON.parse(written).engine.accounts.length);
  } finally {
    await again.close();
  }
});

test("state files are written whole (temp file, rename) and a bad one is refused with advice", () => {
  const file = join(dir, "nested", "deep", "s.json");
  saveState(file, {
    version: 1,
    saved_at: "x",
    engine: { seed: 1, priceOriginMs: 0, clockOffsetMs: 0, rngState: 1, seq: 0, accounts: [] },
    idempotency: [],
  });
  expect(JSON.parse(readFileSync(file, "utf8")).version).toBe(1);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  // A state file another tool left world-readable is replaced by one only its owner reads.
  chmodSync(file, 0o644);
  saveState(file, JSON.parse(readFileSync(file, "utf8")));
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(loadState(join(dir, "missing.json"))).toBeNull();
  const bad = join(dir, "bad.json");
  writeFileSync(bad, "{oops");
  expect(() => loadState(bad)).toThrow(/not JSON.*move it away/);
  writeFileSync(bad, JSON.stringify({ version: 99 }));
  expect(() => loadState(bad)).toThrow(/version 1/);
});

test("accounts files are checked, and new accounts of the file join a restored state", async () => {
  expect(() => parseAccounts({ accounts: [{ api_key: "sk_1" }] })).toThrow(/api_key: must start with svc_test_/);
  expect(() => parseAccounts({ accounts: [account("svc_test_a"), account("svc_test_a")] })).toThrow(/twice/);
  const file = join(dir, "accounts-join.json");
  const first = await startSandbox({ port: 0, http: true, stateFile: file, accounts: [account("svc_test_first_0001")] });
  await first.close();
  const second = await startSandbox({
    port: 0,
    http: true,
    stateFile: file,
    accounts: [account("svc_test_first_0001"), account("svc_test_second_0001", { balance_usdc: 7 })],
  });
  try {
    expect(
      ((await raw(second, "GET", "/account", { key: "svc_test_second_0001" })).json.data as { balance_usdc: number }).balance_usdc,
    ).toBe(7);
  } finally {
    await second.close();
  }
});

test("command line parsing", () => {
  expect(
    parseArgs([
      "--port",
      "0",
      "--http",
      "--seed=9",
      "--fill-ms",
      "20",
      "--fail-rate",
      "0.25",
      "--accounts",
      "a.json",
      "--state",
      "s.json",
      "--host",
      "0.0.0.0",
    ]),
  ).toEqual({
    port: 0,
    http: true,
    seed: 9,
    fillMs: 20,
    failRate: 0.25,
    accountsFile: "a.json",
    stateFile: "s.json",
    host: "0.0.0.0",
  });
  expect(
    parseArgs([
      "--fail-next",
      "3:executor_unavailable",
      "--latency-ms",
      "100",
      "--stall-fills",
      "--price-unavailable",
      "--drop-after-commit",
      "2",
      "--rate-limit-next",
      "4",
    ]).faults,
  ).toEqual({
    fail_next: { count: 3, code: "executor_unavailable" },
    latency_ms: 100,
    stall_fills: true,
    price_unavailable: true,
    drop_after_commit: 2,
    rate_limit_next: 4,
  });
  for (const bad of [
    ["--port", "x"],
    ["--fail-rate", "2"],
    ["--bogus"],
    ["--state"],
    ["--fail-next", "1:hedge_exists"],
    ["--port", "70000"],
  ]) {
    expect(() => parseArgs(bad)).toThrow(UsageError);
  }
});

test("`tsx src/sandbox/main.ts --http --port 0` prints `listening on <base url>/v2` and its keys, serves, and saves state on SIGTERM", async () => {
  const state = join(dir, "cli-state.json");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/sandbox/main.ts", "--http", "--port", "0", "--fill-ms", "20", "--seed", "5", "--state", state],
    {
      cwd: resolve(__dirname, "../.."),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  try {
    const baseUrl = await until(() => /listening on (\S+)/.exec(out)?.[1], 20_000, "the sandbox to listen");
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
    expect(out).toContain(DEMO_API_KEY); // demo keys in full
    expect(out).toContain("svc_live_demo_sandbox_key_0001");
    const res = await fetch(`${baseUrl}/prices?market=USDTNGN`, { headers: { Authorization: `Bearer ${DEMO_API_KEY}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { USDTNGN: { price: number } } }).data.USDTNGN.price).toBeGreaterThan(1000);
    const opened = await fetch(`${baseUrl}/hedges`, {
      method: "POST",
      headers: { Authorization: `Bearer ${DEMO_API_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify(OPEN),
    });
    expect(opened.status).toBe(200);
    // The control token is printed at start, and the key and state calls need it.
    const token = /control token: ([0-9a-f]{32})\b/.exec(out)?.[1];
    expect(token).toBeDefined();
    const controlUrl = baseUrl.replace(/\/v2$/, "/_sandbox");
    expect((await fetch(`${controlUrl}/state`)).status).toBe(401);
    expect((await fetch(`${controlUrl}/state`, { headers: { "X-Sandbox-Token": token! } })).status).toBe(200);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  expect(existsSync(state)).toBe(true);
  expect(statSync(state).mode & 0o777).toBe(0o600); // its keys are readable by its owner only
  expect(loadState(state)!.engine.accounts.find((a) => a.config.api_key === DEMO_API_KEY)!.hedges).toHaveLength(1);
}, 30_000);

test("custom accounts are printed masked", async () => {
  const { maskKey } = await import("../../src/api/environment");
  expect(maskKey("svc_test_secret_customer_key_9f3a")).toBe("svc_test_…9f3a");
});
