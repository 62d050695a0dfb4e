// The sandbox hardened: the control API refuses foreign Origins and Hosts and non-JSON bodies and masks keys; --state answers a change only once it is on disk (kill -9 loses nothing), one sandbox per state file, a checked state file; oversized headers and absurd numbers get the envelope.
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hedgeSchema, openHedgeResultSchema } from "../../src/api/schemas";
import { DEMO_API_KEY, DEMO_LIVE_API_KEY } from "../../src/sandbox/demo";
import { loadState } from "../../src/sandbox/persistence";
import type { RunningSandbox } from "../../src/sandbox/server";
import { account, control, OPEN, raw, start, until } from "./helpers";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-security-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One request with exactly these headers (fetch cannot set Host), answer parsed. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: { error: { code: string; message: string; details: unknown } | null; data: unknown } }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => {
        try {
          done({ status: res.statusCode ?? 0, json: JSON.parse(text) });
        } catch (e) {
          fail(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)} ${(e as Error).message}`));
        }
      });
    });
    req.on("error", fail);
    req.end(body);
  });
}

describe("the control API", () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start();
  });
  afterAll(() => sb.close());

  const json = { "Content-Type": "application/json" };

  test("a page of another origin cannot inject faults or reset the state, whatever the Content-Type", async () => {
    const opened = await raw(sb, "POST", "/hedges", { body: OPEN });
    expect(opened.status).toBe(200);
    for (const headers of [
      { Origin: "https://evil.example", ...json },
      { Origin: "https://evil.example", "Content-Type": "text/plain" },
    ]) {
      const faults = await raw(sb, "POST", `${sb.controlUrl}/faults`, {
        key: null,
        headers,
        rawBody: JSON.stringify({ fail_next: { count: 5 } }),
      });
      expect(faults.status).toBe(403);
      expect(faults.json.error).toMatchObject({
        code: "insufficient_scope",
        message: expect.stringContaining("Origin https://evil.example"),
      });
      const reset = await raw(sb, "POST", `${sb.controlUrl}/reset`, { key: null, headers });
      expect(reset.status).toBe(403);
    }
    expect(((await control(sb, "GET", "/faults")).json.data as { fail_next: unknown[] }).fail_next).toEqual([]);
    expect((await raw(sb, "GET", "/hedges")).json.data).toHaveLength(1);
  });

  test("a text/plain or form body is refused even from this machine (a page's 'simple' POST needs no preflight)", async () => {
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await raw(sb, "POST", `${sb.controlUrl}/faults`, {
        key: null,
        headers: { "Content-Type": type },
        rawBody: JSON.stringify({ latency_ms: 5 }),
      });
      expect([type, r.status, r.json.error?.details]).toEqual([type, 415, { fields: { "Content-Type": "must be application/json" } }]);
    }
    expect(((await control(sb, "GET", "/faults")).json.data as { latency_ms: number }).latency_ms).toBe(0);
    // A loopback page (the add-in's dev server) and plain tools with JSON are served.
    const fromDevServer = await raw(sb, "POST", `${sb.controlUrl}/faults`, {
      key: null,
      headers: { Origin: "https://localhost:3000", ...json },
      rawBody: "{}",
    });
    expect(fromDevServer.status).toBe(200);
    expect((await control(sb, "POST", "/reset")).status).toBe(200);
  });

  test("a Host that is not a loopback name (DNS rebinding) cannot read the accounts or the state", async () => {
    for (const path of ["/accounts", "/state", "/faults"]) {
      const r = await rawRequest(`${sb.controlUrl}${path}`, "GET", { Host: `rebound.evil.example:${sb.port}` });
      expect([path, r.status, r.json.error?.code]).toEqual([path, 403, "insufficient_scope"]);
      expect(JSON.stringify(r.json)).not.toContain(DEMO_API_KEY);
    }
    for (const host of [`localhost:${sb.port}`, `127.0.0.1:${sb.port}`, `[::1]:${sb.port}`]) {
      expect((await rawRequest(`${sb.controlUrl}/health`, "GET", { Host: host })).status).toBe(200);
    }
  });

  test("reading the state or the accounts and adding accounts or keys need the control token; faults, clock and reset do not", async () => {
    const trader = "svc_test_minted_trading_key_0042";
    const calls: Array<[string, string, unknown]> = [
      ["GET", "/state", undefined],
      ["GET", "/accounts", undefined],
      ["POST", "/accounts", account("svc_test_minted_account_key_0043")],
      ["POST", "/accounts/keys", { account_key: DEMO_API_KEY, api_key: trader, scopes: ["read", "trade"] }],
    ];
    for (const token of [null, "0".repeat(32), sb.controlToken.slice(1)]) {
      for (const [method, path, body] of calls) {
        const headers: Record<string, string> = token === null ? {} : { "X-Sandbox-Token": token };
        const r = await raw(sb, method, `${sb.controlUrl}${path}`, { key: null, body, headers });
        expect([method, path, r.status, r.json.error?.code]).toEqual([method, path, 401, "invalid_api_key"]);
        expect(r.json.error?.message).toContain("X-Sandbox-Token");
        expect(r.text).not.toContain(DEMO_API_KEY);
      }
    }
    // Nothing was minted: the key does not trade.
    expect((await raw(sb, "POST", "/hedges", { key: trader, body: OPEN })).status).toBe(401);
    for (const [method, path] of [
      ["GET", "/health"],
      ["GET", "/faults"],
      ["GET", "/clock"],
    ]) {
      expect((await raw(sb, method, `${sb.controlUrl}${path}`, { key: null })).status).toBe(200);
    }
    expect(sb.controlToken).toMatch(/^[0-9a-f]{32}$/);
    expect((await control(sb, "GET", "/state")).status).toBe(200);
  });

  test("the account list shows demo keys in full and every other key masked", async () => {
    const secret = "svc_test_customer_secret_key_9f3a";
    expect((await control(sb, "POST", "/accounts", account(secret))).status).toBe(201);
    const listed = (await control(sb, "GET", "/accounts")).json.data as Array<{ api_key: string }>;
    const keys = listed.map((a) => a.api_key);
    expect(keys).toEqual(expect.arrayContaining([DEMO_API_KEY, DEMO_LIVE_API_KEY, "svc_test_…9f3a"]));
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  test("the clock moves at most ten years at once", async () => {
    const r = await control(sb, "POST", "/clock", { advance_days: 1e308 });
    expect(r.status).toBe(400);
    expect(r.json.error?.details).toEqual({ fields: { "(root)": "may move the clock at most 3650 days at once" } });
  });
});

/** One HTTP/1.1 request written by hand (no client adds a Host to it); the status line and the body of the answer. */
function handWritten(sb: RunningSandbox, head: string): Promise<{ statusLine: string; body: string }> {
  return new Promise((done, fail) => {
    const socket = connect(sb.port, "127.0.0.1", () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString()));
    socket.on("error", fail);
    socket.on("close", () => done({ statusLine: text.split("\r\n")[0], body: text.slice(text.indexOf("\r\n\r\n") + 4) }));
  });
}

describe("edges of the API", () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start();
  });
  afterAll(() => sb.close());

  test("a 20 KB Idempotency-Key gets 431 in the envelope; a 300-character one 400 in the envelope", async () => {
    const huge = await rawRequest(`${sb.baseUrl}/hedges`, "POST", {
      Authorization: `Bearer ${DEMO_API_KEY}`,
      "Content-Type": "application/json",
      "Idempotency-Key": "k".repeat(20_000),
    });
    expect(huge.status).toBe(431);
    expect(huge.json.error).toMatchObject({
      code: "validation_error",
      details: { fields: { headers: expect.stringMatching(/larger than/) } },
    });
    const long = await raw(sb, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "k".repeat(300) } });
    expect(long.status).toBe(400);
    expect(long.json.error?.details).toEqual({ fields: { "Idempotency-Key": "must be 1 to 255 characters" } });
    expect((await raw(sb, "GET", "/hedges")).json.data).toEqual([]);
  });

  test("bound to loopback, /v2 refuses a Host that is not a loopback name (DNS rebinding) before reading anything", async () => {
    const auth = { Authorization: `Bearer ${DEMO_API_KEY}` };
    for (const path of ["/account", "/hedges", "/markets"]) {
      const r = await rawRequest(`${sb.baseUrl}${path}`, "GET", { ...auth, Host: `rebound.evil.example:${sb.port}` });
      expect([path, r.status, r.json.error?.code, r.json.error?.details]).toEqual([
        path,
        400,
        "validation_error",
        { fields: { Host: expect.stringMatching(/must be localhost, 127\.x\.x\.x or \[::1\]/) } },
      ]);
      expect(r.json.data).toBeNull();
    }
    const open = await rawRequest(
      `${sb.baseUrl}/hedges`,
      "POST",
      { ...auth, "Content-Type": "application/json", Host: "rebound.evil.example" },
      JSON.stringify(OPEN),
    );
    expect(open.status).toBe(400);
    expect((await raw(sb, "GET", "/hedges")).json.data).toEqual([]); // nothing was opened
    for (const host of [`localhost:${sb.port}`, `127.0.0.1:${sb.port}`, `[::1]:${sb.port}`, "localhost"]) {
      expect([host, (await rawRequest(`${sb.baseUrl}/account`, "GET", { ...auth, Host: host })).status]).toEqual([host, 200]);
    }
  });

  test("a body nested deeper than 64 levels gets 400 naming the depth, every time (not 503 forever)", async () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    const bodyWith = (n: number) => `{"market":"USDTNGN","side":"buy","notional_usd":1000,"tenor_days":7,"extra":${deep(n)}}`;
    for (const n of [65, 32_000]) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const r = await raw(sb, "POST", "/hedges", {
          rawBody: bodyWith(n),
          headers: { "Content-Type": "application/json", "Idempotency-Key": `deep-${n}` },
        });
        expect([n, r.status, r.json.error?.code, r.json.error?.details]).toEqual([
          n,
          400,
          "validation_error",
          { fields: { extra: "nests more than 64 levels deep" } },
        ]);
        expect(r.json.error?.message).toMatch(/field extra nests more than 64 levels deep; send at most 64/);
      }
    }
    const control = await raw(sb, "POST", `${sb.controlUrl}/faults`, {
      key: null,
      rawBody: `{"latency_ms":0,"x":${deep(100)}}`,
      headers: { "Content-Type": "application/json" },
    });
    expect([control.status, control.json.error?.details]).toEqual([400, { fields: { x: "nests more than 64 levels deep" } }]);
    // 63 levels in an ignored field is within the limit: the open goes through.
    const ok = await raw(sb, "POST", "/hedges", {
      rawBody: bodyWith(63),
      headers: { "Content-Type": "application/json", "Idempotency-Key": "deep-63" },
    });
    expect(ok.status).toBe(200);
    await raw(sb, "POST", "/hedges/close", { body: { market: "USDTNGN", side: "buy" } });
  });

  test("an HTTP/1.1 request without a Host header gets 400 in the envelope, under /v2 and /_sandbox alike", async () => {
    for (const path of ["/v2/markets", "/_sandbox/health"]) {
      const answer = await handWritten(sb, `GET ${path} HTTP/1.1`);
      expect([path, answer.statusLine]).toEqual([path, "HTTP/1.1 400 Bad Request"]);
      expect(JSON.parse(answer.body)).toEqual({
        data: null,
        error: {
          code: "validation_error",
          message: expect.stringMatching(/no Host header/),
          details: { fields: { Host: "is required (HTTP/1.1)" } },
        },
        meta: {},
      });
    }
    // HTTP/1.0 has no Host: the API answers it; the control API, which checks the Host, refuses it in the envelope.
    expect((await handWritten(sb, "GET /v2/markets HTTP/1.0")).statusLine).toMatch(/^HTTP\/1\.1 401 /);
    const control10 = await handWritten(sb, "GET /_sandbox/health HTTP/1.0");
    expect([control10.statusLine, JSON.parse(control10.body).error.code]).toEqual(["HTTP/1.1 403 Forbidden", "insufficient_scope"]);
  });

  test("a quote or an open for 1e308 is a validation_error naming the field, not an answer of nulls", async () => {
    for (const path of ["/quotes", "/hedges"]) {
      const r = await raw(sb, "POST", path, { body: { ...OPEN, notional_usd: 1e308 } });
      expect([path, r.status, r.json.error?.code, r.json.error?.details]).toEqual([
        path,
        400,
        "validation_error",
        { fields: { notional_usd: "must be at most 1,000,000,000 USD" } },
      ]);
    }
    const add = await raw(sb, "POST", "/hedges/add", { body: { market: "USDTNGN", side: "buy", additional_notional_usd: 1e300 } });
    expect(add.json.error?.details).toEqual({ fields: { additional_notional_usd: "must be at most 1,000,000,000 USD" } });
  });
});

describe("--state", () => {
  const ROOT = resolve(__dirname, "../..");

  /** `npm run sandbox -- --http --port 0 --state FILE` as a child process; resolves once it listens. */
  async function spawnSandbox(stateFile: string): Promise<{ child: ChildProcess; baseUrl: string; output: () => string }> {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/sandbox/main.ts", "--http", "--port", "0", "--fill-ms", "60000", "--state", stateFile],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    const baseUrl = await until(() => /listening on (\S+)/.exec(out)?.[1], 30_000, "the sandbox to listen");
    return { child, baseUrl, output: () => out };
  }

  const killed = (child: ChildProcess) =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGKILL");
    });

  /** Why a sandbox on this state file would not start (null: it started, and is closed again). */
  const refusal = async (stateFile: string): Promise<string | null> => {
    try {
      await (await start({ stateFile })).close();
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  };

  const post = (baseUrl: string, path: string, body: unknown, key: string) =>
    fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${DEMO_API_KEY}`, "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(body),
    });

  test("kill -9 right after an acknowledged open (and add) loses neither the hedge nor its idempotency key", async () => {
    const file = join(dir, "kill9.json");
    const first = await spawnSandbox(file);
    let opened;
    try {
      const open = await post(first.baseUrl, "/hedges", OPEN, "kill9-open");
      expect(open.status).toBe(200);
      opened = openHedgeResultSchema.parse(((await open.json()) as { data: unknown }).data);
      const add = await post(first.baseUrl, "/hedges/add", { market: "USDTNGN", side: "buy", additional_notional_usd: 5_000 }, "kill9-add");
      expect(add.status).toBe(200);
      await add.text();
    } finally {
      // At once: no shutdown, no timer gets to write anything after the answer.
      await killed(first.child);
    }
    const saved = loadState(file)!;
    expect(saved.idempotency.map((r) => r.key).sort()).toEqual(["kill9-add", "kill9-open"]);

    const again = await start({ stateFile: file, fillMs: 60_000 });
    try {
      const hedge = hedgeSchema.parse((await raw(again, "GET", `/hedges/${opened.hedge_id}`)).json.data);
      expect(hedge.id).toBe(opened.hedge_id);
      const replay = await raw(again, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "kill9-open" } });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(openHedgeResultSchema.parse(replay.json.data).hedge_id).toBe(opened.hedge_id);
    } finally {
      await again.close();
    }
  }, 60_000);

  test("two sandboxes on one state file: the second refuses to start, naming the first; after kill -9 the lock is taken over", async () => {
    const file = join(dir, "shared.json");
    const first = await spawnSandbox(file);
    try {
      expect(await refusal(file)).toMatch(
        new RegExp(`state file .*shared\\.json is in use by another sandbox \\(pid ${first.child.pid}\\).*another --state file`),
      );
    } finally {
      await killed(first.child);
    }
    const second = await start({ stateFile: file });
    try {
      // And in one process, too.
      expect(await refusal(file)).toMatch(/is in use by another sandbox in this process/);
    } finally {
      await second.close();
    }
    const third = await start({ stateFile: file });
    await third.close();
  }, 60_000);

  test("a lock whose pid is alive says how to clear it; an unreadable one is taken for a sandbox starting, unless it is old", async () => {
    const file = join(dir, "locked.json");
    // The pid of this very test process is alive: as if a crashed sandbox's pid had been reused.
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), started_at: "" }));
    expect(await refusal(file)).toMatch(new RegExp(`if no sandbox runs as pid ${process.ppid} now, delete the lock file`));
    writeFileSync(`${file}.lock`, "");
    expect(await refusal(file)).toMatch(/in use by another sandbox that is starting/);
    const old = new Date(Date.now() - 10_000);
    utimesSync(`${file}.lock`, old, old);
    expect(await refusal(file)).toBeNull();
  });

  test("a state file that cannot be written: the change is answered 503, kept, saved with the next write and replayed", async () => {
    const file = join(dir, "unwritable", "state.json");
    const sb = await start({ stateFile: file, fillMs: 60_000 });
    try {
      await sb.flush();
      rmSync(file);
      mkdirSync(file); // renaming the new state onto a directory fails
      const failed = await raw(sb, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "unwritable-open" } });
      expect([failed.status, failed.json.error?.code]).toEqual([503, "service_unavailable"]);
      expect(failed.json.error?.message).toMatch(/could not write its state file.*Retry with the same Idempotency-Key/);
      expect(readdirSync(join(dir, "unwritable")).sort()).toEqual(["state.json", "state.json.lock"]); // no temp file left
      rmSync(file, { recursive: true });
      const retry = await raw(sb, "POST", "/hedges", { body: OPEN, headers: { "Idempotency-Key": "unwritable-open" } });
      expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
      const saved = loadState(file)!;
      expect(saved.idempotency.map((r) => r.key)).toEqual(["unwritable-open"]);
      expect(saved.engine.accounts.flatMap((a) => a.hedges)).toHaveLength(1);
    } finally {
      await sb.close();
    }
  });

  test("a structurally wrong state file is refused with the field and what to do", async () => {
    const file = join(dir, "wrong.json");
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        saved_at: "2026-11-22T10:00:00Z",
        engine: { seed: 1, priceOriginMs: 0, clockOffsetMs: 0, rngState: 1, seq: 0, accounts: [{ config: {}, hedges: "none" }] },
        idempotency: [],
      }),
    );
    expect(await refusal(file)).toMatch(
      /state file .*wrong\.json is not a valid sandbox state: engine\.accounts\.0\.config\.api_key: .*; move it away to start fresh/,
    );
    // The failed start left no lock behind.
    const fresh = join(dir, "fresh.json");
    const sb = await start({ stateFile: fresh });
    await sb.close();
    writeFileSync(file, "{}");
    rmSync(file);
  });
});
