// The trading simulation (FoundationDB / TigerBeetle VOPR style): one seeded world of desk + sandbox engine (through the real client and router, in process) + memory workbook + per-user store + virtual clock; panes killed at random, faults, edits; invariants checked after every run.
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import FakeTimers, { type Clock } from "@sinonjs/fake-timers";
import { HedgingClient } from "../../../src/api/client";
import type { HttpRequest, HttpResponse, HttpTransport } from "../../../src/api/transport";
import { Engine } from "../../../src/sandbox/engine";
import { SandboxClock } from "../../../src/sandbox/clock";
import { Faults, faultPatchSchema } from "../../../src/sandbox/faults";
import { IdempotencyStore, type StoredResponse } from "../../../src/sandbox/idempotency";
import { RateLimiter } from "../../../src/sandbox/rate-limit";
import { ApiRouter } from "../../../src/sandbox/router";
import { SeededRandom } from "../../../src/sandbox/random";
import { DEFAULT_MARKETS, type MarketConfig } from "../../../src/sandbox/pricing";
import type { HedgeState } from "../../../src/sandbox/state";
import { MemoryWorkbook, columnLetters } from "../../../src/excel/memory-workbook";
import { WORKBOOK_ID_PROPERTY } from "../../../src/trading/workbook";
import { MemoryIntentStore } from "../../../src/excel/intent-store";
import { createDesk } from "../../../src/trading/desk";
import { LOG_COLUMNS, LOG_SHEET_NAME, LOG_TABLE_NAME, type LogRecord } from "../../../src/trading/hedge-log";
import type { Workbook } from "../../../src/trading/workbook";
import type { IntentStore } from "../../../src/trading/intent-store";
import type { CellValue } from "../../../src/trading/cells";
import type { Action, ResumePlan, TradingDesk } from "../../../src/trading/types";

const API_KEY = "svc_test_simulated_desk_key_0001";
const ADDRESS = "0x00000000000000000000000000000000000051a1";
const BASE_URL = "https://sim.invalid/v2";
const START_MS = Date.UTC(2026, 10, 23, 8, 0, 0);
const MARKETS: MarketConfig[] = [DEFAULT_MARKETS[0], { ...DEFAULT_MARKETS[0], symbol: "USDTXAF", pair: "USDT/XAF", spot: 600 }];
const SIDES = ["buy", "sell"] as const;
const FINAL = new Set(["filled", "failed", "closed", "rejected", "not_sent"]);
/** The calm last session must finish every row within this much simulated time. */
const BOUND_MS = 2 * 3_600_000;

export interface SimResult {
  seed: number;
  violations: string[];
  stats: Record<string, number>;
  trace: string[];
}

/** What happened to one idempotency key on the service. */
interface Truth {
  /** Executions (a new claim that ran and answered 2xx): more than one is money moved twice. */
  executions: number;
  action: string;
  orderTx: string | null;
  hedgeId: string | null;
}

type Outcome = "filled" | "failed" | "dropped";

class Rng extends SeededRandom {
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

/** One pane's life: after kill() every call it makes waits forever, and nothing it starts reaches the service or the workbook. */
interface Life {
  id: number;
  dead: boolean;
  createdKeys: Set<string>;
  /** When the user pressed Resume in this pane (null: not yet). */
  resumedAt: number | null;
}

const never = <T>() => new Promise<T>(() => undefined);

/** Drains every pending promise job and process tick (one turn of the real event loop). */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function runSeed(seed: number, options: { trace?: boolean } = {}): Promise<SimResult> {
  const rng = new Rng(seed * 2654435761 + 1);
  const trace: string[] = [];
  const violations: string[] = [];
  const stats: Record<string, number> = { sessions: 0, kills: 0, rows: 0, mutations: 0, resumes: 0, decisions: 0, edits: 0, dontSave: 0 };
  const clock: Clock = FakeTimers.withGlobal(globalThis).install({
    now: START_MS,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
    loopLimit: 1_000_000,
  });
  const log = (text: string) => {
    if (options.trace) trace.push(`${new Date(Date.now()).toISOString().slice(5, 23)} ${text}`);
    if (process.env.SIM_LIVE) process.stderr.write(`${new Date(Date.now()).toISOString().slice(5, 23)} ${text}\n`);
  };
  try {
    await simulate(seed, rng, clock, log, violations, stats);
  } catch (e) {
    violations.push(`crashed: ${(e as Error).stack ?? String(e)}`);
  } finally {
    clock.uninstall();
  }
  return { seed, violations, stats, trace };
}

async function simulate(
  seed: number,
  rng: Rng,
  clock: Clock,
  log: (text: string) => void,
  violations: string[],
  stats: Record<string, number>,
): Promise<void> {
  // ---- the service: the sandbox engine behind its real router, in process ----
  const hexRng = new Rng(seed ^ 0x5eed);
  const randomHex = (bytes: number) => Array.from({ length: bytes }, () => hexRng.int(0, 255).toString(16).padStart(2, "0")).join("");
  const engine = new Engine({
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
  const truth = new Map<string, Truth>();
  const outcomes = new Map<string, Outcome>();
  instrumentEngine(engine, outcomes);
  // Keys are forgotten after 24 h in the sandbox; many worlds forget them much sooner (still longer than the resend window).
  const retentionMs = rng.chance(0.6) ? rng.pick([20 * 60_000, 45 * 60_000, 3 * 3_600_000]) : 24 * 3_600_000;
  const idempotency = new (class extends IdempotencyStore {
    override complete(scope: string, key: string, response: StoredResponse): void {
      super.complete(scope, key, response);
      if (response.status >= 300) return;
      const data = (JSON.parse(response.body) as { data: { order_tx_hash?: string; hedge_id?: string } }).data;
      const t = truth.get(key) ?? { executions: 0, action: "", orderTx: null, hedgeId: null };
      t.executions++;
      t.orderTx = data.order_tx_hash ?? null;
      t.hedgeId = data.hedge_id ?? null;
      truth.set(key, t);
      log(`service executed ${key} → ${t.hedgeId} (${t.executions}×)`);
    }
  })(() => Date.now(), retentionMs);
  const faults = new Faults(engine);
  const router = new ApiRouter({
    engine,
    faults,
    idempotency,
    limiter: new RateLimiter(() => Date.now()),
    maxBodyBytes: 64 * 1024,
    log: (line) => log(`sandbox: ${line}`),
    changed: () => undefined,
  });
  engine.start();

  // ---- network and fault knobs (changed during the run) ----
  const net = { lossRate: 0, listLagMs: 0, latencyMs: 20 };
  let killRate = 0;
  let longStall = false;
  const mutations: Array<{ life: Life; key: string; at: number; path: string }> = [];

  const maybeKill = (life: Life, where: string, boost = 1) => {
    if (life.dead || killRate === 0 || !rng.chance(Math.min(0.5, killRate * boost))) return;
    life.dead = true;
    stats.kills++;
    log(`KILL pane ${life.id} at ${where}`);
  };

  const transport =
    (life: Life): HttpTransport =>
    (request: HttpRequest) => {
      if (life.dead) return never();
      stats.requests = (stats.requests ?? 0) + 1;
      const url = new URL(request.url);
      if (process.env.SIM_TALLY) {
        const k = `${request.method} ${url.pathname.replace(/hdg_[0-9a-f]+/, "{id}")}${url.searchParams.has("client_reference") ? "?ref" : url.searchParams.has("status") ? `?${url.searchParams.get("status")}` : ""}`;
        stats[k] = (stats[k] ?? 0) + 1;
      }
      const path = url.pathname.slice("/v2".length) || "/";
      const key = request.headers["Idempotency-Key"];
      const mutation = request.method === "POST" && path.startsWith("/hedges");
      if (mutation) {
        if (typeof key !== "string" || key.trim() === "") violations.push(`POST ${path} left without an Idempotency-Key`);
        mutations.push({ life, key: key ?? "", at: Date.now(), path });
        stats.mutations++;
      }
      // Excel closed just after Confirm is the case that matters most: a request out, its answer never heard.
      maybeKill(life, `${request.method} ${path} leaving`, mutation ? 10 : 1);
      return new Promise<HttpResponse>((resolve, reject) => {
        let settled = false;
        request.signal.addEventListener("abort", () => {
          if (!settled && !life.dead) {
            settled = true;
            reject(request.signal.reason ?? new Error("aborted"));
          }
        });
        // The round trip: the request is served (even if the pane died meanwhile: it was on the wire), then its answer
        // reaches the pane only if the pane is still alive.
        setTimeout(() => {
          void serve(router, request, url, path, () => net.listLagMs).then((answer) => {
            maybeKill(life, `${request.method} ${path} answered`);
            if (life.dead || settled) return;
            settled = true;
            if (answer === null) reject(new Error("socket hang up (answer dropped after commit)"));
            else if (net.lossRate > 0 && rng.chance(net.lossRate)) reject(new Error("connection reset"));
            else resolve(answer);
          });
        }, net.latencyMs);
      });
    };

  // ---- the workbook file, the open workbook, and this computer's journal ----
  let savedGrid: CellValue[][] | null = null;
  let open: MemoryWorkbook = openWorkbook(null);
  const store = new MemoryIntentStore();
  /** Keys this computer's journal took in (the row was journalled: it must end in the log). */
  const journalled = new Set<string>();
  const portDelay = () => setTimeoutPromise(rng.int(1, 15));
  const living = <A extends unknown[], R>(life: Life, name: string, fn: (...a: A) => Promise<R>, slow = true) => {
    return async (...a: A): Promise<R> => {
      if (life.dead) return never();
      if (slow) await portDelay();
      else await Promise.resolve();
      maybeKill(life, `${name} before`);
      if (life.dead) return never();
      const result = await fn(...a);
      maybeKill(life, `${name} after`);
      if (life.dead) return never();
      return result;
    };
  };
  const workbookOf = (life: Life): Workbook => ({
    readSelection: living(life, "readSelection", () => open.readSelection()),
    ensureLog: living(life, "ensureLog", () => open.ensureLog()),
    readLog: living(life, "readLog", (q) => open.readLog(q)),
    appendLog: living(life, "appendLog", (r) => open.appendLog(r)),
    updateLog: living(life, "updateLog", (u) => open.updateLog(u)),
    showLog: living(life, "showLog", () => open.showLog()),
    identity: living(life, "identity", () => open.identity()),
  });
  const storeOf = (life: Life): IntentStore => ({
    load: living(life, "store.load", (s) => store.load(s), false),
    put: living(
      life,
      "store.put",
      async (s, e) => {
        await store.put(s, e);
        for (const x of e) journalled.add(x.record.idempotencyKey);
      },
      false,
    ),
    remove: living(life, "store.remove", (s, k) => store.remove(s, k), false),
  });

  // ---- the user ----
  let keyCounter = 0;
  const editedKeys = new Set<string>();
  let refCounter = 0;
  /** Runs the world (timers in time order, every job between them) until `until()` holds or `budgetMs` of simulated time passed. */
  const run = async (until: () => boolean, budgetMs: number): Promise<boolean> => {
    let over = false;
    const sentinel = setTimeout(() => (over = true), budgetMs);
    let still = 0;
    let at = Date.now();
    try {
      for (;;) {
        await drain();
        if (until()) return true;
        if (over) return false;
        clock.next();
        stats.steps = (stats.steps ?? 0) + 1;
        if (Date.now() === at) {
          if (++still > 20_000) throw new Error(`livelock: 20,000 timers at ${new Date(at).toISOString()} without time moving`);
        } else {
          still = 0;
          at = Date.now();
        }
      }
    } finally {
      clearTimeout(sentinel);
    }
  };
  /** The user waits a while; a pane that died meanwhile takes its user's flow with it (nothing after runs). */
  const think = async (life: Life, min: number, max: number): Promise<void> => {
    if (life.dead) return never();
    await setTimeoutPromise(rng.int(min, max));
    if (life.dead) return never();
  };

  const openHedgeNotional = (market: string, side: string): number | null => {
    const acct = engine.accountState(API_KEY)!;
    const h = acct.hedges.find((x) => x.market === market && x.side === side && (x.status === "filled" || x.status === "submitted"));
    return h ? h.notional / 1_000_000 : null;
  };

  const userDecides = async (desk: TradingDesk, life: Life) => {
    for (const row of desk.needsDecision()) {
      if (life.dead) return;
      // The user looks at the service: "done" when the row's order took effect (or, for an Open, went through to its end);
      // an order accepted but not filled yet is waited for (nobody can tell yet).
      const t = truth.get(row.idempotencyKey);
      const outcome = t?.orderTx ? outcomes.get(t.orderTx) : undefined;
      if (t && t.executions > 0 && outcome === undefined) continue;
      const decision = outcome === "filled" || (row.action === "open" && outcome === "failed") ? "done" : "not_done";
      log(`user decides ${row.idempotencyKey} ${row.action} ${row.market} ${row.side}: ${decision}`);
      stats.decisions++;
      await desk.decide(row.idempotencyKey, decision).catch((e: unknown) => log(`decide refused: ${(e as Error).message}`));
    }
  };

  const batch = async (desk: TradingDesk, life: Life) => {
    // Mostly sensible rows (the user looks at their positions), sometimes not (the preview stops those).
    const sides = MARKETS.flatMap((m) => SIDES.map((side) => ({ market: m.symbol, side, held: openHedgeNotional(m.symbol, side) })));
    const free = sides.filter((x) => x.held === null);
    const held = sides.filter((x) => x.held !== null);
    const action: Action =
      free.length > 0 && (held.length === 0 || rng.chance(longStall ? 0.15 : 0.35))
        ? "open"
        : rng.pick<Action>(["add", "add", "reduce", "reduce", "close"]);
    const pool = action === "open" ? free : held;
    const rowsWanted = rng.int(1, 4);
    const grid: CellValue[][] = [["Market", "Side", "Notional", "Tenor", "Client reference"]];
    for (let i = 0; i < rowsWanted; i++) {
      const target = pool.length > 0 && rng.chance(0.9) ? rng.pick(pool) : rng.pick(sides);
      const base = target.held ?? 50_000;
      const amount =
        action === "reduce"
          ? Math.max(1_000, Math.round(base * rng.pick([0.1, 0.25, 0.3, 1]) * 100) / 100)
          : rng.int(5, 200) * 1_000 + rng.pick([0, 0.5, 0.25, 33.33]);
      grid.push([
        target.market,
        target.side,
        action === "close" ? "" : amount,
        rng.pick([1, 3, 7]),
        action === "open" ? `S${seed}-${++refCounter}` : "",
      ]);
    }
    open.setSheet("Exposures", grid).select("Exposures", `A2:E${grid.length}`);
    const read = await desk.readRows(action);
    const preview = await desk.preview(action, read.rows);
    if (preview.blockers.length > 0) return;
    const sendAgain = rng.chance(0.3);
    log(`user sends ${action} × ${read.rows.length}${sendAgain ? " (send again)" : ""}`);
    // The user watches the rows go for a while; the pane stays usable meanwhile (a side may wait on a fill).
    const sending = desk.send(preview, { sendAgain }).then(
      (sent) => (stats.rows += sent.rows.length),
      (e: unknown) => log(`send refused: ${(e as Error).message}`),
    );
    // Sometimes the user presses "Check again" while the rows go: the log and the journal are read again meanwhile.
    if (rng.chance(0.3))
      void think(life, 0, 3_000)
        .then(() => desk.inspect())
        .then(
          (plan) => log(`user checks again: ${plan.items.length} unfinished`),
          (e: unknown) => log(`check again failed: ${(e as Error).message}`),
        );
    await Promise.race([sending, think(life, 5_000, 60_000)]);
  };

  const userEdits = () => {
    const cells = open.cells(LOG_SHEET_NAME);
    if (cells.length < 2) return;
    const r = rng.int(1, cells.length - 1);
    const notionalCol = LOG_COLUMNS.findIndex((c) => c.field === "notional");
    if (typeof cells[r][notionalCol] === "number") {
      cells[r][notionalCol] = (cells[r][notionalCol] as number) + 1_000;
      editedKeys.add(String(cells[r][LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey")]));
      open.setSheet(LOG_SHEET_NAME, cells);
      stats.edits++;
      log(`user edits the notional of log row ${r + 1}`);
    }
  };

  const session = async (life: Life, calm: boolean) => {
    const client = new HedgingClient({ apiKey: API_KEY, baseUrl: BASE_URL, transport: transport(life), random: () => rng.next() });
    const desk = createDesk({
      client,
      workbook: workbookOf(life),
      intentStore: storeOf(life),
      pollIntervalMs: 5_000,
      concurrency: 3,
      newKey: () => {
        const k = `k${seed}-${++keyCounter}`;
        life.createdKeys.add(k);
        return k;
      },
      onError: (e) => log(`pane error: ${e.message.slice(0, 120)}`),
    });
    const plan: ResumePlan = await desk.inspect();
    log(
      `pane ${life.id} opened: ${plan.items.length} unfinished (${plan.items.map((i) => `${i.row.idempotencyKey}:${i.step}`).join(" ")}), ${plan.missing.length} missing`,
    );
    // The journal's rows this log lacks are this workbook's (the simulation has one): the user adds them back, mostly.
    if (plan.missing.length > 0 && (calm || rng.chance(0.8))) await desk.restore(plan.missing.map((r) => r.idempotencyKey));
    if (calm || rng.chance(0.85)) {
      await think(life, 0, 20_000);
      life.resumedAt = Date.now();
      stats.resumes++;
      await desk.resume();
    }
    if (calm) return desk;
    const batches = rng.int(0, 3);
    for (let b = 0; b < batches; b++) {
      await think(life, 500, 40_000);
      if (rng.chance(0.5)) await userDecides(desk, life);
      if (rng.chance(0.04)) userEdits();
      if (rng.chance(0.3)) savedGrid = snapshotLog(open);
      if (rng.chance(0.3)) toggleFaults();
      await batch(desk, life);
    }
    await think(life, 1_000, 120_000);
    if (rng.chance(0.5)) await userDecides(desk, life);
    return desk;
  };

  const toggleFaults = () => {
    const patch: Record<string, unknown> = {};
    if (rng.chance(0.5)) patch.drop_after_commit = rng.int(0, 3);
    if (rng.chance(0.3)) patch.fail_next = { count: rng.int(1, 6), code: rng.pick(["service_unavailable", "executor_unavailable"]) };
    if (rng.chance(0.3)) patch.rate_limit_next = rng.int(0, 4);
    if (!longStall && rng.chance(0.3)) patch.stall_fills = rng.chance(0.6);
    if (rng.chance(0.2)) patch.fill_ms = rng.pick([200, 1_500, 6_000]);
    if (Object.keys(patch).length > 0) faults.apply(faultPatchSchema.parse(patch));
    net.lossRate = rng.chance(0.3) ? rng.pick([0.02, 0.1]) : 0;
    net.listLagMs = rng.chance(0.3) ? rng.pick([2_000, 10_000]) : 0;
    log(`faults ${JSON.stringify(patch)} loss ${net.lossRate} lag ${net.listLagMs}`);
  };

  // ---- sessions ----
  const sessions = rng.int(2, 5);
  // Some worlds stall fills for hours from one session on (orders accepted, not filled): an accepted Add is then invisible.
  const longStallFrom = rng.chance(0.2) ? rng.int(0, sessions - 1) : -1;
  const killy = rng.chance(0.8);
  for (let s = 0; s < sessions; s++) {
    stats.sessions++;
    const life: Life = { id: s + 1, dead: false, createdKeys: new Set(), resumedAt: null };
    killRate = killy ? rng.pick([0.002, 0.01, 0.03]) : 0;
    if (s === longStallFrom) {
      longStall = true;
      engine.setFillsStalled(true);
      log("fills stall for hours");
    }
    if (rng.chance(0.6)) toggleFaults();
    let finished = false;
    let desk: TradingDesk | null = null;
    void session(life, false)
      .then((d) => {
        desk = d;
        finished = true;
      })
      .catch((e: unknown) => {
        log(`session ${life.id} error: ${(e as Error).message}`);
        finished = true;
      });
    await run(() => life.dead || finished, 15 * 60_000);
    if (!life.dead) {
      // The pane stays open a while, then Excel closes (or the pane dies).
      await run(() => life.dead, rng.int(1_000, 120_000));
      if (!life.dead) {
        (desk as TradingDesk | null)?.stop();
        life.dead = true;
      }
    }
    // Save, or "Don't Save" (the workbook reopens as last saved).
    if (rng.chance(0.25)) {
      stats.dontSave++;
      log("user closes WITHOUT saving");
    } else savedGrid = snapshotLog(open);
    if (rng.chance(0.05) && savedGrid && savedGrid.length > 2) {
      const r = rng.int(1, savedGrid.length - 1);
      log(`user deletes log row ${r + 1} (${String(savedGrid[r][LOG_COLUMNS.findIndex((c) => c.field === "idempotencyKey")])})`);
      savedGrid = [...savedGrid.slice(0, r), ...savedGrid.slice(r + 1)];
      stats.edits++;
    }
    open = openWorkbook(savedGrid);
    const gap = rng.chance(longStall ? 0.6 : 0.3)
      ? rng.pick([25 * 3_600_000, 2 * 3_600_000, 50 * 60_000, 20 * 60_000])
      : rng.int(1_000, 120_000);
    await run(() => false, gap);
  }

  // ---- the calm last session: no faults, no kills; the user resumes and decides; every row must end ----
  faults.clear();
  faults.apply(faultPatchSchema.parse({ fill_ms: 1_500, fail_rate: 0 }));
  Object.assign(net, { lossRate: 0, listLagMs: 0 });
  killRate = 0;
  const life: Life = { id: sessions + 1, dead: false, createdKeys: new Set(), resumedAt: null };
  let desk: TradingDesk | null = null;
  void session(life, true).then(
    (d) => (desk = d),
    (e: unknown) => violations.push(`the last pane failed: ${(e as Error).message}`),
  );
  const started = Date.now();
  await run(() => desk !== null, BOUND_MS);
  const calmDesk = desk as TradingDesk | null;
  if (!calmDesk) violations.push("the last pane did not open within the time bound");
  else {
    await run(() => calmDesk.pending().length === 0, BOUND_MS);
    for (let round = 0; round < 3 && calmDesk.needsDecision().length > 0; round++) {
      let decided = false;
      void userDecides(calmDesk, life).finally(() => (decided = true));
      await run(() => decided, BOUND_MS);
      await run(() => calmDesk.pending().length === 0, BOUND_MS);
    }
    if (Date.now() - started > BOUND_MS)
      violations.push(
        `rows not final within ${BOUND_MS / 60_000} simulated minutes: ${calmDesk
          .pending()
          .map((r) => r.idempotencyKey)
          .join(", ")}`,
      );
    await run(() => false, 5_000);
    calmDesk.stop();
    await run(() => false, 1_000);
  }

  // ---- invariants ----
  const finalLog = (await open.readLog()).filter((r) => r.idempotencyKey !== "");
  for (const r of finalLog) {
    stats[`${r.action}:${r.status}`] = (stats[`${r.action}:${r.status}`] ?? 0) + 1;
    if (r.decision) stats.decided = (stats.decided ?? 0) + 1;
  }
  for (const r of finalLog)
    log(
      `final: ${r.idempotencyKey} ${r.action} ${r.market} ${r.side} ${r.notional ?? ""} ${r.status} ${r.hedgeId ?? ""} before=${r.notionalBefore ?? ""} ${r.message ?? ""}`,
    );
  checkInvariants(finalLog, truth, outcomes, engine, mutations, keyCounter, seed, editedKeys, journalled, violations);
  engine.dispose();
}

function setTimeoutPromise(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Serves one request through the sandbox's router with in-memory request and response objects; null when the answer was dropped after commit. */
async function serve(
  router: ApiRouter,
  request: HttpRequest,
  url: URL,
  path: string,
  listLagMs: () => number,
): Promise<HttpResponse | null> {
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
    socket: {
      destroy: () => {
        dropped = true;
      },
    },
    writeHead(s: number, h: Record<string, string | number>) {
      status = s;
      replyHeaders = h;
      this.headersSent = true;
    },
    end(text: string) {
      body = text;
    },
  };
  await router.handle(req, res as unknown as ServerResponse, path, url.searchParams, {});
  if (dropped || body === null) return null;
  let text: string = body;
  const lag = listLagMs();
  if (lag > 0 && request.method === "GET" && path === "/hedges") {
    // The hedge list lags: hedges opened in the last `lag` ms are not in it yet.
    const parsed = JSON.parse(text) as { data: Array<{ opened_at: string }> | null };
    if (Array.isArray(parsed.data)) {
      parsed.data = parsed.data.filter((h) => Date.parse(h.opened_at) <= Date.now() - lag);
      text = JSON.stringify(parsed);
    }
  }
  const lower = Object.fromEntries(Object.entries(replyHeaders).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status, body: text, header: (name: string) => lower[name.toLowerCase()] ?? null };
}

/** Records what became of each order: filled, failed (an open's fill failed), or dropped (its hedge ended first). */
function instrumentEngine(engine: Engine, outcomes: Map<string, Outcome>): void {
  const e = engine as unknown as {
    fillOrder(h: HedgeState, time: number): void;
    dropOrders(h: HedgeState, acct: unknown): void;
  };
  const fill = e.fillOrder.bind(engine);
  const drop = e.dropOrders.bind(engine);
  e.fillOrder = (h, time) => {
    const order = h.orders[0];
    fill(h, time);
    if (order && !outcomes.has(order.orderTx))
      outcomes.set(order.orderTx, h.status === "failed" && order.kind === "open" ? "failed" : "filled");
  };
  e.dropOrders = (h, acct) => {
    for (const o of h.orders) if (!outcomes.has(o.orderTx)) outcomes.set(o.orderTx, "dropped");
    drop(h, acct);
  };
}

function snapshotLog(wb: MemoryWorkbook): CellValue[][] | null {
  return wb.sheetNames().includes(LOG_SHEET_NAME) && wb.tableNames().includes(LOG_TABLE_NAME) ? wb.cells(LOG_SHEET_NAME) : null;
}

/** The workbook as Excel opens it from the file: the saved Hedge Log table (if any). */
function openWorkbook(grid: CellValue[][] | null): MemoryWorkbook {
  // The file was saved with its workbook id before the run began (an id lost with unsaved changes is journal.test.ts's case).
  const wb = new MemoryWorkbook({ sheets: { Exposures: [["Market"]] }, customProperties: { [WORKBOOK_ID_PROPERTY]: "wb-sim" }, name: "Sim.xlsx" });
  if (!grid) return wb;
  const rows = grid.filter((r, i) => i === 0 || r.some((v) => v !== "" && v !== null));
  wb.setSheet(LOG_SHEET_NAME, rows);
  wb.addTable(LOG_TABLE_NAME, LOG_SHEET_NAME, `A1:${columnLetters(LOG_COLUMNS.length - 1)}${rows.length}`);
  return wb;
}

function checkInvariants(
  log: LogRecord[],
  truth: Map<string, Truth>,
  outcomes: Map<string, Outcome>,
  engine: Engine,
  mutations: Array<{ life: Life; key: string; at: number; path: string }>,
  keysMade: number,
  seed: number,
  editedKeys: ReadonlySet<string>,
  journalled: ReadonlySet<string>,
  violations: string[],
): void {
  // 1. No effect twice.
  for (const [key, t] of truth) if (t.executions > 1) violations.push(`${key} executed ${t.executions} times on the service`);
  // 2. No row lost: every row the desk journalled is in the log, once.
  const byKey = new Map<string, LogRecord[]>();
  for (const r of log) byKey.set(r.idempotencyKey, [...(byKey.get(r.idempotencyKey) ?? []), r]);
  for (let i = 1; i <= keysMade; i++) {
    const key = `k${seed}-${i}`;
    const rows = byKey.get(key) ?? [];
    if (rows.length === 0 && truth.has(key)) violations.push(`${key} acted on the service but is not in the log`);
    else if (rows.length === 0 && journalled.has(key)) violations.push(`${key} was journalled but is not in the log`);
    if (rows.length > 1) violations.push(`${key} is in the log ${rows.length} times`);
  }
  for (const [key] of truth) if (!/^k\d+-\d+$/.test(key)) violations.push(`the service executed a key no row made: ${key}`);
  // 3. Every row final.
  for (const r of log) if (!FINAL.has(r.status)) violations.push(`${r.idempotencyKey} (${r.action}) ended ${r.status}`);
  // 4. The log equals the service, row by row.
  for (const r of log) {
    const t = truth.get(r.idempotencyKey);
    const outcome = t?.orderTx ? outcomes.get(t.orderTx) : undefined;
    const what = `${r.idempotencyKey} (${r.action} ${r.market} ${r.side} ${r.notional ?? ""})`;
    if (!t) {
      if (r.status === "filled" || (r.status === "closed" && r.action !== "close"))
        violations.push(`${what} logged ${r.status} but the service never executed it`);
      continue;
    }
    const expected: Record<string, string[]> = {
      "open:filled": ["filled"],
      "open:failed": ["failed"],
      "add:filled": ["filled"],
      "add:dropped": ["failed", "not_sent"],
      "add:failed": ["failed", "not_sent"],
      "reduce:filled": ["filled", "closed"],
      "reduce:dropped": ["failed", "not_sent"],
      "close:filled": ["closed"],
      "close:dropped": ["closed", "not_sent"],
    };
    const allowed = expected[`${r.action}:${outcome ?? "none"}`];
    if (!allowed) violations.push(`${what} executed but its order's outcome is ${outcome ?? "unknown"}`);
    else if (!allowed.includes(r.status)) violations.push(`${what} logged ${r.status} but the service shows ${outcome}`);
    if (t.hedgeId && r.hedgeId && t.hedgeId !== r.hedgeId) violations.push(`${what} logged hedge ${r.hedgeId} but acted on ${t.hedgeId}`);
  }
  // Per hedge: its size equals the opening plus the filled adds minus the filled reductions the log holds.
  const acct = engine.accountState(API_KEY)!;
  for (const h of acct.hedges) {
    if (h.status !== "filled") continue;
    const rows = log.filter((r) => r.hedgeId === h.id && (r.status === "filled" || r.status === "closed"));
    const size = rows.reduce(
      (s, r) => s + (r.action === "open" || r.action === "add" ? (r.notional ?? 0) : r.action === "reduce" ? -(r.notional ?? 0) : 0),
      0,
    );
    const edited = rows.some((r) => editedKeys.has(r.idempotencyKey));
    if (!edited && Math.abs(size - h.notional / 1_000_000) > 0.01)
      violations.push(`hedge ${h.id} holds ${h.notional / 1_000_000} but its log rows add up to ${size.toFixed(2)}`);
  }
  // 5. Nothing sent without the user's word after a reopen.
  for (const m of mutations) {
    if (m.life.createdKeys.has(m.key)) continue;
    if (m.life.resumedAt === null || m.at < m.life.resumedAt)
      violations.push(`pane ${m.life.id} sent ${m.key} (${m.path}) before the user pressed Resume`);
  }
}
