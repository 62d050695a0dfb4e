// Positions and settlement: an order's fill (or an open's failure), maturity, realized P&L, carry and collateral back to the balance, the closed-hedge records, and the account and positions views that mark what is still open.
import type { Account, Position } from "../api/schemas";
import { SIDES } from "../api/schemas";
import { closeTolerance, type HedgeBooks } from "./books";
import { executionPrice, pricePnl, type Economics } from "./economics";
import { fromMicro, proportion, toMicro, type Micro } from "./money";
import type { QuoteDesk } from "./quotes";
import { SeededRandom } from "./random";
import { isOpen, type AccountState, type ClosedRecord, type ExitType, type HedgeState } from "./state";
import { accruedCarry, positionView, unrealizedPnl } from "./views";

/** The open failure probability, read at each open's fill (the fault API changes it at run time). */
interface FillSettings {
  failRate: number;
}

export class Settlement {
  private rng: SeededRandom;

  constructor(
    private readonly books: HedgeBooks,
    private readonly quotes: QuoteDesk,
    private readonly economics: Economics,
    private readonly settings: FillSettings,
    rngState: number,
    /** Releases what a hedge's queued orders reserved and drops them (the engine's seam, Engine.dropOrders). */
    private readonly dropOrders: (h: HedgeState, acct: AccountState) => void,
  ) {
    this.rng = new SeededRandom(rngState);
  }

  /** The state of the fill-failure draws, for `--state`. */
  get rngState(): number {
    return this.rng.state;
  }

  /** The fill-failure draws start again from `seed` (reset). */
  reseed(seed: number): void {
    this.rng = new SeededRandom(seed);
  }

  /** Fills a hedge's first queued order at `time` (an open may fail instead). */
  fillOrder(h: HedgeState, time: number): void {
    const order = h.orders.shift();
    if (!order) return;
    h.lastEventAt = time;
    const market = this.books.marketOf(h);
    const mid = this.quotes.midAt(h.market, time);
    switch (order.kind) {
      case "open": {
        // One draw per open fill, whatever the rate, so that a run is reproducible for a given seed.
        if (this.rng.next() < this.settings.failRate) {
          this.failOpen(h);
          return;
        }
        h.entry = executionPrice(this.economics, market, h.side, h.notional, mid);
        h.status = "filled";
        h.fillTx = this.books.txHash();
        h.filledAt = time;
        return;
      }
      case "add": {
        this.accrueCarry(h, time);
        const price = executionPrice(this.economics, market, h.side, order.notional, mid);
        const entry = h.entry ?? price;
        h.entry = (h.notional * entry + order.notional * price) / (h.notional + order.notional);
        h.notional += order.notional;
        h.margin += order.margin;
        h.openFee += order.openFee;
        h.closeFee += order.closeFee;
        return;
      }
      case "decrease": {
        const reduce = Math.min(order.notional, h.notional);
        if (order.full || h.notional - reduce < closeTolerance(h.notional)) {
          this.settle(h, time, "decrease", executionPrice(this.economics, market, h.side, h.notional, mid, false));
        } else {
          this.reducePartly(h, time, reduce, executionPrice(this.economics, market, h.side, reduce, mid, false));
        }
        return;
      }
      case "close":
        this.settle(h, time, "close", executionPrice(this.economics, market, h.side, h.notional, mid, false));
        return;
    }
  }

  settleAtMaturity(h: HedgeState, time: number): void {
    h.lastEventAt = time;
    // Settles at the mid of the maturity time: a fixing, with no impact.
    this.settle(h, time, "maturity", this.quotes.midAt(h.market, time));
  }

  private failOpen(h: HedgeState): void {
    const acct = this.books.ownerOf(h);
    acct.balance += h.margin + h.openFee + h.closeFee;
    h.margin = h.openFee = h.closeFee = 0;
    h.status = "failed";
    this.dropOrders(h, acct);
    this.books.retire(h);
  }

  private accrueCarry(h: HedgeState, time: number): void {
    const until = Math.min(time, h.maturityAt);
    if (until <= h.carryFrom) return;
    h.carry = accruedCarry(h, this.books.marketOf(h), until);
    h.carryFrom = until;
  }

  /** Closes the whole hedge at `exit`: realizes price P&L, carry and both fees, returns margin and P&L to the balance. */
  private settle(h: HedgeState, time: number, exitType: ExitType, exit: number): void {
    const acct = this.books.ownerOf(h);
    this.accrueCarry(h, time);
    const entry = h.entry ?? exit;
    const gross = pricePnl(h.side, h.notional, entry, exit);
    const fees = h.openFee + h.closeFee;
    const net = gross + h.carry - fees;
    acct.balance += h.margin + fees + net;
    this.record(acct, h, {
      size: h.notional,
      collateral: h.margin + fees,
      entry,
      exit,
      closedAt: time,
      exitType,
      gross,
      carry: h.carry,
      fees,
      net,
    });
    h.margin = h.openFee = h.closeFee = 0;
    h.carry = 0;
    h.status = "closed";
    h.closedAt = time;
    this.dropOrders(h, acct);
    this.books.retire(h);
  }

  /** Removes `reduce` of the notional: margin, fees and carry leave in proportion; realized P&L goes to the balance. */
  private reducePartly(h: HedgeState, time: number, reduce: Micro, exit: number): void {
    const acct = this.books.ownerOf(h);
    this.accrueCarry(h, time);
    const entry = h.entry ?? exit;
    const gross = pricePnl(h.side, reduce, entry, exit);
    const margin = proportion(h.margin, reduce, h.notional);
    const openFee = proportion(h.openFee, reduce, h.notional);
    const closeFee = proportion(h.closeFee, reduce, h.notional);
    const carry = proportion(h.carry, reduce, h.notional);
    const fees = openFee + closeFee;
    const net = gross + carry - fees;
    acct.balance += margin + fees + net;
    this.record(acct, h, {
      size: reduce,
      collateral: margin + fees,
      entry,
      exit,
      closedAt: time,
      exitType: "decrease",
      gross,
      carry,
      fees,
      net,
    });
    h.notional -= reduce;
    h.margin -= margin;
    h.openFee -= openFee;
    h.closeFee -= closeFee;
    h.carry -= carry;
  }

  private record(
    acct: AccountState,
    h: HedgeState,
    r: Omit<ClosedRecord, "seq" | "hedgeId" | "clientReference" | "market" | "side" | "openedAt">,
  ): void {
    acct.history.push({
      seq: this.books.nextSeq(),
      hedgeId: h.id,
      clientReference: h.clientReference,
      market: h.market,
      side: h.side,
      openedAt: h.openedAt,
      ...r,
    });
  }

  // ---------------------------------------------------------------- what is open, marked

  account(acct: AccountState, now: number): Account {
    let marginUsed = 0;
    let unrealized = 0;
    let positions = 0;
    for (const h of acct.hedges) {
      if (!isOpen(h)) continue;
      marginUsed += h.margin + h.openFee + h.closeFee;
      for (const o of h.orders) marginUsed += o.margin + o.openFee + o.closeFee;
      if (h.status === "filled") {
        positions++;
        const market = this.books.markets.get(h.market);
        if (market) unrealized += unrealizedPnl(h, market, this.quotes.mark(h.market, now), now);
      }
    }
    const exposure = this.books.exposure(acct);
    const max = toMicro(acct.config.max_exposure_usd);
    return {
      account_address: acct.config.account_address,
      balance_usdc: fromMicro(acct.balance),
      margin_used_usdc: fromMicro(marginUsed),
      exposure_usd: fromMicro(exposure),
      unrealized_pnl_usd: fromMicro(unrealized),
      open_positions: positions,
      max_exposure_usd: fromMicro(max),
      available_exposure_usd: fromMicro(Math.max(0, max - exposure)),
    };
  }

  positions(acct: AccountState, now: number): Position[] {
    const lines: Position[] = [];
    for (const h of acct.hedges) {
      const market = this.books.markets.get(h.market);
      if (h.status === "filled" && market) lines.push(positionView(h, market, this.quotes.mark(h.market, now), now));
    }
    return lines.sort((a, b) =>
      a.market === b.market
        ? (SIDES as readonly string[]).indexOf(a.side) - (SIDES as readonly string[]).indexOf(b.side)
        : a.market < b.market
          ? -1
          : 1,
    );
  }
}
