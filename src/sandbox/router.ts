// The /v2 API's request handling: finding the route (routes.ts), auth, rate limit, injected faults, scope, body validation with the client's zod schemas, idempotency.
import type { IncomingMessage, ServerResponse } from "node:http";
import type * as z from "zod/mini";
import { SERVICE_ERROR_STATUS } from "../api/errors";
import { fieldErrors } from "../api/schemas";
import { DEFAULT_RATE_LIMIT_PER_SECOND } from "./accounts";
import type { Engine } from "./engine";
import type { Faults } from "./faults";
import {
  failure,
  methodNotAllowed,
  notFound,
  parseJsonBody,
  readBody,
  send,
  sleep,
  unsaved,
  validationFailure,
  type Reply,
} from "./http-io";
import { fingerprintOf, idempotencyScope, MAX_IDEMPOTENCY_KEY_LENGTH, type IdempotencyStore } from "./idempotency";
import { openApiDocument, OPENAPI_PATH } from "./openapi";
import type { RateLimiter } from "./rate-limit";
import { buildRoutes, type Context, type Route } from "./routes";
import type { Credential } from "./state";

export const API_PREFIX = "/v2";

export interface RouterDeps {
  engine: Engine;
  faults: Faults;
  idempotency: IdempotencyStore;
  limiter: RateLimiter;
  maxBodyBytes: number;
  log: (line: string) => void;
  /** Called when an idempotency record is stored (so that `--state` keeps it). */
  changed: () => void;
  /** Writes the state file now if anything changed (with `--state`); false when it could not be written. Default: nothing to write. */
  persist?: () => boolean;
  /** Told of every answer sent. */
  onAnswer?: (answer: Answer) => void;
}

/** An answer as sent: the request's method and path under /v2 (e.g. `/hedges/hdg_…`), its status and body text. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  body: string;
}

/** A body as JSON, then checked by the client's own request schema: the parsed body and the JSON as sent, or the 400. */
function validateBody(schema: z.ZodMiniType, rawBody: string): { ok: true; body: unknown; json: unknown } | { ok: false; reply: Reply } {
  const parsed = parseJsonBody(rawBody);
  if (!parsed.ok) return parsed;
  const checked = schema.safeParse(parsed.json);
  if (!checked.success) return { ok: false, reply: validationFailure(fieldErrors(checked.error, parsed.json ?? {})) };
  return { ok: true, body: checked.data, json: parsed.json };
}

function matchPath(route: Route, path: string): string[] | null {
  if (typeof route.path === "string") return route.path === path ? [] : null;
  const m = route.path.exec(path);
  if (!m) return null;
  try {
    return m.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    return m.slice(1);
  }
}

export class ApiRouter {
  private readonly fixed = new Map<string, Route[]>();
  private readonly patterned: Route[] = [];
  /** The OpenAPI document's text, served at GET /v2/openapi.json without credentials. */
  private readonly document = JSON.stringify(openApiDocument());

  constructor(private readonly deps: RouterDeps) {
    for (const route of buildRoutes(deps.engine)) {
      if (typeof route.path === "string") this.fixed.set(route.path, [...(this.fixed.get(route.path) ?? []), route]);
      else this.patterned.push(route);
    }
  }

  /** The routes whose path matches (fixed paths win over patterns), with the pattern's decoded groups. */
  private candidates(path: string): Array<[Route, string[]]> {
    const fixed = this.fixed.get(path);
    if (fixed) return fixed.map((r) => [r, []]);
    const out: Array<[Route, string[]]> = [];
    for (const r of this.patterned) {
      const params = matchPath(r, path);
      if (params) out.push([r, params]);
    }
    return out;
  }

  /** Answers one request under /v2; `path` is the part after /v2, `common` the headers every answer carries. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
    common: Record<string, string>,
  ): Promise<void> {
    const reply = await this.process(req, res, path, query, common);
    // A change is answered only once the state file holds it (kill -9 right after the answer loses nothing).
    if (!reply) return;
    const sent = req.method === "GET" || this.persist() ? reply : unsaved();
    send(res, sent, common);
    this.deps.onAnswer?.({ method: req.method ?? "GET", path, status: sent.status, body: sent.body });
  }

  private persist(): boolean {
    return this.deps.persist ? this.deps.persist() : true;
  }

  /** One /v2 request through its phases: route, body, auth, rate limit, latency and injected faults, scope, validation, run. */
  private async process(
    req: IncomingMessage,
    res: ServerResponse,
    rawPath: string,
    query: URLSearchParams,
    common: Record<string, string>,
  ): Promise<Reply | null> {
    const method = req.method ?? "GET";
    const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, "") : rawPath;
    if (path === OPENAPI_PATH) {
      req.resume();
      return method === "GET" ? { status: 200, body: this.document } : methodNotAllowed(`${API_PREFIX}${path}`, method, ["GET"]);
    }
    const found = this.route(req, method, path);
    if ("status" in found) return found;
    const { route, params } = found;

    const rawBody = await this.readRequestBody(req, method);
    if (typeof rawBody !== "string") return rawBody;
    const cred = this.authenticate(req);
    if ("status" in cred) return cred;
    const { acct, apiKey, scopes } = cred;
    common["X-Service-Mode"] = acct.env;
    const limited = this.rateLimit(cred);
    if (limited) return limited;

    const { faults } = this.deps;
    const latency = faults.latencyFor(path);
    if (!route.mutation && latency > 0) await sleep(latency);
    const injected = faults.takeFailure(method, path);
    if (injected) return failure(injected, `Injected fault: ${injected} (sandbox fault API).`, null, SERVICE_ERROR_STATUS[injected]);
    if (!cred.scopes.includes(route.scope)) {
      return failure("insufficient_scope", `This API key lacks the "${route.scope}" scope needed for ${method} ${API_PREFIX}${path}.`, {
        required_scope: route.scope,
      });
    }

    if (!route.bodySchema) return route.run({ acct, apiKey, scopes, query, params, body: undefined, delay: () => Promise.resolve() });
    const checked = validateBody(route.bodySchema, rawBody);
    if (!checked.ok) return checked.reply;
    const ctx = {
      acct,
      apiKey,
      scopes,
      query,
      params,
      body: checked.body,
      delay: () => (latency > 0 ? sleep(latency) : Promise.resolve()),
    };
    return route.mutation ? this.mutate(req, res, route, ctx, path, checked.json) : route.run(ctx);
  }

  /** The route of `method` and `path` with its params; else 405 (the path exists for other methods) or 404. */
  private route(req: IncomingMessage, method: string, path: string): { route: Route; params: string[] } | Reply {
    const allowed: string[] = [];
    for (const [route, params] of this.candidates(path)) {
      if (route.method === method) return { route, params };
      allowed.push(route.method);
    }
    req.resume();
    return allowed.length > 0 ? methodNotAllowed(`${API_PREFIX}${path}`, method, allowed) : notFound(`${API_PREFIX}${path}`, method);
  }

  /** A POST's body as text (413 over the limit); other methods have none. */
  private async readRequestBody(req: IncomingMessage, method: string): Promise<string | Reply> {
    if (method !== "POST") {
      req.resume();
      return "";
    }
    const body = await readBody(req, this.deps.maxBodyBytes);
    if (body.ok) return body.text;
    return validationFailure({ "(root)": `body is larger than ${this.deps.maxBodyBytes} bytes` }, undefined, 413, { Connection: "close" });
  }

  /** The caller's key and account from `Authorization: Bearer <key>`, or 401. */
  private authenticate(req: IncomingMessage): Credential | Reply {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === "") {
      return failure("missing_credentials", "No Authorization header: send Authorization: Bearer <API key>.", null, undefined, {
        "WWW-Authenticate": 'Bearer realm="hedging-service"',
      });
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const cred = m ? this.deps.engine.credential(m[1]) : undefined;
    if (cred && !cred.revoked) return cred;
    return failure(
      "invalid_api_key",
      m ? "The API key is unknown or revoked." : "The Authorization header must be Bearer <API key>.",
      null,
      undefined,
      { "WWW-Authenticate": 'Bearer realm="hedging-service", error="invalid_token"' },
    );
  }

  /** Forced 429s first (fault), then the account's token bucket; null when the request may go on. */
  private rateLimit({ acct, apiKey }: Credential): Reply | null {
    const forced = this.deps.faults.takeForcedRateLimit();
    const decision =
      forced !== null
        ? { ok: false as const, retryAfterSeconds: forced }
        : this.deps.limiter.take(apiKey, acct.config.rate_limit_per_second ?? DEFAULT_RATE_LIMIT_PER_SECOND);
    if (decision.ok) return null;
    return failure(
      "rate_limited",
      `Too many requests for this API key; retry after ${decision.retryAfterSeconds} s.`,
      { retry_after_seconds: decision.retryAfterSeconds },
      undefined,
      { "Retry-After": String(decision.retryAfterSeconds) },
    );
  }

  /** A state-changing call: claims its Idempotency-Key, runs, stores the answer, and may drop the connection (fault). */
  private async mutate(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    ctx: Context,
    path: string,
    json: unknown,
  ): Promise<Reply | null> {
    const { idempotency, faults } = this.deps;
    const rawKey = req.headers["idempotency-key"];
    const key = Array.isArray(rawKey) ? rawKey[0] : rawKey;
    // Keys are scoped per environment, and within it per account: every key of an account shares them (README "Service assumptions").
    const scope = idempotencyScope(ctx.acct);
    if (key !== undefined) {
      if (key.trim() === "" || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        return validationFailure({ "Idempotency-Key": `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` });
      }
      const claim = idempotency.claim(scope, key, fingerprintOf("POST", path, json));
      if (claim.kind === "replay") return { ...claim.response, headers: { "Idempotent-Replayed": "true" } };
      if (claim.kind === "reuse") {
        return failure(
          "idempotency_key_reuse",
          "This Idempotency-Key was already used with a different request; use a new key for a new action.",
        );
      }
      if (claim.kind === "in_flight") {
        return failure(
          "idempotency_in_flight",
          "A request with this Idempotency-Key is still being processed; retry shortly with the same key.",
        );
      }
    }
    let reply: Reply;
    try {
      reply = await route.run(ctx);
    } catch (e) {
      if (key !== undefined) idempotency.release(scope, key);
      throw e;
    }
    if (key !== undefined) {
      if (reply.status < 500) {
        idempotency.complete(scope, key, { status: reply.status, body: reply.body });
        this.deps.changed();
      } else idempotency.release(scope, key);
    }
    if (reply.status < 300 && faults.takeDrop()) {
      // The action is committed (written, and its answer stored for a replay), but the caller never hears about it.
      this.persist();
      this.deps.log(`fault: dropped the answer of POST ${API_PREFIX}${path} after commit`);
      res.socket?.destroy();
      return null;
    }
    return reply;
  }
}
