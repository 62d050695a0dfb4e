// The OpenAPI 3.1 document of /v2 that `GET /v2/openapi.json` serves, generated from the client's zod schemas (z.toJSONSchema) and the sandbox's routing and error codes.
import * as z from "zod/mini";
import { SERVICE_ERROR_STATUS } from "../api/errors";
import {
  accountSchema,
  addByIdRequestSchema,
  answerSideSchema,
  addRequestSchema,
  addResultSchema,
  closedHedgeSchema,
  closeRequestSchema,
  closeResultSchema,
  decreaseRequestSchema,
  decreaseResultSchema,
  errorObjectSchema,
  hedgeSchema,
  historyQuerySchema,
  listQuerySchema,
  marketSchema,
  openHedgeResultSchema,
  openRequestSchema,
  positionSchema,
  priceEntrySchema,
  quoteRequestSchema,
  quoteSchema,
  settlementDateSchema,
  SIDES,
  timestampSchema,
} from "../api/schemas";
import { ROUTING_ERROR_STATUS, type SandboxErrorCode } from "./http-io";
import { FILL_FIELDS } from "./views";

type Json = Record<string, unknown>;

export const OPENAPI_PATH = "/openapi.json";

/** The resources and request bodies, by component name. */
const COMPONENTS: Record<string, z.ZodMiniType> = {
  Hedge: hedgeSchema,
  Quote: quoteSchema,
  OpenHedgeResult: openHedgeResultSchema,
  AddResult: addResultSchema,
  DecreaseResult: decreaseResultSchema,
  CloseResult: closeResultSchema,
  Position: positionSchema,
  ClosedHedge: closedHedgeSchema,
  Account: accountSchema,
  Market: marketSchema,
  PriceEntry: priceEntrySchema,
  Error: errorObjectSchema,
  QuoteRequest: quoteRequestSchema,
  OpenRequest: openRequestSchema,
  AddRequest: addRequestSchema,
  AddByIdRequest: addByIdRequestSchema,
  DecreaseRequest: decreaseRequestSchema,
  CloseRequest: closeRequestSchema,
};

const bare = (schema: z.ZodMiniType): Json => {
  const { $schema: _, ...out } = z.toJSONSchema(schema) as Json;
  return out;
};
/**
 * What the sandbox sends where the client reads more (see README "Service assumptions"): a side is buy or sell, a time
 * is ISO 8601 with seconds and an offset (the client also reads a date alone as a settlement date, no seconds, the basic
 * format, and keeps an unknown side as text).
 */
const SENT_FORM = new Map<unknown, Json>([
  [answerSideSchema, bare(z.enum(SIDES))],
  [timestampSchema, bare(z.iso.datetime({ offset: true }))],
  [settlementDateSchema, bare(z.iso.datetime({ offset: true }))],
]);

/**
 * One schema as JSON Schema 2020-12, as the service sends it. The client's schemas are tolerant: they also read a number
 * sent as a decimal string; the document says what is sent, a number (`anyOf [number, numeric string]` becomes `number`).
 */
function jsonSchema(schema: z.ZodMiniType): Json {
  const { $schema: _, ...out } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const sent = SENT_FORM.get(zodSchema);
      if (!sent) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
      Object.assign(jsonSchema, sent);
    },
  }) as Json;
  return narrowNumbers(out) as Json;
}

function narrowNumbers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(narrowNumbers);
  if (node === null || typeof node !== "object") return node;
  const o = node as Json;
  const any = o.anyOf as Json[] | undefined;
  if (any?.length === 2 && any[0].type === "number" && any[1].type === "string" && typeof any[1].pattern === "string") {
    const { anyOf: _, ...rest } = o;
    return { ...rest, type: "number" };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, narrowNumbers(v)]));
}

/** A property that may be absent but is never null (the fields of a hedge present only once filled). */
function notNull(property: Json): Json {
  if (Array.isArray(property.type)) {
    const types = (property.type as string[]).filter((t) => t !== "null");
    return { ...property, type: types.length === 1 ? types[0] : types };
  }
  if (Array.isArray(property.anyOf)) {
    const rest = (property.anyOf as Json[]).filter((s) => s.type !== "null");
    return rest.length === 1 ? rest[0] : { ...property, anyOf: rest };
  }
  return property;
}

function components(): Json {
  const schemas: Json = {};
  for (const [name, schema] of Object.entries(COMPONENTS)) schemas[name] = jsonSchema(schema);
  const hedge = schemas.Hedge as { properties: Json };
  for (const field of [...FILL_FIELDS, "order_tx_hash"]) hedge.properties[field] = notNull(hedge.properties[field] as Json);
  schemas.Prices = { type: "object", additionalProperties: ref("PriceEntry") };
  return schemas;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

const ALL_STATUS: Record<SandboxErrorCode, number> = { ...SERVICE_ERROR_STATUS, ...ROUTING_ERROR_STATUS };

/** Codes any /v2 call may get: bad input, credentials, scope, rate limit, and the transient 5xx (injected faults give any). */
const COMMON_CODES: SandboxErrorCode[] = [
  "validation_error",
  "missing_credentials",
  "invalid_api_key",
  "insufficient_scope",
  "rate_limited",
  "quote_failed",
  "execution_failed",
  "onchain_read_failed",
  "price_unavailable",
  "executor_unavailable",
  "service_unavailable",
];
const TRADE_CODES: SandboxErrorCode[] = [
  "market_not_allowed",
  "exposure_exceeded",
  "insufficient_collateral",
  "account_not_configured",
  "idempotency_in_flight",
  "idempotency_key_reuse",
];

/** The error envelope of one status, `code` one of `codes`. */
function errorEnvelope(codes: SandboxErrorCode[], description: string): Json {
  return {
    description,
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["data", "error", "meta"],
          properties: {
            data: { type: "null" },
            error: { ...ref("Error"), properties: { code: { enum: codes } } },
            meta: { type: "object" },
          },
        },
      },
    },
  };
}

/** The error answers of an operation: one per status, each listing its codes; 413 on calls with a body. */
function errorResponses(codes: SandboxErrorCode[], hasBody: boolean): Json {
  const byStatus = new Map<number, SandboxErrorCode[]>();
  for (const code of new Set([...COMMON_CODES, ...codes]))
    byStatus.set(ALL_STATUS[code], [...(byStatus.get(ALL_STATUS[code]) ?? []), code]);
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) out[String(status)] = errorEnvelope(list, list.join(", "));
  if (hasBody) out["413"] = errorEnvelope(["validation_error"], "validation_error: the body is larger than the sandbox takes");
  return out;
}

function successEnvelope(data: Json, meta: Json = { type: "object" }): Json {
  return {
    description: "success",
    content: {
      "application/json": {
        schema: { type: "object", required: ["data", "error", "meta"], properties: { data, error: { type: "null" }, meta } },
      },
    },
  };
}

interface Operation {
  method: "get" | "post";
  path: string;
  summary: string;
  scope: "read" | "trade";
  data: Json;
  meta?: Json;
  body?: string;
  query?: z.ZodMiniObject | Json[];
  codes?: SandboxErrorCode[];
}

const sourceMeta = { type: "object", properties: { source: { type: "string", enum: ["sandbox", "production"] } }, required: ["source"] };
const allowedMeta = (extra: Json = {}) => ({
  type: "object",
  properties: { allowed_markets: { type: "array", items: { type: "string" } }, ...extra },
  required: ["allowed_markets", ...Object.keys(extra)],
});
const accountParam = { name: "account", in: "query", required: false, schema: { type: "string" }, description: "the caller's own address" };
const hedgeIdParam = { name: "hedge_id", in: "path", required: true, schema: { type: "string" } };

const OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/markets",
    summary: "Markets, capacity and carry",
    scope: "read",
    data: { type: "array", items: ref("Market") },
    meta: allowedMeta({ source: { type: "string" } }),
  },
  {
    method: "get",
    path: "/prices",
    summary: "Latest mid rates",
    scope: "read",
    data: ref("Prices"),
    meta: allowedMeta({ rejected: { type: "array" } }),
    query: [{ name: "market", in: "query", required: false, schema: { type: "string" }, description: "symbols, comma-separated" }],
  },
  {
    method: "get",
    path: "/account",
    summary: "Account summary",
    scope: "read",
    data: ref("Account"),
    meta: {
      type: "object",
      properties: {
        ...sourceMeta.properties,
        key_scopes: { type: "array", items: { type: "string", enum: ["read", "trade"] }, description: "the scopes of the key that asked" },
      },
      required: ["source", "key_scopes"],
    },
    query: [accountParam],
    codes: ["account_forbidden"],
  },
  {
    method: "get",
    path: "/positions",
    summary: "Positions, one line per side",
    scope: "read",
    data: { type: "array", items: ref("Position") },
    meta: sourceMeta,
    query: [accountParam],
    codes: ["account_forbidden"],
  },
  {
    method: "post",
    path: "/quotes",
    summary: "Indicative quote",
    scope: "read",
    data: ref("Quote"),
    meta: sourceMeta,
    body: "QuoteRequest",
    codes: ["market_not_allowed"],
  },
  {
    method: "get",
    path: "/hedges",
    summary: "Hedges, newest first",
    scope: "read",
    data: { type: "array", items: ref("Hedge") },
    query: listQuerySchema,
  },
  {
    method: "post",
    path: "/hedges",
    summary: "Open a hedge",
    scope: "trade",
    data: ref("OpenHedgeResult"),
    body: "OpenRequest",
    codes: [...TRADE_CODES, "account_forbidden", "hedge_exists"],
  },
  {
    method: "post",
    path: "/hedges/add",
    summary: "Grow the open hedge of a market and side",
    scope: "trade",
    data: ref("AddResult"),
    body: "AddRequest",
    codes: [...TRADE_CODES, "no_open_hedge"],
  },
  {
    method: "post",
    path: "/hedges/{hedge_id}/add",
    summary: "Grow a hedge by id",
    scope: "trade",
    data: ref("AddResult"),
    body: "AddByIdRequest",
    query: [hedgeIdParam],
    codes: [...TRADE_CODES, "hedge_not_found", "hedge_not_open"],
  },
  {
    method: "post",
    path: "/hedges/decrease",
    summary: "Reduce the open hedge of a market and side",
    scope: "trade",
    data: ref("DecreaseResult"),
    body: "DecreaseRequest",
    codes: [...TRADE_CODES, "no_open_hedge"],
  },
  {
    method: "post",
    path: "/hedges/close",
    summary: "Close the open hedge of a market and side",
    scope: "trade",
    data: ref("CloseResult"),
    body: "CloseRequest",
    codes: [...TRADE_CODES, "no_open_hedge"],
  },
  {
    method: "get",
    path: "/hedges/history",
    summary: "Closed-hedge records, newest first",
    scope: "read",
    data: { type: "array", items: ref("ClosedHedge") },
    query: historyQuerySchema,
  },
  {
    method: "get",
    path: "/hedges/{hedge_id}",
    summary: "One hedge (poll for the fill)",
    scope: "read",
    data: ref("Hedge"),
    query: [hedgeIdParam],
    codes: ["hedge_not_found"],
  },
];

/** Query parameters from a query schema: one per property, none required. */
function parameters(query: Operation["query"]): Json[] {
  if (!query) return [];
  if (Array.isArray(query)) return query;
  const schema = jsonSchema(query) as { properties: Record<string, Json> };
  return Object.entries(schema.properties).map(([name, s]) => ({ name, in: "query", required: false, schema: s }));
}

function operation(op: Operation): Json {
  const params = parameters(op.query);
  if (op.scope === "trade")
    params.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255 },
      description: "the same on every retry of one action",
    });
  return {
    summary: op.summary,
    description: `Needs the \`${op.scope}\` scope.`,
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(op.body) } } } } : {}),
    responses: { "200": successEnvelope(op.data, op.meta), ...errorResponses(op.codes ?? [], op.body !== undefined) },
  };
}

let built: Json | null = null;

/** The document (built once). */
export function openApiDocument(): Json {
  if (built) return built;
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operation(op) };
  paths[OPENAPI_PATH] = {
    get: {
      summary: "This document",
      security: [],
      responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
    },
  };
  built = {
    openapi: "3.1.0",
    info: {
      title: "Hedging Service v2 (sandbox)",
      version: "2",
      description:
        "Generated from the add-in's zod schemas (src/api/schemas.ts). Every answer is the envelope {data, error, meta}. An unknown path " +
        "gets 404 not_found and a known path with another method 405 method_not_allowed (components.responses).",
    },
    servers: [{ url: "/v2" }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "svc_test_… (sandbox) or svc_live_… (production) API key" },
      },
      schemas: components(),
      responses: {
        NotFound: errorEnvelope(["not_found"], "not_found: no such endpoint"),
        MethodNotAllowed: errorEnvelope(["method_not_allowed"], "method_not_allowed: the path takes other methods (Allow header)"),
      },
    },
  };
  return built;
}
