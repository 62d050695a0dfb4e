// The /v2 API's map: each route (method, path, scope, body schema) and what it asks the engine, grouped by resource: markets and quotes, the account, reading hedges, trading.
import type * as z from "zod/mini";
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
import type { Engine } from "./engine";
import { failure, failureOf, success, validationFailure, type Reply } from "./http-io";
import { ok, type AccountState, type Outcome } from "./state";

type Scope = "read" | "trade";

export interface Context {
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

export interface Route {
  method: "GET" | "POST";
  /** A fixed path, or a pattern whose groups become `params`. */
  path: string | RegExp;
  scope: Scope;
  /** State-changing: Idempotency-Key, trade scope, drop-after-commit. */
  mutation?: boolean;
  bodySchema?: z.ZodMiniType;
  run: (ctx: Context) => Reply | Promise<Reply>;
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

/** GET /markets, GET /prices, POST /quotes. */
function marketRoutes(engine: Engine): Route[] {
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
      method: "POST",
      path: "/quotes",
      scope: "read",
      bodySchema: quoteRequestSchema,
      run: ({ acct, body }) => replyOf(engine.quote(acct, body as z.output<typeof quoteRequestSchema>), { source: engine.source(acct) }),
    },
  ];
}

/** GET /account, GET /positions. */
function accountRoutes(engine: Engine): Route[] {
  return [
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
  ];
}

/** GET /hedges/history, GET /hedges, GET /hedges/{id}. */
function hedgeReadRoutes(engine: Engine): Route[] {
  return [
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
    {
      method: "GET",
      path: /^\/hedges\/([^/]+)$/,
      scope: "read",
      run: ({ acct, params }) => replyOf(engine.getHedge(acct, params[0])),
    },
  ];
}

/** A state-changing POST: trade scope, its body checked by `bodySchema`, its outcome the reply. */
function mutation<S extends z.ZodMiniType>(
  path: string | RegExp,
  bodySchema: S,
  run: (ctx: Context, body: z.output<S>) => Promise<Outcome<unknown>>,
): Route {
  return {
    method: "POST",
    path,
    scope: "trade",
    mutation: true,
    bodySchema,
    run: async (ctx) => replyOf(await run(ctx, ctx.body as z.output<S>)),
  };
}

/** POST /hedges (open), /hedges/add, /hedges/decrease, /hedges/close, /hedges/{id}/add. */
function tradeRoutes(engine: Engine): Route[] {
  return [
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
  ];
}

/** Every /v2 route. A path served by two methods lists its GET first (405's Allow header names them in this order). */
export function buildRoutes(engine: Engine): Route[] {
  return [...marketRoutes(engine), ...accountRoutes(engine), ...hedgeReadRoutes(engine), ...tradeRoutes(engine)];
}
