// The /v2 API: routing, auth, rate limit, injected faults, scope, body validation with the client's zod schemas, idempotency.
import type { IncomingMessage, ServerResponse } from "node:http";
import type * as z from "zod/mini";
import { SERVICE_ERROR_STATUS } from "../api/errors";
import {
  addByIdRequestSchema,
  addRequestSchema,
  closeRequestSchema,
  decreaseRequestSchema,
  fieldErrors,
  historyQuerySchema,
  listQuerySchema,
  openRequestSchema,
  quoteRequestSchema,
} from "../api/schemas";
import { DEFAULT_RATE_LIMIT_PER_SECOND } from "./accounts";
import type { Engine } from "./engine";
import type { Faults } from "./faults";
import {
  failure,
  failureOf,
  methodNotAllowed,
  notFound,
  parseJsonBody,
  readBody,
  send,
  sleep,
  success,
  unsaved,
  validationFailure,
  type Reply,
} from "./http-io";
import { fingerprintOf, idempotencyScope, MAX_IDEMPOTENCY_KEY_LENGTH, type IdempotencyStore } from "./idempotency";
import { openApiDocument, OPENAPI_PATH } from "./openapi";
import type { RateLimiter } from "./rate-limit";
import { ok, type AccountState, type Credential, type Outcome } from "./state";

export const API_PREFIX = "/v2";

type Scope = "read" | "trade";

interface Context {
  acct: AccountState;
  /** The key the request came with (rate limits are per key; idempotency keys per account). */
  apiKey: string;
  /** That key's own scopes (GET /account shows them as `meta.key_scopes`). */
  scopes: readonly string[];
  query: URLSearchParams;
  params: string[];
  body: unknown;
  /** Waits for the injected latency; a state-changing route calls it while its Idempotency-Key is in flight. */
  delay: () => Promise<void>;
}

interface Route {
  method: "GET" | "POST";
  /** A fixed path, or a pattern whose groups become `params`. */
  path: string | RegExp;
  scope: Scope;
  /** State-changing: Idempotency-Key, trade scope, drop-after-commit. */
  mutation?: boolean;
  bodySchema?: z.ZodMiniType;
  run: (ctx: Context) => Reply | Promise<Reply>;
}

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

function replyOf<T>(outcome: Outcome<T>, meta: Record<string, unknown> = {}): Reply {
  return outcome.ok ? success(outcome.data, meta) : failureOf(outcome.error);
}

/** Query values as the zod query schemas expect them: numbers for numeric strings. */
function queryObject(query: URLSearchParams, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = query.get(name);
    if (value === null) continue;
    out[name] = name === "limit" && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  }
  return out;
}

function parseQuery<S extends z.ZodMiniType>(schema: S, query: URLSearchParams, names: string[]): Outcome<z.output<S>> {
  const input = queryObject(query, names);
  const parsed = schema.safeParse(input);
  if (parsed.success) return ok(parsed.data);
  const fields = fieldErrors(parsed.error, input);
  return {
    ok: false,
    error: {
      code: "validation_error",
      message: `Invalid query: ${Object.entries(fields)
        .map(([f, p]) => `${f} ${p}`)
        .join("; ")}.`,
      details: { fields },
    },
  };
}

/** `?account=` names an account; anything but the caller's own address is 403 account_forbidden. */
function accountParamCheck(ctx: Context): Reply | null {
  const asked = ctx.query.get("account");
  if (asked === null) return null;
  const own = ctx.acct.config.account_address;
  if (own && asked.toLowerCase() === own.toLowerCase()) return null;
  return failure("account_forbidden", "The requested account is not the caller's.");
}

// Over 80 lines as one flat table: the API's whole map in one place, each entry a few lines; splitting it would scatter it.
export function buildRoutes(engine: Engine): Route[] {
  const mutation = <S extends z.ZodMiniType>(
    path: string | RegExp,
    bodySchema: S,
    run: (ctx: Context, body: z.output<S>) => Promise<Outcome<unknown>>,
  ): Route => ({
    method: "POST",
    path,
    scope: "trade",
    mutation: true,
    bodySchema,
    run: async (ctx) => replyOf(await run(ctx, ctx.body as z.output<S>)),
  });

  return [
    {
      method: "GET",
      path: "/markets",
      scope: "read",
      run: ({ acct }) => {
        const { data, meta } = engine.marketList(acct);
        return success(data, meta);
      },
    },
    {
      method: "GET",
      path: "/prices",
      scope: "read",
      run: ({ acct, query }) => {
        const values = query.getAll("market");
        let symbols: string[] | null = null;
        if (values.length > 0) {
          symbols = values
            .flatMap((v) => v.split(","))
            .map((s) => s.trim())
            .filter((s) => s !== "");
          if (symbols.length === 0) return validationFailure({ market: "must be a market symbol such as USDTNGN" });
        }
        const result = engine.prices(acct, symbols);
        return result.ok ? success(result.data.data, result.data.meta) : failureOf(result.error);
      },
    },
    {
      method: "GET",
      path: "/account",
      scope: "read",
      run: (ctx) =>
        accountParamCheck(ctx) ?? success(engine.account(ctx.acct), { source: engine.source(ctx.acct), key_scopes: [...ctx.scopes] }),
    },
    {
      method: "GET",
      path: "/positions",
      scope: "read",
      run: (ctx) => accountParamCheck(ctx) ?? success(engine.positions(ctx.acct), { source: engine.source(ctx.acct) }),
    },
    {
      method: "POST",
      path: "/quotes",
      scope: "read",
      bodySchema: quoteRequestSchema,
      run: ({ acct, body }) => replyOf(engine.quote(acct, body as z.output<typeof quoteRequestSchema>), { source: engine.source(acct) }),
    },
    {
      method: "GET",
      path: "/hedges/history",
      scope: "read",
      run: ({ acct, query }) => {
        const q = parseQuery(historyQuerySchema, query, ["from", "to", "limit"]);
        return q.ok ? success(engine.history(acct, q.data)) : failureOf(q.error);
      },
    },
    {
      method: "GET",
      path: "/hedges",
      scope: "read",
      run: ({ acct, query }) => {
        const q = parseQuery(listQuerySchema, query, ["status", "client_reference", "limit", "starting_after"]);
        return q.ok ? success(engine.listHedges(acct, q.data)) : failureOf(q.error);
      },
    },
    mutation("/hedges", openRequestSchema, async (ctx, body) => {
      const ticket = engine.beginOpen(ctx.acct, body);
      if (!ticket.ok) return ticket;
      await ctx.delay(); // the hedge is `submitting` meanwhile
      return ok(engine.submitOpen(ticket.data));
    }),
    mutation("/hedges/add", addRequestSchema, async (ctx, body) => {
      await ctx.delay();
      return engine.add(ctx.acct, body);
    }),
    mutation("/hedges/decrease", decreaseRequestSchema, async (ctx, body) => {
      await ctx.delay();
      return engine.decrease(ctx.acct, body);
    }),
    mutation("/hedges/close", closeRequestSchema, async (ctx, body) => {
      await ctx.delay();
      return engine.close(ctx.acct, body);
    }),
    mutation(/^\/hedges\/([^/]+)\/add$/, addByIdRequestSchema, async (ctx, body) => {
      await ctx.delay();
      return engine.addById(ctx.acct, ctx.params[0], body);
    }),
    {
      method: "GET",
      path: /^\/hedges\/([^/]+)$/,
      scope: "read",
      run: ({ acct, params }) => replyOf(engine.getHedge(acct, params[0])),
    },
  ];
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
