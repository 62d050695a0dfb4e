// Idempotency-Key records per account within an environment (every key of an account shares them): replay the stored answer, refuse reuse with another body, report in-flight.

export interface StoredResponse {
  status: number;
  body: string;
}

interface Entry {
  fingerprint: string;
  createdAt: number;
  response: StoredResponse | null;
}

export type Claim = { kind: "new" } | { kind: "replay"; response: StoredResponse } | { kind: "reuse" } | { kind: "in_flight" };

export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The scope of an Idempotency-Key: the environment and the account (named by its first API key), so that every key of an
 * account shares its keys ("Keys are scoped per environment"): a batch approved twice, by two keys of one account, runs once.
 */
export function idempotencyScope(acct: { env: string; config: { api_key: string } }): string {
  return `${acct.env}:${acct.config.api_key}`;
}

export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
  createdAt: number;
  response: StoredResponse;
}

/** JSON with object keys sorted, so that bodies that differ only in key order or spacing match. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function fingerprintOf(method: string, path: string, body: unknown): string {
  return `${method} ${path}\n${canonicalJson(body)}`;
}

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number,
    readonly retentionMs: number = DEFAULT_RETENTION_MS,
  ) {}

  /** Registers a key for a request, unless it is known: then the stored answer, or why it cannot run. */
  claim(scope: string, key: string, fingerprint: string): Claim {
    this.prune();
    const id = `${scope}\n${key}`;
    const entry = this.entries.get(id);
    if (entry) {
      if (entry.fingerprint !== fingerprint) return { kind: "reuse" };
      return entry.response ? { kind: "replay", response: entry.response } : { kind: "in_flight" };
    }
    this.entries.set(id, { fingerprint, createdAt: this.now(), response: null });
    return { kind: "new" };
  }

  /** Stores the answer of a claimed key; later requests with the same key and body get it back. */
  complete(scope: string, key: string, response: StoredResponse): void {
    const entry = this.entries.get(`${scope}\n${key}`);
    if (entry) entry.response = response;
  }

  /** Forgets a claimed key whose request produced no answer worth keeping (a transient 5xx): a retry runs again. */
  release(scope: string, key: string): void {
    const id = `${scope}\n${key}`;
    if (this.entries.get(id)?.response === null) this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Completed records, for `--state`. */
  records(): IdempotencyRecord[] {
    const out: IdempotencyRecord[] = [];
    for (const [id, e] of this.entries) {
      if (!e.response) continue;
      const cut = id.indexOf("\n");
      out.push({
        scope: id.slice(0, cut),
        key: id.slice(cut + 1),
        fingerprint: e.fingerprint,
        createdAt: e.createdAt,
        response: e.response,
      });
    }
    return out;
  }

  load(records: IdempotencyRecord[]): void {
    for (const r of [...records].sort((a, b) => a.createdAt - b.createdAt)) {
      this.entries.set(`${r.scope}\n${r.key}`, { fingerprint: r.fingerprint, createdAt: r.createdAt, response: r.response });
    }
  }

  /** Entries are kept `retentionMs` of sandbox-clock time after their first use; the map is in creation order. */
  private prune(): void {
    const cutoff = this.now() - this.retentionMs;
    for (const [id, e] of this.entries) {
      if (e.createdAt >= cutoff) break;
      if (e.response) this.entries.delete(id);
    }
  }
}
