// GET /v2/openapi.json: an OpenAPI 3.1 document, served without credentials, with every endpoint, status and error code of the spec; the checker used on the endpoint tests' answers refuses answers that break it.
import { SERVICE_ERROR_STATUS } from "../../src/api/errors";
import { ROUTING_ERROR_STATUS } from "../../src/sandbox/http-io";
import type { RunningSandbox } from "../../src/sandbox/server";
import { raw, start } from "./helpers";
import { mismatches, operations, servedDocument } from "./openapi-check";

let sb: RunningSandbox;
let doc: Record<string, unknown>;
beforeAll(async () => {
  sb = await start();
  doc = await servedDocument(sb);
});
afterAll(() => sb.close());

/** The spec's endpoints (its "Endpoints" section). */
const SPEC_OPERATIONS = [
  "GET /markets",
  "GET /prices",
  "GET /account",
  "GET /positions",
  "POST /quotes",
  "POST /hedges",
  "POST /hedges/add",
  "POST /hedges/{hedge_id}/add",
  "POST /hedges/decrease",
  "POST /hedges/close",
  "GET /hedges",
  "GET /hedges/{hedge_id}",
  "GET /hedges/history",
];

test("served without credentials as OpenAPI 3.1, with every endpoint of the spec and nothing else but itself", async () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(operations(doc).sort()).toEqual([...SPEC_OPERATIONS, "GET /openapi.json"].sort());
  const post = await raw(sb, "POST", "/openapi.json", { key: null, body: {} });
  expect([post.status, post.json.error?.code]).toEqual([405, "method_not_allowed"]);
});

test("every error code of the spec is listed under its status, and POST /hedges lists the spec's own table", () => {
  const listed = new Map<string, Set<string>>();
  for (const ops of Object.values(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
    for (const op of Object.values(ops)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const codes = (
          response as {
            content: { "application/json": { schema: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } } };
          }
        ).content["application/json"].schema.properties?.error?.properties?.code?.enum;
        for (const code of codes ?? []) listed.set(code, new Set([...(listed.get(code) ?? []), status]));
      }
    }
  }
  // validation_error is also the 413 of a body over the limit.
  const expected = (code: string, status: number) => (code === "validation_error" ? ["400", "413"] : [String(status)]);
  for (const [code, status] of Object.entries(SERVICE_ERROR_STATUS)) {
    expect([code, [...(listed.get(code) ?? [])].sort()]).toEqual([code, expected(code, status)]);
  }
  const responses = (doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)["/hedges"].post.responses;
  expect(Object.keys(responses).sort()).toEqual(["200", "400", "401", "403", "409", "413", "429", "502", "503"]);
  const components = (doc.components as { responses: Record<string, unknown> }).responses;
  expect(Object.keys(components).sort()).toEqual(["MethodNotAllowed", "NotFound"]);
  expect(Object.keys(ROUTING_ERROR_STATUS).sort()).toEqual(["method_not_allowed", "not_found"]);
});

test("the check refuses answers that break the document: a null fill field, a number as text, an undocumented code or status", () => {
  const hedge = {
    id: "hdg_1",
    client_reference: null,
    market: "USDTNGN",
    side: "buy",
    notional_usd: 1000,
    tenor_days: 7,
    status: "submitted",
    order_tx_hash: "0x1",
    order_key: "0x2",
    opened_at: "2026-11-25T10:00:00.000Z",
    maturity_at: "2026-12-02T10:00:00.000Z",
  };
  const answer = (data: unknown, status = 200, path = "/hedges/hdg_1") => ({
    method: "GET",
    path,
    status,
    body: JSON.stringify(status < 300 ? { data, error: null, meta: {} } : { data: null, error: data, meta: {} }),
  });
  expect(mismatches(doc, [answer(hedge)])).toEqual([]);
  const bad = mismatches(doc, [
    answer({ ...hedge, fill_tx_hash: null }),
    answer({ ...hedge, notional_usd: "1000" }),
    answer({ code: "hedge_exists", message: "x", details: null }, 409),
    answer({ code: "no_open_hedge", message: "x", details: null }, 404),
    answer({ code: "not_found", message: "x", details: null }, 404, "/nope"),
  ]);
  expect(bad.map((line) => line.slice(0, 40))).toEqual([
    expect.stringMatching(/^GET \/hedges\/hdg_1 200/),
    expect.stringMatching(/^GET \/hedges\/hdg_1 200/),
    expect.stringMatching(/^GET \/hedges\/\{hedge_id\} answered 409/),
    expect.stringMatching(/^GET \/hedges\/hdg_1 404/),
  ]);
});
