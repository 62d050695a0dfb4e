// Checks sandbox answers against the OpenAPI document the sandbox serves (GET /v2/openapi.json), with a JSON Schema 2020-12 validator: each answer's operation, status and body.
import { Validator } from "@cfworker/json-schema";
import type { RunningSandbox, SandboxOptions } from "../../src/sandbox/server";

type Json = Record<string, unknown>;
type Answer = Parameters<NonNullable<SandboxOptions["onAnswer"]>>[0];

/** Collects every /v2 answer of the sandboxes started with `options`. */
export function answerRecorder(): { options: Pick<SandboxOptions, "onAnswer">; answers: Answer[] } {
  const answers: Answer[] = [];
  return { options: { onAnswer: (a) => answers.push(a) }, answers };
}

/** The document as served, fetched without credentials. */
export async function servedDocument(sb: RunningSandbox): Promise<Json> {
  const res = await fetch(`${sb.baseUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /v2/openapi.json answered ${res.status}`);
  return (await res.json()) as Json;
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** The document's path template matching `path` (`/hedges/hdg_1` → `/hedges/{hedge_id}`), fixed paths first. */
function template(doc: Json, path: string): string | null {
  const paths = Object.keys(doc.paths as Json);
  if (paths.includes(path)) return path;
  return paths.find((t) => t.includes("{") && new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path)) ?? null;
}

/** Where in the document the schema of this answer lives, or why there is none. */
function schemaPointer(doc: Json, a: Answer): string | { problem: string } {
  const path = a.path.length > 1 ? a.path.replace(/\/+$/, "") : a.path;
  const t = template(doc, path);
  const method = a.method.toLowerCase();
  const operation = t ? ((doc.paths as Record<string, Json>)[t][method] as Json | undefined) : undefined;
  if (!operation) {
    if (a.status === 404 && !t) return pointer("components", "responses", "NotFound", "content", "application/json", "schema");
    if (a.status === 405 && t) return pointer("components", "responses", "MethodNotAllowed", "content", "application/json", "schema");
    return { problem: `${a.method} ${path} answered ${a.status}, and the document has no such operation` };
  }
  if (!(String(a.status) in (operation.responses as Json)))
    return { problem: `${a.method} ${t} answered ${a.status}, a status the document does not list` };
  return pointer("paths", t!, method, "responses", String(a.status), "content", "application/json", "schema");
}

/** Every answer that does not match the document, as one line each (empty when all match). */
export function mismatches(doc: Json, answers: readonly Answer[]): string[] {
  const validators = new Map<string, Validator>();
  const out: string[] = [];
  for (const a of answers) {
    const where = schemaPointer(doc, a);
    if (typeof where !== "string") {
      out.push(where.problem);
      continue;
    }
    let v = validators.get(where);
    if (!v) validators.set(where, (v = new Validator({ ...doc, $ref: where } as never, "2020-12", false)));
    const result = v.validate(JSON.parse(a.body));
    if (!result.valid) {
      const errors = result.errors.filter((e) => e.keyword !== "properties" && e.keyword !== "$ref" && e.keyword !== "allOf").slice(0, 3);
      out.push(
        `${a.method} ${a.path} ${a.status}: ${errors.map((e) => `${e.instanceLocation} ${e.error}`).join("; ")} in ${a.body.slice(0, 300)}`,
      );
    }
  }
  return out;
}

/** The answers' distinct operation-and-status pairs, e.g. "POST /hedges 409". */
export function coverage(doc: Json, answers: readonly Answer[]): Set<string> {
  return new Set(answers.map((a) => `${a.method} ${template(doc, a.path.replace(/(.)\/+$/, "$1")) ?? a.path} ${a.status}`));
}

/** The document's operations, e.g. "GET /hedges/{hedge_id}". */
export function operations(doc: Json): string[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

/** The error codes of the answers. */
export function errorCodes(answers: readonly Answer[]): Set<string> {
  return new Set(
    answers.map((a) => (JSON.parse(a.body) as { error?: { code?: string } | null }).error?.code).filter((c): c is string => !!c),
  );
}
