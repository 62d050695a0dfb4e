// The engine's shared books, which every room of it reads: the accounts, every hedge by id, the open ones (one per account, market and side), the sequence and the ids it mints, and the exposure they add up to.
import type { Environment } from "../api/environment";
import type { Side } from "../api/schemas";
import { AccountBook } from "./account-book";
import { MICRO_PER_USD, type Micro } from "./money";
import type { MarketConfig } from "./pricing";
import { isClosing, isOpen, type AccountState, type HedgeState } from "./state";

/** A reduction leaving less than this is "roughly the whole position": it closes the hedge. */
export function closeTolerance(notional: Micro): Micro {
  return Math.max(MICRO_PER_USD, Math.round(notional / 1000));
}

/** Notional a hedge will have once its queued orders fill (0 when it is closing). */
export function expectedNotional(h: HedgeState): Micro {
  if (isClosing(h)) return 0;
  let n = h.notional;
  for (const o of h.orders) {
    if (o.kind === "add") n += o.notional;
    if (o.kind === "decrease") n = Math.max(0, n - o.notional);
  }
  return n;
}

/** Exposure a hedge holds against caps: filled notional plus queued adds. */
function reservedNotional(h: HedgeState): Micro {
  let n = h.notional;
  for (const o of h.orders) if (o.kind === "add") n += o.notional;
  return n;
}

function openKey(owner: string, market: string, side: Side): string {
  return `${owner}\n${market}\n${side}`;
}

export class HedgeBooks {
  readonly accounts = new AccountBook();
  readonly byId = new Map<string, HedgeState>();
  /** Hedges with something still to happen (an order to fill, a maturity): the scheduler's queue. */
  readonly active = new Set<HedgeState>();
  private readonly openIndex = new Map<string, HedgeState>();
  /** The last sequence number given to a hedge or a closed-hedge record. */
  seq = 0;

  constructor(
    readonly markets: ReadonlyMap<string, MarketConfig>,
    /** Source of hedge ids and transaction hashes (hex of n random bytes). */
    private readonly hex: (bytes: number) => string,
  ) {}

  nextSeq(): number {
    return ++this.seq;
  }

  hedgeId(): string {
    return `hdg_${this.hex(12)}`;
  }

  txHash(): string {
    return `0x${this.hex(32)}`;
  }

  /** Files a hedge (a new one, or one restored from the state file); an open one becomes its side's open hedge. */
  track(h: HedgeState): void {
    this.byId.set(h.id, h);
    if (!isOpen(h)) return;
    this.active.add(h);
    this.openIndex.set(openKey(h.owner, h.market, h.side), h);
  }

  /** A hedge that ended (failed or closed): off the queue, and its side free for the next open. */
  retire(h: HedgeState): void {
    this.active.delete(h);
    const key = openKey(h.owner, h.market, h.side);
    if (this.openIndex.get(key) === h) this.openIndex.delete(key);
  }

  openHedge(acct: AccountState, market: string, side: Side): HedgeState | undefined {
    return this.openIndex.get(openKey(acct.config.api_key, market, side));
  }

  ownerOf(h: HedgeState): AccountState {
    const acct = this.accounts.byOwnKey(h.owner);
    if (!acct) throw new Error(`hedge ${h.id} has no account`);
    return acct;
  }

  marketOf(h: HedgeState): MarketConfig {
    const market = this.markets.get(h.market);
    if (!market) throw new Error(`hedge ${h.id} is on unknown market ${h.market}`);
    return market;
  }

  /** Reserved notional of every open hedge on a market side, over all accounts of an environment. */
  openInterest(env: Environment, market: string, side: Side): Micro {
    let total = 0;
    for (const h of this.active) {
      if (h.market === market && h.side === side && this.accounts.byOwnKey(h.owner)?.env === env) total += reservedNotional(h);
    }
    return total;
  }

  /** An account's exposure against its cap: the reserved notional of its open hedges. */
  exposure(acct: AccountState): Micro {
    let total = 0;
    for (const h of acct.hedges) if (isOpen(h)) total += reservedNotional(h);
    return total;
  }

  /** Forgets every hedge (the accounts are the account book's to clear). */
  clearHedges(): void {
    this.byId.clear();
    this.active.clear();
    this.openIndex.clear();
  }
}
