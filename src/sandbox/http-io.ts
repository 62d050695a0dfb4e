// HTTP plumbing shared by the API and the control routes: envelopes, JSON replies, capped body reading, CORS, loopback checks.
import type { IncomingMessage, ServerResponse } from "node:http";
import { SERVICE_ERROR_STATUS, type ServiceErrorCode } from "../api/errors";
import type { ServiceError } from "./state";

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** An answer ready to send: status, envelope text, extra headers. */
export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export function success(data: unknown, meta: Record<string, unknown> = {}, status = 200): Reply {
  return { status, body: JSON.stringify({ data, error: null, meta }) };
}

/**
 * Codes the sandbox adds to the spec's for routing (the spec names none for an unknown path or method; README "Service
 * assumptions"). The client takes them as any other final 4xx.
 */
export const ROUTING_ERROR_STATUS = { not_found: 404, method_not_allowed: 405 } as const;

export type SandboxErrorCode = ServiceErrorCode | keyof typeof ROUTING_ERROR_STATUS;

const STATUS_OF: Record<SandboxErrorCode, number> = { ...SERVICE_ERROR_STATUS, ...ROUTING_ERROR_STATUS };

/** 404 not_found for a path that is no endpoint. */
export function notFound(path: string, method: string): Reply {
  return failure("not_found", `No endpoint ${method} ${path}.`, { path });
}

/** 405 method_not_allowed for a path that exists for other methods, with an Allow header. */
export function methodNotAllowed(path: string, method: string, allowed: string[]): Reply {
  const list = [...new Set(allowed)];
  return failure("method_not_allowed", `${path} takes ${list.join(" or ")}, not ${method}.`, { method, allowed: list }, undefined, {
    Allow: list.join(", "),
  });
}

export function failure(
  code: SandboxErrorCode,
  message: string,
  details?: Record<string, unknown> | null,
  status?: number,
  headers?: Record<string, string>,
): Reply {
  const error = details ? { code, message, details } : { code, message, details: null };
  return { status: status ?? STATUS_OF[code], body: JSON.stringify({ data: null, error, meta: {} }), headers };
}

/** The answer to a change whose state file could not be written: a transient 503 (the change is kept; retry with the same key). */
export function unsaved(): Reply {
  return failure(
    "service_unavailable",
    "The sandbox could not write its state file; the change is kept in memory and saved with the next write. Retry with the same Idempotency-Key.",
  );
}

export function failureOf(error: ServiceError): Reply {
  return failure(error.code, error.message, error.details);
}

export function validationFailure(fields: Record<string, string>, message?: string, status = 400, headers?: Record<string, string>): Reply {
  const text =
    message ??
    `Invalid request: ${Object.entries(fields)
      .map(([f, p]) => `${f} ${p}`)
      .join("; ")}.`;
  return failure("validation_error", text, { fields }, status, headers);
}

/** The deepest nesting a request body may have: far above any request of the API, far below what recursion over it can take. */
export const MAX_JSON_DEPTH = 64;

/** How deep `value` nests (a scalar is 0, `[]` and `{}` are 1) up to one level past MAX_JSON_DEPTH, and the top-level field where; no recursion. */
export function jsonDepth(value: unknown): { depth: number; field: string } {
  let deepest = { depth: 0, field: "(root)" };
  const stack: Array<[unknown, number, string]> = [[value, 0, "(root)"]];
  while (stack.length > 0) {
    const [v, d, field] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > deepest.depth) deepest = { depth: d + 1, field };
    if (deepest.depth > MAX_JSON_DEPTH) break;
    for (const [k, child] of Object.entries(v)) stack.push([child, d + 1, d === 0 && !Array.isArray(v) ? k : field]);
  }
  return deepest;
}

/** A request body's JSON (undefined when empty), or the 400 that says why not: not JSON, or nested deeper than MAX_JSON_DEPTH. */
export function parseJsonBody(text: string): { ok: true; json: unknown } | { ok: false; reply: Reply } {
  if (text.trim() === "") return { ok: true, json: undefined };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, reply: validationFailure({ "(root)": `body is not valid JSON (${(e as Error).message})` }) };
  }
  const { depth, field } = jsonDepth(json);
  if (depth > MAX_JSON_DEPTH) {
    const where = field === "(root)" ? "The request body" : `The request body's field ${field}`;
    return {
      ok: false,
      reply: validationFailure(
        { [field]: `nests more than ${MAX_JSON_DEPTH} levels deep` },
        `${where} nests more than ${MAX_JSON_DEPTH} levels deep; send at most ${MAX_JSON_DEPTH} levels.`,
      ),
    };
  }
  return { ok: true, json };
}

export type BodyResult = { ok: true; text: string } | { ok: false };

/** The request body as text, or `{ ok: false }` once it passes `limit` bytes (the rest is not read). */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ ok: false });
      } else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, text: Buffer.concat(chunks).toString("utf8") });
    const onError = () => finish({ ok: true, text: "" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/i;
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/i;

/** An http(s) origin on this machine: localhost, 127.x.x.x or [::1], any port. */
export function isLoopbackOrigin(origin: string): boolean {
  return LOOPBACK_ORIGIN.test(origin);
}

/** A Host header naming this machine (not a DNS name that merely resolves here, as in DNS rebinding). */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host.trim());
}

/** CORS: the add-in's origin (https://localhost:3000), any loopback origin, and the origins given at start. */
export function corsHeaders(origin: string | undefined, extraOrigins: readonly string[]): Record<string, string> {
  if (!origin || !(LOOPBACK_ORIGIN.test(origin) || extraOrigins.includes(origin))) return {};
  return {
    "Access-Control-Allow-Origin": origin,
    Vary: "Origin",
    "Access-Control-Expose-Headers": "Retry-After, X-Request-Id, X-Service-Mode, Idempotent-Replayed",
  };
}

export function preflightHeaders(req: IncomingMessage, extraOrigins: readonly string[]): Record<string, string> {
  const base = corsHeaders(req.headers.origin, extraOrigins);
  if (!base["Access-Control-Allow-Origin"]) return {};
  const headers: Record<string, string> = {
    ...base,
    "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key, X-Service-Mode",
    "Access-Control-Max-Age": "600",
  };
  // Chrome's Private Network Access preflight (a public page calling localhost).
  if (req.headers["access-control-request-private-network"] === "true") headers["Access-Control-Allow-Private-Network"] = "true";
  return headers;
}

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(address);
}

export function send(res: ServerResponse, reply: Reply, common: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = {
    ...common,
    ...reply.headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(reply.body),
    "Cache-Control": "no-store",
  };
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

/** A delay that does not keep the process alive by itself. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
