// The service of one world: the sandbox engine behind its real router, in process, and its truth (what each idempotency key did, and what became of each order).
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpRequest, HttpResponse } from "../../../src/api/transport";
import { Engine } from "../../../src/sandbox/engine";
import { SandboxClock } from "../../../src/sandbox/clock";
import { Faults } from "../../../src/sandbox/faults";
import { IdempotencyStore, type StoredResponse } from "../../../src/sandbox/idempotency";
import { RateLimiter } from "../../../src/sandbox/rate-limit";
import { ApiRouter } from "../../../src/sandbox/router";
import { DEFAULT_MARKETS, type MarketConfig } from "../../../src/sandbox/pricing";
import type { HedgeState } from "../../../src/sandbox/state";
import { Rng } from "./rng";

export const API_KEY = "svc_test_simulated_desk_key_0001";
export const ADDRESS = "0x00000000000000000000000000000000000051a1";
export const BASE_URL = "https://sim.invalid/v2";
export const MARKETS: MarketConfig[] = [DEFAULT_MARKETS[0], { ...DEFAULT_MARKETS[0], symbol: "USDTXAF", pair: "USDT/XAF", spot: 600 }];
export const SIDES = ["buy", "sell"] as const;

/** What happened to one idempotency key on the service. */
export interface Truth {
  /** Executions (a new claim that ran and answered 2xx): more than one is money moved twice. */
  executions: number;
  orderTx: string | null;
  hedgeId: string | null;
}

/** What became of an order: filled, failed (an open's fill failed), or dropped (its hedge ended first). */
export type Outcome = "filled" | "failed" | "dropped";

/** What the service tells the checker, as it happens. */
export interface ServiceEvents {
  executed(key: string, truth: Truth): void;
  settled(key: string): void;
}

export class Service {
  readonly engine: Engine;
  readonly faults: Faults;
  readonly router: ApiRouter;
  readonly truth = new Map<string, Truth>();
  readonly outcomes = new Map<string, Outcome>();
  private readonly keyOfOrder = new Map<string, string>();

  constructor(seed: number, rng: Rng, log: (text: string) => void, events: ServiceEvents) {
    const hexRng = new Rng(seed ^ 0x5eed);
    const randomHex = (bytes: number) => Array.from({ length: bytes }, () => hexRng.int(0, 255).toString(16).padStart(2, "0")).join("");
    this.engine = new Engine({
      clock: new SandboxClock(() => Date.now()),
      accounts: [
        {
          api_key: API_KEY,
          account_address: ADDRESS,
          balance_usdc: 50_000_000,
          max_exposure_usd: 500_000_000,
          allowed_markets: MARKETS.map((m) => m.symbol),
          scopes: ["read", "trade"],
          rate_limit_per_second: 20,
          per_hedge_limit_usd: 100_000_000,
        },
      ],
      markets: MARKETS.map((m) => ({ ...m, headroom_usd: 1_000_000_000 })),
      seed,
      fillMs: rng.pick([200, 1_500, 4_000]),
      failRate: rng.pick([0, 0, 0.1, 0.3]),
      randomHex,
    });
    this.instrumentEngine(events);
    // Keys are forgotten after 24 h in the sandbox; many worlds forget them much sooner (still longer than the resend window).
    const retentionMs = rng.chance(0.6) ? rng.pick([20 * 60_000, 45 * 60_000, 3 * 3_600_000]) : 24 * 3_600_000;
    const executed = (key: string, response: StoredResponse) => this.executed(key, response, log, events);
    const idempotency = new (class extends IdempotencyStore {
      override complete(scope: string, key: string, response: StoredResponse): void {
        super.complete(scope, key, response);
        executed(key, response);
      }
    })(() => Date.now(), retentionMs);
    this.faults = new Faults(this.engine);
    this.router = new ApiRouter({
      engine: this.engine,
      faults: this.faults,
      idempotency,
      limiter: new RateLimiter(() => Date.now()),
      maxBodyBytes: 64 * 1024,
      log: (line) => log(`sandbox: ${line}`),
      changed: () => undefined,
    });
    this.engine.start();
  }

  /** The open (or accepted) hedge of a market side, as the service holds it. */
  sideHedge(market: string, side: string): HedgeState | null {
    const acct = this.engine.accountState(API_KEY)!;
    return acct.hedges.find((x) => x.market === market && x.side === side && (x.status === "filled" || x.status === "submitted")) ?? null;
  }

  hedges(): HedgeState[] {
    return this.engine.accountState(API_KEY)!.hedges;
  }

  /** What became of a key's order (undefined: not executed, or its order not decided yet). */
  outcomeOf(key: string): Outcome | undefined {
    const t = this.truth.get(key);
    return t?.orderTx ? this.outcomes.get(t.orderTx) : undefined;
  }

  /** A key's answer was stored: a 2xx is an execution (more than one for a key is money moved twice). */
  private executed(key: string, response: StoredResponse, log: (text: string) => void, events: ServiceEvents): void {
    if (response.status >= 300) return;
    const data = (JSON.parse(response.body) as { data: { order_tx_hash?: string; hedge_id?: string } }).data;
    const t = this.truth.get(key) ?? { executions: 0, orderTx: null, hedgeId: null };
    t.executions++;
    t.orderTx = data.order_tx_hash ?? null;
    t.hedgeId = data.hedge_id ?? null;
    this.truth.set(key, t);
    if (t.orderTx) this.keyOfOrder.set(t.orderTx, key);
    log(`service executed ${key} → ${t.hedgeId} (${t.executions}×)`);
    events.executed(key, t);
  }

  dispose(): void {
    this.engine.dispose();
  }

  /** Records what became of each order, and tells the checker which key it was. */
  private instrumentEngine(events: ServiceEvents): void {
    const e = this.engine as unknown as {
      fillOrder(h: HedgeState, time: number): void;
      dropOrders(h: HedgeState, acct: unknown): void;
    };
    const fill = e.fillOrder.bind(this.engine);
    const drop = e.dropOrders.bind(this.engine);
    const settle = (orderTx: string, outcome: Outcome) => {
      if (this.outcomes.has(orderTx)) return;
      this.outcomes.set(orderTx, outcome);
      const key = this.keyOfOrder.get(orderTx);
      if (key) events.settled(key);
    };
    e.fillOrder = (h, time) => {
      const order = h.orders[0];
      fill(h, time);
      if (order) settle(order.orderTx, h.status === "failed" && order.kind === "open" ? "failed" : "filled");
    };
    e.dropOrders = (h, acct) => {
      for (const o of h.orders) settle(o.orderTx, "dropped");
      drop(h, acct);
    };
  }

  /** Serves one request through the router with in-memory request and response objects; null when the answer was dropped after commit. */
  async serve(request: HttpRequest, url: URL, path: string, listLagMs: number): Promise<HttpResponse | null> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers)) headers[k.toLowerCase()] = v;
    // A request the router reads like node:http's: its body arrives on the next tick, after readBody listens.
    const emitter = new EventEmitter();
    const req = Object.assign(emitter, {
      method: request.method,
      headers,
      url: url.pathname + url.search,
      resume: () => undefined,
      pause: () => undefined,
    }) as unknown as IncomingMessage;
    process.nextTick(() => {
      if (request.body !== undefined) emitter.emit("data", Buffer.from(request.body));
      emitter.emit("end");
    });
    let status = 0;
    let replyHeaders: Record<string, string | number> = {};
    let body: string | null = null;
    let dropped = false;
    const res = {
      headersSent: false,
      destroyed: false,
      socket: { destroy: () => (dropped = true) },
      writeHead(s: number, h: Record<string, string | number>) {
        status = s;
        replyHeaders = h;
        this.headersSent = true;
      },
      end(text: string) {
        body = text;
      },
    };
    await this.router.handle(req, res as unknown as ServerResponse, path, url.searchParams, {});
    if (dropped || body === null) return null;
    const text = listLagMs > 0 && request.method === "GET" && path === "/hedges" ? lagged(body, listLagMs) : (body as string);
    const lower = Object.fromEntries(Object.entries(replyHeaders).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status, body: text, header: (name: string) => lower[name.toLowerCase()] ?? null };
  }
}

/** The hedge list lags: hedges opened in the last `lagMs` are not in it yet. */
function lagged(text: string, lagMs: number): string {
  const parsed = JSON.parse(text) as { data: Array<{ opened_at: string }> | null };
  if (!Array.isArray(parsed.data)) return text;
  parsed.data = parsed.data.filter((h) => Date.parse(h.opened_at) <= Date.now() - lagMs);
  return JSON.stringify(parsed);
}
