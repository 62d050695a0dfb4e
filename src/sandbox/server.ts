// startSandbox(): wires clock, engine, faults, idempotency, rate limit and persistence into a node:http(s) server.
import { randomBytes } from "node:crypto";
import {
  createServer as createHttpServer,
  maxHeaderSize as httpMaxHeaderSize,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Environment } from "../api/environment";
import { defaultAccounts, environmentOfKey, loadAccountsFile, type AccountConfig } from "./accounts";
import { localhostTls, type TlsOptions } from "./certificates";
import { SandboxClock } from "./clock";
import { CONTROL_PREFIX, handleControl } from "./control";
import type { Economics } from "./economics";
import { Engine } from "./engine";
import { faultPatchSchema, Faults, type FaultPatch } from "./faults";
import {
  corsHeaders,
  DEFAULT_MAX_BODY_BYTES,
  failure,
  isLoopbackAddress,
  isLoopbackHost,
  notFound,
  preflightHeaders,
  send,
  unsaved,
  validationFailure,
  type Reply,
} from "./http-io";
import { DEFAULT_RETENTION_MS, IdempotencyStore } from "./idempotency";
import { loadState, StateWriter, STATE_VERSION, type SavedState } from "./persistence";
import { DEFAULT_MARKETS, type MarketConfig } from "./pricing";
import { RateLimiter } from "./rate-limit";
import { lockStateFile } from "./state-lock";
import { API_PREFIX, ApiRouter, type Answer } from "./router";

export interface SandboxOptions {
  /** TCP port; 0 picks a free one. Default 4010. */
  port?: number;
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Plain HTTP instead of HTTPS (loopback tests and tools). Default false. */
  http?: boolean;
  /** HTTPS key and certificate; default: office-addin-dev-certs' localhost certificate. */
  tls?: TlsOptions;
  /** Accounts to serve; default: accountsFile, else src/sandbox/default-accounts.json. */
  accounts?: AccountConfig[];
  accountsFile?: string;
  /** Keep the whole state in this JSON file across restarts: written atomically before a change is answered, locked against a second sandbox. */
  stateFile?: string;
  seed?: number;
  /** Submission to fill, in sandbox-clock ms. Default 1500. */
  fillMs?: number;
  /** Probability that an open fails at fill. Default 0. */
  failRate?: number;
  /** Mid rate of USDTNGN at start (when `markets` is not given). Default 1500. */
  spot?: number;
  markets?: MarketConfig[];
  economics?: Partial<Economics>;
  /** Faults switched on from the start (same shape as POST /_sandbox/faults). */
  faults?: FaultPatch;
  idempotencyRetentionMs?: number;
  maxBodyBytes?: number;
  /** CORS origins allowed besides loopback ones (https://localhost:3000 is loopback). */
  allowedOrigins?: string[];
  /** Real-time source of the clock (tests may freeze it); default Date.now. */
  realNow?: () => number;
  /** Where the sandbox reports dropped connections and save errors; default: nowhere. */
  log?: (line: string) => void;
  /** The control token the key and state calls of the control API need; default: random, new at every start. */
  controlToken?: string;
  /** Told of every /v2 answer sent (tests check each against the OpenAPI document). */
  onAnswer?: (answer: Answer) => void;
}

export interface ServedKey {
  api_key: string;
  environment: Environment;
  scopes: string[];
  revoked: boolean;
  demo: boolean;
  label: string | null;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:4010/v2 — what a HedgingClient takes as baseUrl. */
  baseUrl: string;
  /** e.g. http://127.0.0.1:4010/_sandbox — the control API. */
  controlUrl: string;
  /** What the control API's key and state calls need in their X-Sandbox-Token header. */
  controlToken: string;
  port: number;
  host: string;
  protocol: "http" | "https";
  engine: Engine;
  clock: SandboxClock;
  faults: Faults;
  idempotency: IdempotencyStore;
  /** The keys served, as configured at start. */
  keys: ServedKey[];
  /** Same as POST /_sandbox/reset. */
  reset(): void;
  /** Writes the state file now (when --state is used). */
  flush(): void;
  close(): Promise<void>;
}

function urlHost(host: string, protocol: "http" | "https"): string {
  if (host === "0.0.0.0" || host === "::" || (protocol === "https" && (host === "127.0.0.1" || host === "::1"))) return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}

/** Path and query of a request target, without the cost of a full URL parse on the hot path. */
function splitTarget(target: string): { path: string; query: URLSearchParams } | null {
  if (!target.startsWith("/")) {
    try {
      const url = new URL(target);
      return { path: url.pathname, query: url.searchParams };
    } catch {
      return null;
    }
  }
  const q = target.indexOf("?");
  return q < 0
    ? { path: target, query: new URLSearchParams() }
    : { path: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
}

/** The answer to a /v2 request addressed to a name that is not loopback while the sandbox listens on loopback only (DNS rebinding). */
function foreignHost(host: string): Reply {
  return validationFailure(
    { Host: "must be localhost, 127.x.x.x or [::1] (with any port): this sandbox listens on loopback only" },
    `The sandbox listens on loopback only and answers requests addressed to localhost, 127.0.0.1 or [::1]; Host "${host}" is not one of them.`,
  );
}

/** Node's limit on a request's headers, in bytes (a request over it gets 431 in the envelope). */
const maxHeaderSize = httpMaxHeaderSize;

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const protocol = options.http ? "http" : "https";
  const host = options.host ?? "127.0.0.1";
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.log ?? (() => {});
  const accounts = options.accounts ?? (options.accountsFile ? loadAccountsFile(options.accountsFile) : defaultAccounts());
  const markets =
    options.markets ??
    DEFAULT_MARKETS.map((m) => (options.spot !== undefined && m.symbol === "USDTNGN" ? { ...m, spot: options.spot } : m));
  // One sandbox per state file: a second one would silently overwrite the first one's changes.
  const lock = options.stateFile ? lockStateFile(options.stateFile) : null;
  try {
    const controlToken = options.controlToken ?? randomBytes(16).toString("hex");
    return await run(options, { protocol, host, maxBodyBytes, log, accounts, markets, lock, controlToken });
  } catch (e) {
    lock?.release();
    throw e;
  }
}

interface Prepared {
  protocol: "http" | "https";
  host: string;
  maxBodyBytes: number;
  log: (line: string) => void;
  accounts: AccountConfig[];
  markets: MarketConfig[];
  lock: { release(): void } | null;
  controlToken: string;
}

/** The envelope for a request Node could not parse: 431 for headers over its limit, 400 otherwise. */
function clientErrorAnswer(err: NodeJS.ErrnoException): string {
  const tooLarge = err.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request";
  const fields = tooLarge ? { headers: `are larger than ${maxHeaderSize} bytes in all` } : { "(root)": "is not a valid HTTP request" };
  const message = tooLarge
    ? `The request's headers are larger than ${maxHeaderSize} bytes in all (an Idempotency-Key may have at most 255 characters).`
    : "The request is not a valid HTTP request.";
  const body = JSON.stringify({ data: null, error: { code: "validation_error", message, details: { fields } }, meta: {} });
  return [
    `HTTP/1.1 ${status}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** The sandbox's parts, built from the options and the saved state: what the request handler and the caller use. */
interface Core {
  clock: SandboxClock;
  engine: Engine;
  idempotency: IdempotencyStore;
  faults: Faults;
  limiter: RateLimiter;
  writer: StateWriter | null;
  /** Marks the state file dirty (written soon). */
  changed: () => void;
  /** Before a change is answered: the state file holds it (fsync'd temp file, renamed). False when it could not be written. */
  persist: () => boolean;
  reset: () => void;
}

/** Clock, engine, idempotency store, faults and rate limiter, restored from the state file when there is one, and the writer of that file. */
function buildCore(options: SandboxOptions, prepared: Prepared, saved: SavedState | null): Core {
  const clock = new SandboxClock(options.realNow, saved?.engine.clockOffsetMs ?? 0);
  const engine = new Engine({
    clock,
    accounts: prepared.accounts,
    seed: options.seed,
    fillMs: options.fillMs,
    failRate: options.failRate,
    economics: options.economics,
    markets: prepared.markets,
    snapshot: saved?.engine,
  });
  const idempotency = new IdempotencyStore(() => clock.now(), options.idempotencyRetentionMs ?? DEFAULT_RETENTION_MS);
  if (saved) idempotency.load(saved.idempotency);
  const faults = new Faults(engine);
  if (options.faults) faults.apply(faultPatchSchema.parse(options.faults));
  const limiter = new RateLimiter(options.realNow); // a frozen realNow freezes the buckets too (tests of the limit)

  const collect = (): SavedState => ({
    version: STATE_VERSION,
    saved_at: new Date().toISOString(),
    engine: engine.snapshot(),
    idempotency: idempotency.records(),
  });
  const writer = options.stateFile
    ? new StateWriter(options.stateFile, collect, 25, (e) => prepared.log(`could not save state: ${e.message}`))
    : null;
  const changed = () => writer?.markDirty();
  engine.onChange(changed);
  const reset = () => {
    faults.clear();
    clock.setOffset(0);
    idempotency.clear();
    limiter.clear();
    engine.reset();
    changed();
  };
  return { clock, engine, idempotency, faults, limiter, writer, changed, persist: () => (writer ? writer.flush() : true), reset };
}

/** The node:http handler: request id and CORS headers, preflights, the Host checks, then /v2, /_sandbox or 404. */
function requestHandler(
  options: SandboxOptions,
  prepared: Prepared,
  core: Core,
  baseUrl: () => string,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { engine, clock, faults, idempotency, limiter, changed, persist, reset } = core;
  const { host, maxBodyBytes, log, controlToken } = prepared;
  const router = new ApiRouter({ engine, faults, idempotency, limiter, maxBodyBytes, log, changed, persist, onAnswer: options.onAnswer });
  const extraOrigins = options.allowedOrigins ?? [];
  // Bound to loopback, the API is for this machine: a Host naming anything else is a page on a DNS name rebound to 127.0.0.1.
  const loopbackOnly = isLoopbackHost(host) || isLoopbackAddress(host);
  const requestIdPrefix = `req_${randomBytes(4).toString("hex")}_`;
  let requestCount = 0;

  const dispatch = async (req: IncomingMessage, res: ServerResponse, common: Record<string, string>) => {
    if (req.method === "OPTIONS") {
      req.resume();
      res.writeHead(204, { ...common, ...preflightHeaders(req, extraOrigins), "Content-Length": 0 });
      res.end();
      return;
    }
    const refused = malformed(req);
    if (refused) return refuse(req, res, refused, common);
    const { path, query } = splitTarget(req.url ?? "/")!;
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
      if (loopbackOnly && req.headers.host !== undefined && !isLoopbackHost(req.headers.host))
        return refuse(req, res, foreignHost(req.headers.host), common);
      await router.handle(req, res, path.slice(API_PREFIX.length) || "/", query, common);
    } else if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      const controlDeps = { token: controlToken, engine, clock, faults, idempotency, baseUrl, reset, changed, maxBodyBytes };
      const reply = await handleControl(req, path.slice(CONTROL_PREFIX.length) || "/", controlDeps);
      send(res, req.method === "GET" || persist() ? reply : unsaved(), common);
    } else refuse(req, res, notFound(path, req.method ?? "GET"), common);
  };

  return (req, res) => {
    const common: Record<string, string> = { "X-Request-Id": requestIdPrefix + (++requestCount).toString(36) };
    if (req.headers.origin) Object.assign(common, corsHeaders(req.headers.origin, extraOrigins));
    dispatch(req, res, common).catch((e: unknown) => {
      // Never a stack trace on the wire; a sandbox bug reads as a transient outage.
      log(`internal error on ${req.method} ${req.url}: ${(e as Error).stack ?? String(e)}`);
      send(res, failure("service_unavailable", "The sandbox hit an internal error; retry."), common);
    });
  };
}

/** The 400 of a request without the Host HTTP/1.1 requires, or with a target that is no path; null when neither. */
function malformed(req: IncomingMessage): Reply | null {
  // Node's own refusal of a request without Host is a bare 400, so it is answered here, in the envelope.
  if (req.headers.host === undefined && req.httpVersion !== "1.0")
    return validationFailure({ Host: "is required (HTTP/1.1)" }, "The request has no Host header, which HTTP/1.1 requires.");
  return splitTarget(req.url ?? "/") ? null : validationFailure({ path: "is not a valid request target" });
}

/** Answers without reading the body. */
function refuse(req: IncomingMessage, res: ServerResponse, reply: Reply, common: Record<string, string>): void {
  req.resume();
  send(res, reply, common);
}

/** An http(s) server on `host:port` that answers unparseable requests in the envelope; resolves once it listens. */
async function listen(
  tls: TlsOptions | null,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  host: string,
): Promise<Server> {
  // A request without Host is answered by the handler, in the envelope (Node would send a bare 400).
  const serverOptions = { requireHostHeader: false };
  const server: Server = tls
    ? createHttpsServer({ ...serverOptions, key: tls.key, cert: tls.cert, ca: tls.ca }, handler)
    : createHttpServer(serverOptions, handler);
  server.keepAliveTimeout = 5_000;
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable) socket.end(clientErrorAnswer(err));
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

async function run(options: SandboxOptions, prepared: Prepared): Promise<RunningSandbox> {
  const { protocol, host, accounts, lock } = prepared;
  const saved = options.stateFile ? loadState(options.stateFile) : null;
  const tls = protocol === "https" ? (options.tls ?? (await localhostTls())) : null;
  const core = buildCore(options, prepared, saved);
  const { engine, clock, faults, idempotency, writer } = core;

  let baseUrl = "";
  const server = await listen(
    tls,
    requestHandler(options, prepared, core, () => baseUrl),
    options.port ?? 4010,
    host,
  );
  const port = (server.address() as AddressInfo).port;
  const origin = `${protocol}://${urlHost(host, protocol)}:${port}`;
  baseUrl = `${origin}${API_PREFIX}`;
  engine.start();
  writer?.markDirty();

  let closed = false;
  return {
    baseUrl,
    controlUrl: `${origin}${CONTROL_PREFIX}`,
    controlToken: prepared.controlToken,
    port,
    host,
    protocol,
    engine,
    clock,
    faults,
    idempotency,
    keys: accounts.flatMap((a) =>
      [a, ...(a.keys ?? [])].map((k) => ({
        api_key: k.api_key,
        environment: environmentOfKey(k.api_key),
        scopes: k.scopes,
        revoked: (a.revoked ?? false) || (k.revoked ?? false),
        demo: k.demo ?? false,
        label: k.label ?? null,
      })),
    ),
    reset: core.reset,
    flush: () => writer?.flush(),
    close: async () => {
      if (closed) return;
      closed = true;
      engine.dispose();
      writer?.close();
      lock?.release();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
