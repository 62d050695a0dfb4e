// Sandbox throughput and latency: GET /prices and POST /quotes over loopback keep-alive HTTP, the server in its own process.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchAccount } from "../sandbox/helpers";

const ROOT = resolve(__dirname, "../..");
const KEY = "svc_test_bench_key_0001";
const CONCURRENCY = 32;

interface Result {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Starts `src/sandbox/main.ts --http --port 0` as a child process; resolves with its base URL. */
function startChild(accountsFile: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/sandbox/main.ts", "--http", "--port", "0", "--accounts", accountsFile], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${out}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ child, baseUrl: m[1] });
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`sandbox exited (${code}): ${out}`)));
  });
}

/**
 * One keep-alive connection that sends a request, reads exactly one response (Content-Length framed), and repeats.
 * Written on raw sockets so that the load generator costs far less CPU than node:http's client would.
 */
class Connection {
  private readonly socket: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (status: number) => void; reject: (e: Error) => void } | null = null;

  constructor(host: string, port: number) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (e) => this.pending?.reject(e));
    this.socket.on("close", () => this.pending?.reject(new Error("connection closed")));
  }

  send(request: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(request);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headerEnd = this.buffer.indexOf("\r\n\r\n");
    if (headerEnd < 0) return;
    const head = this.buffer.subarray(0, headerEnd).toString("latin1");
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffer.length < headerEnd + 4 + length) return;
    this.buffer = this.buffer.subarray(headerEnd + 4 + length);
    const pending = this.pending;
    this.pending = null;
    pending?.resolve(Number(head.slice(9, 12)));
  }

  close(): void {
    this.socket.destroy();
  }
}

function rawRequest(url: URL, method: string, body: string | undefined): Buffer {
  const lines = [
    `${method} ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    `Authorization: Bearer ${KEY}`,
    "Connection: keep-alive",
  ];
  if (body) lines.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${body ?? ""}`);
}

/** `total` requests from `CONCURRENCY` keep-alive connections, each sending its next request when the last is answered. */
async function drive(url: URL, method: string, body: string | undefined, total: number): Promise<Result> {
  const request = rawRequest(url, method, body);
  const connections = Array.from({ length: CONCURRENCY }, () => new Connection(url.hostname, Number(url.port)));
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  const loop = async (connection: Connection) => {
    while (sent < total) {
      sent++;
      const t = performance.now();
      const status = await connection.send(request);
      latencies.push(performance.now() - t);
      if (status !== 200) errors++;
    }
  };
  await Promise.all(connections.map(loop));
  const seconds = (performance.now() - started) / 1000;
  for (const c of connections) c.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { requests: latencies.length, seconds, p50: at(0.5), p99: at(0.99), errors };
}

function report(name: string, r: Result): void {
  console.log(
    `${name.padEnd(16)} ${String(r.requests).padStart(6)} requests in ${r.seconds.toFixed(2)} s: ${Math.round(r.requests / r.seconds)
      .toString()
      .padStart(6)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${r.errors ? `, ${r.errors} non-200` : ""}`,
  );
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-bench-"));
  const accountsFile = join(dir, "accounts.json");
  writeFileSync(
    accountsFile,
    JSON.stringify({
      accounts: [benchAccount(KEY, ["USDTNGN"], 1e9, { balance_usdc: 1e9, max_exposure_usd: 1e9 })],
    }),
  );
  const { child, baseUrl } = await startChild(accountsFile);
  try {
    console.log(`sandbox child process at ${baseUrl}; ${CONCURRENCY} keep-alive connections from this process`);
    const prices = new URL(`${baseUrl}/prices?market=USDTNGN`);
    const quotes = new URL(`${baseUrl}/quotes`);
    const quoteBody = JSON.stringify({ market: "USDTNGN", side: "buy", notional_usd: 250000, tenor_days: 7 });
    await drive(prices, "GET", undefined, 3000); // warm-up (JIT, connections)
    await drive(quotes, "POST", quoteBody, 2000);
    report("GET /prices", await drive(prices, "GET", undefined, 40_000));
    report("POST /quotes", await drive(quotes, "POST", quoteBody, 20_000));
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}
