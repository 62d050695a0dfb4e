// The sandbox's state as GET /_sandbox/state shows it to tests: settings, markets, and every account with its balances, hedges (and their pending orders) and history, keys whole.
import { iso } from "./clock";
import type { Engine } from "./engine";
import { fromMicro } from "./money";
import { hedgeView, recordView } from "./views";

/** A readable dump of the engine's internals for tests (GET /_sandbox/state; the control token keeps it from others). */
export function stateDump(engine: Engine): Record<string, unknown> {
  const now = engine.clock.now();
  return {
    now: iso(now),
    seed: engine.seed,
    price_origin: iso(engine.priceOriginMs),
    fill_ms: engine.fillMs,
    fail_rate: engine.failRate,
    fills_stalled: engine.fillsStalled,
    price_unavailable: engine.priceUnavailable,
    economics: engine.economics,
    markets: [...engine.markets.values()],
    accounts: engine.allAccounts().map((a) => ({
      api_key: a.config.api_key,
      environment: a.env,
      starting_balance_usdc: fromMicro(a.startingBalance),
      balance_usdc: fromMicro(a.balance),
      realized_net_pnl_usd: fromMicro(a.history.reduce((s, r) => s + r.net, 0)),
      hedges: a.hedges.map((h) => ({
        ...hedgeView(h),
        margin_usdc: fromMicro(h.margin),
        reserved_fees_usdc: fromMicro(h.openFee + h.closeFee),
        pending_orders: h.orders.map((o) => ({
          kind: o.kind,
          order_tx_hash: o.orderTx,
          notional_usd: fromMicro(o.notional),
          submitted_at: iso(o.submittedAt),
          due_at: iso(o.dueAt),
        })),
      })),
      history: a.history.map(recordView),
    })),
  };
}
