// The control API under /_sandbox/ (loopback callers, loopback Host names and Origins, JSON bodies only; the control token for keys and state): faults, clock, reset, state, accounts, health.
import type { IncomingMessage } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { fieldErrors } from "../api/schemas";
import { maskKey } from "../api/environment";
import { accountConfigSchema, environmentOfKey, keyConfigSchema, type KeyConfig } from "./accounts";
import { DAY_MS, iso, type SandboxClock } from "./clock";
import type { Engine } from "./engine";
import { stateDump } from "./state-dump";
import { faultPatchSchema, type Faults } from "./faults";
import {
  failure,
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackOrigin,
  methodNotAllowed,
  notFound,
  parseJsonBody,
  readBody,
  success,
  validationFailure,
  type Reply,
} from "./http-io";
import type { IdempotencyStore } from "./idempotency";

export const CONTROL_PREFIX = "/_sandbox";

/** Each control path and the methods it takes (for 405's Allow). */
const CONTROL_METHODS: Record<string, string[]> = {
  "/health": ["GET"],
  "/faults": ["GET", "POST", "DELETE"],
  "/faults/clear": ["POST"],
  "/clock": ["GET", "POST"],
  "/reset": ["POST"],
  "/state": ["GET"],
  "/accounts": ["GET", "POST"],
  "/accounts/keys": ["POST"],
};

/** The body of POST /_sandbox/accounts/keys: an existing key of the account, and the new key with its scopes. */
export const addKeySchema = keyConfigSchema.extend({ account_key: z.string().min(1, "must be a key of the account") }).strict();

/** The furthest one POST /_sandbox/clock may move the clock: ten years (a hedge lives at most 7 days). */
export const MAX_CLOCK_ADVANCE_DAYS = 3650;

const advanceMs = (b: { advance_ms?: number; advance_seconds?: number; advance_hours?: number; advance_days?: number }) =>
  (b.advance_ms ?? 0) + (b.advance_seconds ?? 0) * 1000 + (b.advance_hours ?? 0) * 3_600_000 + (b.advance_days ?? 0) * DAY_MS;

export const clockAdvanceSchema = z
  .object({
    advance_ms: z.number().finite().min(0).optional(),
    advance_seconds: z.number().finite().min(0).optional(),
    advance_hours: z.number().finite().min(0).optional(),
    advance_days: z.number().finite().min(0).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "give advance_ms, advance_seconds, advance_hours or advance_days" })
  .refine((b) => advanceMs(b) <= MAX_CLOCK_ADVANCE_DAYS * DAY_MS, {
    message: `may move the clock at most ${MAX_CLOCK_ADVANCE_DAYS} days at once`,
  });

/** The header carrying the control token (printed when the sandbox starts; RunningSandbox.controlToken). */
export const CONTROL_TOKEN_HEADER = "X-Sandbox-Token";

/**
 * The calls that show or make keys: they need the control token as well, so that another local user, or a page of this
 * machine (any localhost port), cannot read the keys or mint a trading key. The rest (faults, clock, reset, health)
 * change the emulation only.
 */
export const TOKEN_ROUTES: readonly string[] = ["GET /state", "GET /accounts", "POST /accounts", "POST /accounts/keys"];

export interface ControlDeps {
  /** The control token TOKEN_ROUTES need. */
  token: string;
  engine: Engine;
  clock: SandboxClock;
  faults: Faults;
  idempotency: IdempotencyStore;
  baseUrl: () => string;
  reset: () => void;
  changed: () => void;
  maxBodyBytes: number;
}

function clockView(clock: SandboxClock): Record<string, unknown> {
  const now = clock.now();
  return { now: iso(now), now_ms: now, offset_ms: clock.offsetMs };
}

async function jsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ ok: true; json: unknown; text: string } | { ok: false; reply: Reply }> {
  const body = await readBody(req, limit);
  if (!body.ok)
    return {
      ok: false,
      reply: validationFailure({ "(root)": `body is larger than ${limit} bytes` }, undefined, 413, { Connection: "close" }),
    };
  const parsed = parseJsonBody(body.text);
  return parsed.ok ? { ok: true, json: parsed.json ?? {}, text: body.text } : parsed;
}

/** The request carries the control token (compared in constant time). */
function tokenGiven(req: IncomingMessage, token: string): boolean {
  const given = req.headers[CONTROL_TOKEN_HEADER.toLowerCase()];
  if (typeof given !== "string" || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

/** A key as the control API shows it: in full for the documented demo keys, masked otherwise. */
const shownKey = (apiKey: string, demo: boolean | undefined) => (demo ? apiKey : maskKey(apiKey));

/**
 * Why this request may not use the control API, or null. Loopback callers only; a Host that is a loopback name (so a
 * page on a rebound DNS name cannot read it); an Origin, when a browser sends one, of this machine (so no web page can
 * inject faults or reset the state); bodies in JSON only (a page's "simple" text/plain or form POST is refused).
 */
function refusal(req: IncomingMessage): Reply | null {
  if (!isLoopbackAddress(req.socket.remoteAddress))
    return failure("insufficient_scope", "The sandbox control API answers loopback callers only.");
  if (!isLoopbackHost(req.headers.host))
    return failure(
      "insufficient_scope",
      `The sandbox control API answers only requests addressed to localhost, 127.0.0.1 or [::1]; Host "${req.headers.host ?? ""}" is not one of them.`,
    );
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin))
    return failure("insufficient_scope", `The sandbox control API answers pages of this machine only; Origin ${origin} is not one.`);
  const type = req.headers["content-type"];
  const method = req.method ?? "GET";
  if (method !== "GET" && type !== undefined && !/^application\/json\s*(;|$)/i.test(type))
    return validationFailure(
      { "Content-Type": "must be application/json" },
      `The sandbox control API takes JSON bodies only (Content-Type: application/json); got ${type}.`,
      415,
    );
  return null;
}

/** A POST body in JSON (415 without Content-Type, 413 over the limit), checked by `schema`, then `run` on it. */
async function withJsonBody<S extends z.ZodType>(
  req: IncomingMessage,
  limit: number,
  schema: S,
  run: (body: z.output<S>) => Reply,
): Promise<Reply> {
  const body = await jsonBody(req, limit);
  if (body.ok && req.headers["content-type"] === undefined && body.text.trim() !== "")
    return validationFailure({ "Content-Type": "must be application/json" }, "A body needs Content-Type: application/json.", 415);
  if (!body.ok) return body.reply;
  const parsed = schema.safeParse(body.json);
  return parsed.success ? run(parsed.data) : validationFailure(fieldErrors(parsed.error, body.json));
}

/** The accounts as a person reads them: demo keys in full, every other key masked. */
function accountList(engine: Engine): unknown[] {
  return engine.allAccounts().map((a) => ({
    api_key: shownKey(a.config.api_key, a.config.demo),
    environment: a.env,
    label: a.config.label ?? null,
    account_address: a.config.account_address,
    scopes: a.config.scopes,
    revoked: a.config.revoked ?? false,
    allowed_markets: a.config.allowed_markets,
    keys: (a.config.keys ?? []).map((k) => ({ api_key: shownKey(k.api_key, k.demo), scopes: k.scopes, revoked: k.revoked ?? false })),
  }));
}

/** POST /_sandbox/accounts/keys: 201, 404 for an unknown account key, 409 for a key in use, 400 for another environment's key. */
function addKey(engine: Engine, accountKey: string, key: KeyConfig): Reply {
  switch (engine.addKey(accountKey, key)) {
    case "added":
      return success({ api_key: shownKey(key.api_key, key.demo), environment: environmentOfKey(key.api_key), scopes: key.scopes }, {}, 201);
    case "no_account":
      return failure("not_found", "No account has the key given as account_key.", { account_key: maskKey(accountKey) });
    case "exists":
      return validationFailure({ api_key: "already exists" }, undefined, 409);
    case "other_environment":
      return validationFailure({ api_key: "must be of the same environment (svc_test_ or svc_live_) as the account" });
  }
}

export async function handleControl(req: IncomingMessage, path: string, deps: ControlDeps): Promise<Reply> {
  const refused = refusal(req);
  if (refused) {
    req.resume();
    return refused;
  }
  const method = req.method ?? "GET";
  const route = `${method} ${path.replace(/\/+$/, "") || "/"}`;
  const { engine, clock, faults } = deps;

  if (TOKEN_ROUTES.includes(route) && !tokenGiven(req, deps.token)) {
    req.resume();
    return failure(
      "invalid_api_key",
      `${route.replace(" ", ` ${CONTROL_PREFIX}`)} shows or makes keys: send the sandbox's control token, printed when it started, in the ${CONTROL_TOKEN_HEADER} header.`,
    );
  }
  const withBody = <S extends z.ZodType>(schema: S, run: (body: z.output<S>) => Reply) => withJsonBody(req, deps.maxBodyBytes, schema, run);

  if (method !== "POST") req.resume();
  switch (route) {
    case "GET /health":
      return success({ status: "ok", base_url: deps.baseUrl(), ...clockView(clock) });
    case "GET /faults":
      return success(faults.view());
    case "POST /faults":
      return withBody(faultPatchSchema, (patch) => {
        faults.apply(patch);
        deps.changed();
        return success(faults.view());
      });
    case "DELETE /faults":
    case "POST /faults/clear":
      if (method === "POST") req.resume();
      faults.clear();
      deps.changed();
      return success(faults.view());
    case "GET /clock":
      return success(clockView(clock));
    case "POST /clock":
      return withBody(clockAdvanceSchema, (b) => {
        const ms = advanceMs(b);
        clock.advance(Math.round(ms));
        deps.changed();
        return success({ ...clockView(clock), advanced_ms: Math.round(ms) });
      });
    case "POST /reset":
      req.resume();
      deps.reset();
      return success({ status: "reset", ...clockView(clock) });
    case "GET /state":
      // The tests' dump of the internals keeps keys whole (tests find their accounts by key), like the --state file;
      // the Host and Origin checks above keep it from pages. The account list a person reads masks them.
      return success({ ...stateDump(engine), clock: clockView(clock), faults: faults.view(), idempotency_keys: deps.idempotency.size });
    case "GET /accounts":
      return success(accountList(engine));
    case "POST /accounts":
      return withBody(accountConfigSchema, (config) => {
        if (!engine.addAccount(config)) return validationFailure({ api_key: "already exists" }, undefined, 409);
        return success({ api_key: config.api_key, environment: environmentOfKey(config.api_key) }, {}, 201);
      });
    case "POST /accounts/keys":
      return withBody(addKeySchema, ({ account_key, ...key }) => addKey(engine, account_key, key));
    default: {
      const known = Object.keys(CONTROL_METHODS);
      const p = path.replace(/\/+$/, "");
      if (known.includes(p)) return methodNotAllowed(`${CONTROL_PREFIX}${p}`, method, CONTROL_METHODS[p] ?? []);
      return notFound(`${CONTROL_PREFIX}${path}`, method);
    }
  }
}
