// Hedges and their lifecycle: the checks of a trade, an open accepted then sent, adds, decreases and closes queued as orders, and the hedge list, a hedge and the history as the API reads them.
import { utcMs } from "../api/time";
import type {
  AddByIdRequest,
  AddRequest,
  AddResult,
  ClosedHedge,
  CloseRequest,
  CloseResult,
  DecreaseRequest,
  DecreaseResult,
  Hedge,
  HistoryQuery,
  ListQuery,
  OpenHedgeResult,
  OpenRequest,
  Quote,
  Side,
} from "../api/schemas";
import { LIST_LIMIT_DEFAULT } from "../api/schemas";
import { closeTolerance, expectedNotional, type HedgeBooks } from "./books";
import { DAY_MS, iso, type SandboxClock } from "./clock";
import { upfront, type Economics } from "./economics";
import { fromMicro, toMicro, type Micro } from "./money";
import type { MarketConfig } from "./pricing";
import { notionalOf, type QuoteDesk } from "./quotes";
import { fail, isClosing, isOpen, ok, type AccountState, type HedgeState, type Outcome, type PendingOrder } from "./state";
import { hedgeView, recordView } from "./views";

/** What an accepted open is waiting for: the hedge in `submitting` and the terms agreed at acceptance. */
export interface OpenTicket {
  hedge: HedgeState;
  quote: Quote;
}

/** The fill delay, read at each order's submission (the fault API changes it at run time). */
interface OrderSettings {
  fillMs: number;
}

/** Whom a trade tells: the engine's change listeners, then the scheduler (a new order may be due). */
interface TradePorts {
  changed(): void;
  pump(): void;
}

export class HedgeDesk {
  constructor(
    private readonly clock: SandboxClock,
    private readonly books: HedgeBooks,
    private readonly quotes: QuoteDesk,
    private readonly economics: Economics,
    private readonly settings: OrderSettings,
    private readonly ports: TradePorts,
  ) {}

  private configured(acct: AccountState): Outcome<true> {
    return acct.config.account_address
      ? ok(true)
      : fail("account_not_configured", "This account has no on-chain account set yet; finish its set-up before trading.");
  }

  /** Capacity, exposure and collateral checks for `notional` more on a side; returns the collateral to reserve. */
  private fundingCheck(
    acct: AccountState,
    market: MarketConfig,
    side: Side,
    notional: Micro,
  ): Outcome<{ margin: Micro; openFee: Micro; closeFee: Micro }> {
    const max = toMicro(acct.config.max_exposure_usd);
    const exposure = this.books.exposure(acct);
    const existing = this.books.openHedge(acct, market.symbol, side);
    const bounds: Array<[string, Micro]> = [
      ["max_exposure", Math.max(0, max - exposure)],
      ["market_headroom", this.quotes.marketHeadroom(acct.env, market, side)],
      ["per_hedge_limit", Math.max(0, this.quotes.perHedgeLimit(acct) - (existing ? expectedNotional(existing) : 0))],
    ];
    const [bound, available] = bounds.reduce((a, b) => (b[1] < a[1] ? b : a));
    if (notional > available) {
      return fail(
        "exposure_exceeded",
        `${fromMicro(notional)} USD more on ${market.symbol} ${side} exceeds the ${bound.replace(/_/g, " ")}; at most ${fromMicro(available)} USD can be added now.`,
        {
          available_headroom_usd: fromMicro(available),
          limit: bound,
          exposure_usd: fromMicro(exposure),
          max_exposure_usd: fromMicro(max),
        },
      );
    }
    const costs = upfront(this.economics, notional);
    const required = costs.margin + costs.openFee + costs.closeFee;
    if (required > acct.balance) {
      return fail(
        "insufficient_collateral",
        `Opening ${fromMicro(notional)} USD needs ${fromMicro(required)} USDC of collateral; the free balance is ${fromMicro(acct.balance)} USDC.`,
        {
          required_usdc: fromMicro(required),
          balance_usdc: fromMicro(acct.balance),
        },
      );
    }
    return ok(costs);
  }

  /** Accepts an open: the hedge exists in `submitting` with its collateral reserved; `submitOpen` sends the order. */
  beginOpen(acct: AccountState, req: OpenRequest): Outcome<OpenTicket> {
    const notional = notionalOf(req.notional_usd, "notional_usd");
    if (!notional.ok) return notional;
    const configured = this.configured(acct);
    if (!configured.ok) return configured;
    const market = this.quotes.tradable(acct, req.market);
    if (!market.ok) return market;
    const price = this.quotes.priceCheck();
    if (!price.ok) return price;
    const existing = this.books.openHedge(acct, req.market, req.side);
    if (existing) {
      return fail(
        "hedge_exists",
        `Hedge ${existing.id} is already open on ${req.market} ${req.side}; add to it, or settle it before opening another.`,
        {
          hedge_id: existing.id,
        },
      );
    }
    const funding = this.fundingCheck(acct, market.data, req.side, notional.data);
    if (!funding.ok) return funding;
    const now = this.clock.now();
    const { margin, openFee, closeFee } = funding.data;
    acct.balance -= margin + openFee + closeFee;
    const hedge: HedgeState = {
      id: this.books.hedgeId(),
      seq: this.books.nextSeq(),
      owner: acct.config.api_key,
      clientReference: req.client_reference ?? null,
      market: req.market,
      side: req.side,
      tenorDays: req.tenor_days,
      status: "submitting",
      notional: notional.data,
      margin,
      openFee,
      closeFee,
      entry: null,
      orderTx: null,
      fillTx: null,
      orderKey: this.books.txHash(),
      openedAt: now,
      filledAt: null,
      maturityAt: now + req.tenor_days * DAY_MS,
      closedAt: null,
      carry: 0,
      carryFrom: now,
      lastEventAt: now,
      orders: [],
    };
    acct.hedges.push(hedge);
    this.books.track(hedge);
    const quote = this.quotes.quoteAt(market.data, req.side, notional.data, req.tenor_days, now);
    this.ports.changed();
    return ok({ hedge, quote });
  }

  /** Sends the create-order of an accepted open: `submitting` → `submitted`; the fill follows after `fillMs`. */
  submitOpen(ticket: OpenTicket): OpenHedgeResult {
    const h = ticket.hedge;
    if (h.status === "submitting") {
      const now = this.clock.now();
      h.orderTx = this.books.txHash();
      h.status = "submitted";
      h.orders.unshift({
        kind: "open",
        orderTx: h.orderTx,
        submittedAt: now,
        dueAt: now + this.settings.fillMs,
        notional: h.notional,
        margin: 0,
        openFee: 0,
        closeFee: 0,
      });
      this.ports.changed();
      this.ports.pump();
    }
    return {
      status: "submitted",
      order_tx_hash: h.orderTx,
      hedge_id: h.id,
      client_reference: h.clientReference,
      collateral_usdc: ticket.quote.upfront.total_upfront_usdc,
      maturity_at: iso(h.maturityAt),
      quote: ticket.quote,
    };
  }

  private tradeChecks(acct: AccountState, symbol: string): Outcome<MarketConfig> {
    const configured = this.configured(acct);
    if (!configured.ok) return configured;
    const market = this.quotes.tradable(acct, symbol);
    if (!market.ok) return market;
    const price = this.quotes.priceCheck();
    return price.ok ? market : price;
  }

  private liveHedge(acct: AccountState, market: string, side: Side, action: string): Outcome<HedgeState> {
    const h = this.books.openHedge(acct, market, side);
    if (!h) return fail("no_open_hedge", `There is no open hedge on ${market} ${side} to ${action}.`);
    if (isClosing(h))
      return fail("no_open_hedge", `The hedge on ${market} ${side} (${h.id}) is being closed; there is nothing left to ${action}.`, {
        hedge_id: h.id,
      });
    return ok(h);
  }

  add(acct: AccountState, req: AddRequest): Outcome<AddResult> {
    const notional = notionalOf(req.additional_notional_usd, "additional_notional_usd");
    if (!notional.ok) return notional;
    const market = this.tradeChecks(acct, req.market);
    if (!market.ok) return market;
    const h = this.liveHedge(acct, req.market, req.side, "add to");
    if (!h.ok) return h;
    return this.addTo(acct, market.data, h.data, notional.data);
  }

  addById(acct: AccountState, hedgeId: string, req: AddByIdRequest): Outcome<AddResult> {
    const notional = notionalOf(req.additional_notional_usd, "additional_notional_usd");
    if (!notional.ok) return notional;
    const configured = this.configured(acct);
    if (!configured.ok) return configured;
    const h = this.books.byId.get(hedgeId);
    if (!h || h.owner !== acct.config.api_key) return fail("hedge_not_found", `No hedge ${hedgeId} on this account.`);
    if (!isOpen(h) || isClosing(h)) {
      return fail("hedge_not_open", `Hedge ${hedgeId} is ${isOpen(h) ? "being closed" : h.status}, so it cannot be added to.`, {
        hedge_id: h.id,
        status: h.status,
      });
    }
    const market = this.tradeChecks(acct, h.market);
    if (!market.ok) return market;
    return this.addTo(acct, market.data, h, notional.data);
  }

  private addTo(acct: AccountState, market: MarketConfig, h: HedgeState, notional: Micro): Outcome<AddResult> {
    const funding = this.fundingCheck(acct, market, h.side, notional);
    if (!funding.ok) return funding;
    const { margin, openFee, closeFee } = funding.data;
    const order = this.enqueue(h, { kind: "add", notional, margin, openFee, closeFee });
    acct.balance -= margin + openFee + closeFee;
    this.ports.changed();
    this.ports.pump();
    return ok({
      status: "submitted",
      order_tx_hash: order.orderTx,
      hedge_id: h.id,
      market: h.market,
      side: h.side,
      additional_notional_usd: fromMicro(notional),
      collateral_usdc: fromMicro(margin + openFee + closeFee),
      new_notional_usd: fromMicro(expectedNotional(h)),
      maturity_at: iso(h.maturityAt),
    });
  }

  decrease(acct: AccountState, req: DecreaseRequest): Outcome<DecreaseResult> {
    const requested = notionalOf(req.reduce_notional_usd, "reduce_notional_usd");
    if (!requested.ok) return requested;
    const market = this.tradeChecks(acct, req.market);
    if (!market.ok) return market;
    const found = this.liveHedge(acct, req.market, req.side, "reduce");
    if (!found.ok) return found;
    const h = found.data;
    const expected = expectedNotional(h);
    const reduced = Math.min(requested.data, expected);
    const full = expected - reduced < closeTolerance(expected);
    const order = this.enqueue(h, { kind: "decrease", notional: full ? expected : reduced, full });
    this.ports.changed();
    this.ports.pump();
    return ok({
      status: "submitted",
      order_tx_hash: order.orderTx,
      hedge_id: h.id,
      market: h.market,
      side: h.side,
      reduced_notional_usd: fromMicro(full ? expected : reduced),
      new_notional_usd: full ? 0 : fromMicro(expected - reduced),
      maturity_at: iso(h.maturityAt),
    });
  }

  close(acct: AccountState, req: CloseRequest): Outcome<CloseResult> {
    const market = this.tradeChecks(acct, req.market);
    if (!market.ok) return market;
    const found = this.liveHedge(acct, req.market, req.side, "close");
    if (!found.ok) return found;
    const order = this.enqueue(found.data, { kind: "close", notional: 0 });
    this.ports.changed();
    this.ports.pump();
    return ok({ status: "submitted", order_tx_hash: order.orderTx, hedge_id: found.data.id, market: req.market, side: req.side });
  }

  private enqueue(h: HedgeState, order: Pick<PendingOrder, "kind" | "notional"> & Partial<PendingOrder>): PendingOrder {
    const now = this.clock.now();
    const full: PendingOrder = {
      margin: 0,
      openFee: 0,
      closeFee: 0,
      ...order,
      orderTx: this.books.txHash(),
      submittedAt: now,
      dueAt: now + this.settings.fillMs,
    };
    h.orders.push(full);
    return full;
  }

  // ---------------------------------------------------------------- reading hedges

  listHedges(acct: AccountState, query: ListQuery): Hedge[] {
    const limit = query.limit ?? LIST_LIMIT_DEFAULT;
    const out: Hedge[] = [];
    // starting_after: the page after that hedge (newest first); an id this account does not have lists nothing.
    let from = acct.hedges.length - 1;
    if (query.starting_after !== undefined) from = acct.hedges.findIndex((h) => h.id === query.starting_after) - 1;
    for (let i = from; i >= 0 && out.length < limit; i--) {
      const h = acct.hedges[i];
      if (query.status && h.status !== query.status) continue;
      if (query.client_reference !== undefined && h.clientReference !== query.client_reference) continue;
      out.push(hedgeView(h));
    }
    return out;
  }

  getHedge(acct: AccountState, hedgeId: string): Outcome<Hedge> {
    const h = this.books.byId.get(hedgeId);
    if (!h || h.owner !== acct.config.api_key) return fail("hedge_not_found", `No hedge ${hedgeId} on this account.`);
    return ok(hedgeView(h));
  }

  history(acct: AccountState, query: HistoryQuery): ClosedHedge[] {
    const from = query.from ? utcMs(query.from) : -Infinity;
    const to = query.to ? utcMs(query.to) : Infinity;
    const limit = query.limit ?? LIST_LIMIT_DEFAULT;
    return acct.history
      .filter((r) => r.closedAt >= from && r.closedAt < to)
      .sort((a, b) => b.closedAt - a.closedAt || b.seq - a.seq)
      .slice(0, limit)
      .map(recordView);
  }
}
