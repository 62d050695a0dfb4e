// Property tests (fast-check): random action sequences conserve money to the cent and never hold two open hedges on one market and side.
import fc from "fast-check";
import { HedgingApiError } from "../../src/api/errors";
import { isSide, type Side } from "../../src/api/schemas";
import { SandboxClock } from "../../src/sandbox/clock";
import { Engine } from "../../src/sandbox/engine";
import { DEFAULT_MARKETS } from "../../src/sandbox/pricing";
import { isOpen, type AccountState } from "../../src/sandbox/state";
import type { RunningSandbox } from "../../src/sandbox/server";
import { account, client, start } from "./helpers";

const DAY = 86_400_000;
const MARKETS = [
  DEFAULT_MARKETS[0],
  {
    ...DEFAULT_MARKETS[0],
    symbol: "USDTKES",
    pair: "USDT/KES",
    spot: 129,
    net_rate_daily_pct: { buy: 0.02, sell: 0.01 },
    headroom_usd: 1_500_000,
  },
];
const KEYS = ["svc_test_prop_rich_0001", "svc_test_prop_poor_0001", "svc_live_prop_live_0001"];
const ACCOUNTS = [
  account(KEYS[0], { allowed_markets: ["USDTNGN", "USDTKES"] }),
  account(KEYS[1], { balance_usdc: 30_000, max_exposure_usd: 400_000, allowed_markets: ["USDTNGN", "USDTKES"] }),
  account(KEYS[2], { balance_usdc: 100_000, allowed_markets: ["USDTNGN"] }),
];

type Command =
  | { kind: "open"; who: number; market: number; side: Side; notional: number; tenor: 1 | 3 | 7 }
  | { kind: "add"; who: number; market: number; side: Side; notional: number; byId: boolean }
  | { kind: "decrease"; who: number; market: number; side: Side; notional: number }
  | { kind: "close"; who: number; market: number; side: Side }
  | { kind: "advance"; ms: number }
  | { kind: "stall"; on: boolean }
  | { kind: "outage"; on: boolean }
  | { kind: "failRate"; rate: number };

// Skewed towards one account, market and side so that adds, decreases and closes often find a hedge to act on.
const who = fc.constantFrom(0, 0, 0, 1, 2);
const market = fc.constantFrom(0, 0, 0, 1);
const side = fc.constantFrom<Side>("buy", "buy", "sell");
const notional = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1_000, max: 200_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1_200_000 }) },
  { weight: 2, arbitrary: fc.double({ min: 0.01, max: 300_000, noNaN: true }).map((x) => Math.round(x * 100) / 100) },
);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("open" as const), who, market, side, notional, tenor: fc.constantFrom<1 | 3 | 7>(1, 3, 7) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("add" as const), who, market, side, notional, byId: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("decrease" as const), who, market, side, notional }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("close" as const), who, market, side }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 3 * DAY })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("stall" as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("outage" as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("failRate" as const), rate: fc.constantFrom(0, 0.3, 1) }) },
);

/** Money held for the account inside the engine: collateral of open hedges and of queued adds. */
function locked(acct: AccountState): number {
  let total = 0;
  for (const h of acct.hedges) {
    if (!isOpen(h)) continue;
    total += h.margin + h.openFee + h.closeFee;
    for (const o of h.orders) total += o.margin + o.openFee + o.closeFee;
  }
  return total;
}

function checkInvariants(engine: Engine): void {
  for (const acct of engine.allAccounts()) {
    const open = new Map<string, number>();
    for (const h of acct.hedges) if (isOpen(h)) open.set(`${h.market}/${h.side}`, (open.get(`${h.market}/${h.side}`) ?? 0) + 1);
    for (const [where, count] of open) if (count > 1) throw new Error(`${acct.config.api_key} holds ${count} open hedges on ${where}`);
    if (!Number.isInteger(acct.balance)) throw new Error(`balance ${acct.balance} is not a whole number of micro-USDC`);
    const realized = acct.history.reduce((s, r) => s + r.net, 0);
    // Conservation at every step: free balance + locked collateral = starting balance + realized net P&L (exact, in micro-USDC).
    if (acct.balance + locked(acct) !== acct.startingBalance + realized) {
      throw new Error(
        `${acct.config.api_key}: balance ${acct.balance} + locked ${locked(acct)} != start ${acct.startingBalance} + realized ${realized}`,
      );
    }
    for (const r of acct.history) {
      if (r.net !== r.gross + r.carry - r.fees) throw new Error(`record ${r.hedgeId}: net != gross + carry - fees`);
    }
  }
}

function apply(engine: Engine, clock: SandboxClock, c: Command): void {
  const acct = engine.authenticate(KEYS["who" in c ? c.who : 0])!;
  const symbol = "market" in c ? MARKETS[c.market].symbol : "USDTNGN";
  switch (c.kind) {
    case "open":
      engine.open(acct, { market: symbol, side: c.side, notional_usd: c.notional, tenor_days: c.tenor, client_reference: `P-${c.who}` });
      return;
    case "add": {
      if (c.byId) {
        const target = acct.hedges.filter((h) => h.market === symbol && h.side === c.side).at(-1);
        if (target) engine.addById(acct, target.id, { additional_notional_usd: c.notional });
      } else engine.add(acct, { market: symbol, side: c.side, additional_notional_usd: c.notional });
      return;
    }
    case "decrease":
      engine.decrease(acct, { market: symbol, side: c.side, reduce_notional_usd: c.notional });
      return;
    case "close":
      engine.close(acct, { market: symbol, side: c.side });
      return;
    case "advance":
      clock.advance(c.ms);
      return;
    case "stall":
      engine.setFillsStalled(c.on);
      return;
    case "outage":
      engine.setPriceUnavailable(c.on);
      return;
    case "failRate":
      engine.failRate = c.rate;
      return;
  }
}

/** Resumes everything, closes whatever is open, and lets every order and maturity run out. */
function drain(engine: Engine, clock: SandboxClock): void {
  engine.setFillsStalled(false);
  engine.setPriceUnavailable(false);
  engine.failRate = 0;
  for (const acct of engine.allAccounts()) {
    for (const h of acct.hedges) if (isOpen(h)) engine.close(acct, { market: h.market, side: h.side });
  }
  clock.advance(8 * DAY);
}

test("engine: random sequences conserve money exactly and keep one open hedge per market and side", () => {
  fc.assert(
    fc.property(fc.array(command, { minLength: 10, maxLength: 80, size: "max" }), fc.integer({ min: 0, max: 1000 }), (commands, seed) => {
      const clock = new SandboxClock(() => Date.UTC(2026, 2, 1), 0);
      const engine = new Engine({ clock, accounts: ACCOUNTS, markets: MARKETS, seed, fillMs: 1_500 });
      try {
        for (const c of commands) {
          apply(engine, clock, c);
          checkInvariants(engine);
        }
        drain(engine, clock);
        checkInvariants(engine);
        for (const acct of engine.allAccounts()) {
          expect(acct.hedges.filter(isOpen)).toEqual([]);
          // Flat: the balance is exactly the starting balance plus the realized net P&L...
          expect(acct.balance).toBe(acct.startingBalance + acct.history.reduce((s, r) => s + r.net, 0));
          // ...and, as the API reports it, to the cent.
          const reported = engine.account(acct);
          const sum = engine.history(acct, { limit: 500 }).reduce((s, r) => s + r.net_pnl_usd, 0);
          expect(Math.abs(reported.balance_usdc - (acct.config.balance_usdc + sum))).toBeLessThan(0.005);
          expect(reported).toMatchObject({ margin_used_usdc: 0, exposure_usd: 0, open_positions: 0, unrealized_pnl_usd: 0 });
        }
      } finally {
        engine.dispose();
      }
    }),
    { numRuns: 500 },
  );
});

describe("over HTTP with the real client", () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start({ accounts: ACCOUNTS, markets: MARKETS, fillMs: 15 });
  });
  afterAll(() => sb.close());

  test("random sequences: one open hedge per side at every step, balance = start + Σ net_pnl_usd to the cent once flat", async () => {
    const httpCommand = command.filter((c) => c.kind !== "advance" || c.ms < DAY);
    await fc.assert(
      fc.asyncProperty(fc.array(httpCommand, { minLength: 4, maxLength: 14, size: "max" }), async (commands) => {
        sb.reset();
        const clients = KEYS.map((k) => client(sb, k, { retry: { maxAttempts: 1 } }));
        const tolerate = (e: unknown) => {
          if (!(e instanceof HedgingApiError) || ((e.status ?? 500) >= 500 && e.code !== "price_unavailable")) throw e;
        };
        for (const c of commands) {
          const cl = "who" in c ? clients[c.who] : clients[0];
          const symbol = "market" in c ? MARKETS[c.market].symbol : "USDTNGN";
          if (c.kind === "open")
            await cl
              .open({ market: symbol, side: c.side, notional_usd: c.notional, tenor_days: c.tenor, client_reference: "H" })
              .catch(tolerate);
          else if (c.kind === "add" && c.byId) {
            const [latest] = (await cl.list({ limit: 1 })).data;
            if (latest) await cl.addById(latest.id, { additional_notional_usd: c.notional }).catch(tolerate);
          } else if (c.kind === "add") await cl.add({ market: symbol, side: c.side, additional_notional_usd: c.notional }).catch(tolerate);
          else if (c.kind === "decrease")
            await cl.decrease({ market: symbol, side: c.side, reduce_notional_usd: c.notional }).catch(tolerate);
          else if (c.kind === "close") await cl.close({ market: symbol, side: c.side }).catch(tolerate);
          else if (c.kind === "advance") sb.clock.advance(c.ms);
          else if (c.kind === "stall") sb.faults.apply({ stall_fills: c.on });
          else if (c.kind === "outage") sb.faults.apply({ price_unavailable: c.on });
          else sb.faults.apply({ fail_rate: c.rate });
          for (const cl2 of clients) {
            const open = (await cl2.list({ limit: 500 })).data.filter((h) => ["submitting", "submitted", "filled"].includes(h.status));
            expect(new Set(open.map((h) => `${h.market}/${h.side}`)).size).toBe(open.length);
          }
        }
        sb.faults.clear();
        sb.faults.apply({ fail_rate: 0 });
        for (const cl of clients) {
          for (const h of (await cl.list({ limit: 500 })).data) {
            if (["submitted", "filled"].includes(h.status) && isSide(h.side))
              await cl.close({ market: h.market, side: h.side }).catch(tolerate);
          }
        }
        sb.clock.advance(8 * DAY);
        for (const [i, cl] of clients.entries()) {
          expect((await cl.positions()).data).toEqual([]);
          const account = (await cl.account()).data;
          const history = (await cl.history({ limit: 500 })).data;
          const cents = Math.round(ACCOUNTS[i].balance_usdc * 100) + history.reduce((s, r) => s + Math.round(r.net_pnl_usd * 100), 0);
          expect(Math.round(account.balance_usdc * 100)).toBe(cents);
          expect(account).toMatchObject({ margin_used_usdc: 0, exposure_usd: 0 });
        }
      }),
      { numRuns: 15 },
    );
  }, 60_000);
});
