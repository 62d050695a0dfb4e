// A small in-memory Hedging Service behind the HedgingClient calls the desk makes, for desk tests under fake timers: hedges, history, idempotent POSTs (replayed per key), scripted faults (an answer lost after the service acted, a refusal, reads that fail or answer slowly), and a record of every request.
import { HedgingApiError, SERVICE_ERROR_STATUS } from "../../src/api/errors";
import type { HedgingClient } from "../../src/api/client";
import type { ClosedHedge, Hedge, HistoryQuery, ListQuery } from "../../src/api/schemas";

export const ACCOUNT = "0x00000000000000000000000000000000000000aa";
export const KEY_ID = "k-this-api-key";

export type Op = "open" | "add" | "decrease" | "close";

/** What one request meets instead of a plain answer: an error, after the service acted on it (`acted`) or not. */
export interface Fault {
  code: string;
  status?: number | null;
  message?: string;
  acted?: boolean;
}

type PostOptions = { idempotencyKey?: string; signal?: AbortSignal };

export interface Post {
  op: Op;
  key: string | undefined;
  body: Record<string, unknown>;
  /** Date.now() when it arrived. */
  at: number;
}

const apiError = (f: Fault) =>
  new HedgingApiError({
    code: f.code,
    status: f.status === undefined ? ((SERVICE_ERROR_STATUS as Record<string, number>)[f.code] ?? null) : f.status,
    message: f.message ?? `Scripted ${f.code}.`,
  });

export class FakeService {
  /** Every hedge, oldest first (lists answer newest first). */
  readonly hedges: Hedge[] = [];
  readonly history: ClosedHedge[] = [];
  /** Every state-changing request that arrived, in order. */
  readonly posts: Post[] = [];
  /** Executions per idempotency key: more than one is money moved twice. */
  readonly executions = new Map<string, number>();
  /** Every read, as "get h-1", "list status=filled", "list client_reference=D-1", "history". */
  readonly reads: string[] = [];
  /** Date.now() of each read, in the order of `reads`. */
  readonly readTimes: number[] = [];
  private readonly replies = new Map<string, unknown>();
  private readonly faults: Partial<Record<Op, Fault[]>> = {};
  private readFaults: Fault[] = [];
  /** Reads fail (service_unavailable) until this Date.now(). */
  private readsDownUntil = -Infinity;
  /** Called as each POST arrives, before the service acts (e.g. to look at the log at that moment). */
  onPost: ((post: Post) => void | Promise<void>) | null = null;
  private seq = 0;

  /** Each read answers this long after it arrives (a slow service; 0: at once). */
  readDelayMs = 0;
  /** Opens are filled at once instead of waiting for fill(). */
  fillAtOnce = false;
  keyId = KEY_ID;

  /** The next requests of `op` meet these faults, in order. */
  fail(op: Op, ...faults: Fault[]): this {
    (this.faults[op] ??= []).push(...faults);
    return this;
  }

  /** The next `n` reads fail with `code`. */
  failReads(n: number, code = "service_unavailable"): this {
    this.readFaults.push(...Array.from({ length: n }, () => ({ code })));
    return this;
  }

  /** Every read fails (service_unavailable) for the next `ms`. */
  readsDownFor(ms: number): this {
    this.readsDownUntil = Date.now() + ms;
    return this;
  }

  /** A hedge already on the service (filled, opened an hour before now unless told). */
  seed(over: Partial<Hedge> = {}): Hedge {
    const id = over.id ?? `h-${++this.seq}`;
    const h: Hedge = {
      id,
      client_reference: null,
      market: "USDTNGN",
      side: "buy",
      notional_usd: 100_000,
      tenor_days: 7,
      status: "filled",
      order_tx_hash: `0xo-${id}`,
      fill_tx_hash: `0xf-${id}`,
      struck_rate: 1500,
      units: null,
      order_key: null,
      opened_at: new Date(Date.now() - 3_600_000).toISOString(),
      filled_at: new Date(Date.now() - 3_600_000).toISOString(),
      maturity_at: null,
      ...over,
    };
    this.hedges.push(h);
    return h;
  }

  /** Every accepted open is filled now. */
  fill(): void {
    for (const h of this.hedges)
      if (h.status === "submitted")
        Object.assign(h, { status: "filled", fill_tx_hash: `0xf-${h.id}`, struck_rate: 1501, filled_at: this.iso() });
  }

  /** Effects on the service of one idempotency key. */
  effects(key: string): number {
    return this.executions.get(key) ?? 0;
  }

  private iso(): string {
    return new Date(Date.now()).toISOString();
  }

  private openOn(market: unknown, side: unknown): Hedge | undefined {
    return this.hedges.find((h) => h.market === market && h.side === side && (h.status === "filled" || h.status === "submitted"));
  }

  /** The hedge ends now (closed, matured…) at its current notional. */
  end(h: Hedge, exit = "close"): void {
    this.record(h, exit, h.notional_usd);
    h.status = "closed";
  }

  private record(h: Hedge, exit: string, size: number): void {
    this.history.push({
      market: h.market,
      side: h.side,
      size_usd: size,
      collateral_usdc: 0,
      entry_price: 1500,
      exit_price: 1500,
      opened_at: h.opened_at!,
      closed_at: this.iso(),
      exit_type: exit,
      gross_pnl_usd: 0,
      net_pnl_usd: 0,
      carry_usd: 0,
      fees_usd: 0,
      hedge_id: h.id,
      client_reference: h.client_reference,
    } as ClosedHedge);
  }

  /** What the service does for a new key (throws a refusal when it does nothing). */
  private act(op: Op, body: Record<string, unknown>): unknown {
    const tx = `0xorder-${++this.seq}`;
    if (op === "open") {
      if (this.openOn(body.market, body.side)) throw apiError({ code: "hedge_exists", message: "A hedge is already open." });
      const h = this.seed({
        id: `h-${this.seq}`,
        client_reference: (body.client_reference as string | null) ?? null,
        market: body.market as string,
        side: body.side as Hedge["side"],
        notional_usd: body.notional_usd as number,
        status: "submitted",
        order_tx_hash: tx,
        fill_tx_hash: null,
        struck_rate: null,
        opened_at: this.iso(),
        filled_at: null,
      });
      if (this.fillAtOnce) this.fill();
      return { status: "submitted", hedge_id: h.id, order_tx_hash: tx, quote: { notional_usd: h.notional_usd } };
    }
    const h = this.openOn(body.market, body.side);
    if (!h || h.status !== "filled") throw apiError({ code: "no_open_hedge", message: "No open hedge." });
    if (op === "add") {
      h.notional_usd += body.additional_notional_usd as number;
      Object.assign(h, { fill_tx_hash: `0xf-${tx}`, filled_at: this.iso() });
      return { status: "filled", hedge_id: h.id, order_tx_hash: tx, new_notional_usd: h.notional_usd };
    }
    if (op === "decrease") {
      const amount = body.reduce_notional_usd as number;
      if (amount >= h.notional_usd) {
        this.record(h, "decrease", h.notional_usd);
        h.status = "closed";
      } else {
        this.record(h, "decrease", amount);
        h.notional_usd -= amount;
      }
      return { status: "filled", hedge_id: h.id, order_tx_hash: tx, new_notional_usd: h.status === "closed" ? 0 : h.notional_usd };
    }
    this.record(h, "close", h.notional_usd);
    h.status = "closed";
    return { status: "closed", hedge_id: h.id, order_tx_hash: tx };
  }

  private async post(op: Op, body: Record<string, unknown>, options: PostOptions = {}) {
    const post: Post = { op, key: options.idempotencyKey, body, at: Date.now() };
    this.posts.push(post);
    // An abort ends the wait for the answer with the signal's reason, as the client's sender does.
    const { signal } = options;
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    await Promise.race([this.onPost?.(post), aborted]);
    const fault = this.faults[op]?.shift();
    if (fault && !fault.acted) throw apiError(fault);
    const key = options.idempotencyKey ?? `no-key-${this.posts.length}`;
    if (!this.replies.has(key)) {
      this.replies.set(key, this.act(op, body));
      this.executions.set(key, this.effects(key) + 1);
    }
    if (fault) throw apiError(fault);
    return { data: structuredClone(this.replies.get(key)), meta: {}, idempotencyKey: key };
  }

  /** Reads under way at once, at most so far. */
  maxReadsInFlight = 0;
  private readsInFlight = 0;

  private async read(what: string): Promise<void> {
    this.reads.push(what);
    this.readTimes.push(Date.now());
    this.readsInFlight++;
    this.maxReadsInFlight = Math.max(this.maxReadsInFlight, this.readsInFlight);
    await (this.readDelayMs > 0 ? new Promise((done) => setTimeout(done, this.readDelayMs)) : Promise.resolve());
    this.readsInFlight--;
    const fault = this.readFaults.shift() ?? (Date.now() < this.readsDownUntil ? { code: "service_unavailable" } : undefined);
    if (fault) throw apiError(fault);
  }

  /** The client the desk is given. */
  client(): HedgingClient {
    const list = async (query: ListQuery = {}) => {
      await this.read(
        `list ${Object.entries(query)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ")}`,
      );
      let hits = [...this.hedges].reverse();
      if (query.status) hits = hits.filter((h) => h.status === query.status);
      if (query.client_reference) hits = hits.filter((h) => h.client_reference === query.client_reference);
      if (query.starting_after) hits = hits.slice(hits.findIndex((h) => h.id === query.starting_after) + 1);
      return { data: structuredClone(hits.slice(0, query.limit ?? 50)), meta: {} };
    };
    const client = {
      environment: "sandbox",
      account: async () => ({
        data: {
          account_address: ACCOUNT,
          balance_usdc: 1_000_000,
          margin_used_usdc: 0,
          exposure_usd: 0,
          unrealized_pnl_usd: 0,
          open_positions: 0,
          max_exposure_usd: 10_000_000,
          available_exposure_usd: 10_000_000,
        },
        meta: {},
      }),
      // What a Reduce / Close preview reads besides the hedges: one open market, no positions.
      markets: async () => ({
        data: [
          {
            market: "USDTNGN",
            status: "open",
            price: 1500,
            available_capacity_usd: { buy: 1e7, sell: 1e7 },
            net_rate_daily_pct: { buy: 0, sell: 0 },
          },
        ],
        meta: {},
      }),
      positions: async () => ({ data: [], meta: {} }),
      open: (body: Record<string, unknown>, o?: PostOptions) => this.post("open", body, o),
      add: (body: Record<string, unknown>, o?: PostOptions) => this.post("add", body, o),
      decrease: (body: Record<string, unknown>, o?: PostOptions) => this.post("decrease", body, o),
      close: (body: Record<string, unknown>, o?: PostOptions) => this.post("close", body, o),
      list,
      get: async (id: string) => {
        await this.read(`get ${id}`);
        const h = this.hedges.find((x) => x.id === id);
        if (!h) throw apiError({ code: "hedge_not_found", message: `No hedge ${id}.` });
        return { data: structuredClone(h), meta: {} };
      },
      history: async (query: HistoryQuery = {}) => {
        await this.read("history");
        const from = query.from ? Date.parse(query.from) : -Infinity;
        return { data: structuredClone(this.history.filter((r) => Date.parse(r.closed_at) >= from)), meta: {} };
      },
    };
    // The key in use can change (a key rotation): the client reads it from the service each time.
    Object.defineProperty(client, "keyId", { get: () => this.keyId });
    return client as unknown as HedgingClient;
  }
}
