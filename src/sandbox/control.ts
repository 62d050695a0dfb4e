// The control API under /_sandbox/ (loopback callers only, no auth): faults, clock, reset, state, accounts, health.
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { fieldErrors } from "../api/schemas";
import { accountConfigSchema, environmentOfKey } from "./accounts";
import { DAY_MS, iso, type SandboxClock } from "./clock";
import type { Engine } from "./engine";
import { faultPatchSchema, type Faults } from "./faults";
import { failure, isLoopbackAddress, readBody, success, validationFailure, type Reply } from "./http-io";
import type { IdempotencyStore } from "./idempotency";

export const CONTROL_PREFIX = "/_sandbox";

export const clockAdvanceSchema = z
  .object({
    advance_ms: z.number().finite().min(0).optional(),
    advance_seconds: z.number().finite().min(0).optional(),
    advance_hours: z.number().finite().min(0).optional(),
    advance_days: z.number().finite().min(0).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "give advance_ms, advance_seconds, advance_hours or advance_days" });

export interface ControlDeps {
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

async function jsonBody(req: IncomingMessage, limit: number): Promise<{ ok: true; json: unknown } | { ok: false; reply: Reply }> {
  const body = await readBody(req, limit);
  if (!body.ok)
    return {
      ok: false,
      reply: validationFailure({ "(root)": `body is larger than ${limit} bytes` }, undefined, 413, { Connection: "close" }),
    };
  if (body.text.trim() === "") return { ok: true, json: {} };
  try {
    return { ok: true, json: JSON.parse(body.text) };
  } catch (e) {
    return { ok: false, reply: validationFailure({ "(root)": `body is not valid JSON (${(e as Error).message})` }) };
  }
}

export async function handleControl(req: IncomingMessage, path: string, deps: ControlDeps): Promise<Reply> {
  if (!isLoopbackAddress(req.socket.remoteAddress)) {
    req.resume();
    return failure("insufficient_scope", "The sandbox control API answers loopback callers only.");
  }
  const method = req.method ?? "GET";
  const route = `${method} ${path.replace(/\/+$/, "") || "/"}`;
  const { engine, clock, faults } = deps;

  const withBody = async <S extends z.ZodType>(schema: S, run: (body: z.output<S>) => Reply): Promise<Reply> => {
    const body = await jsonBody(req, deps.maxBodyBytes);
    if (!body.ok) return body.reply;
    const parsed = schema.safeParse(body.json);
    return parsed.success ? run(parsed.data) : validationFailure(fieldErrors(parsed.error, body.json));
  };

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
        const ms =
          (b.advance_ms ?? 0) + (b.advance_seconds ?? 0) * 1000 + (b.advance_hours ?? 0) * 3_600_000 + (b.advance_days ?? 0) * DAY_MS;
        clock.advance(Math.round(ms));
        deps.changed();
        return success({ ...clockView(clock), advanced_ms: Math.round(ms) });
      });
    case "POST /reset":
      req.resume();
      deps.reset();
      return success({ status: "reset", ...clockView(clock) });
    case "GET /state":
      return success({ ...engine.inspect(), clock: clockView(clock), faults: faults.view(), idempotency_keys: deps.idempotency.size });
    case "GET /accounts":
      return success(
        engine.allAccounts().map((a) => ({
          api_key: a.config.api_key,
          environment: a.env,
          label: a.config.label ?? null,
          account_address: a.config.account_address,
          scopes: a.config.scopes,
          revoked: a.config.revoked ?? false,
          allowed_markets: a.config.allowed_markets,
        })),
      );
    case "POST /accounts":
      return withBody(accountConfigSchema, (config) => {
        if (!engine.addAccount(config)) return validationFailure({ api_key: "already exists" }, undefined, 409);
        return success({ api_key: config.api_key, environment: environmentOfKey(config.api_key) }, {}, 201);
      });
    default: {
      const known = ["/health", "/faults", "/faults/clear", "/clock", "/reset", "/state", "/accounts"];
      const p = path.replace(/\/+$/, "");
      if (known.includes(p)) return validationFailure({ method: `${method} is not supported on ${CONTROL_PREFIX}${p}` }, undefined, 405);
      return validationFailure(
        { path: `${CONTROL_PREFIX}${path} is not a control endpoint` },
        `No control endpoint ${method} ${CONTROL_PREFIX}${path}.`,
        404,
      );
    }
  }
}
