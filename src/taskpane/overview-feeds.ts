// The overview's feeds: the account, the markets, the chart's prices and the positions (for the maturities), subscribed only while the pane is connected and can be seen.
import type { Account, Market, Position, Prices } from "../api/schemas";
import type { FeedHub } from "../feeds/hub";
import type { Snapshot } from "../feeds/topic";
import { accountTopic, marketsTopic, positionsTopic, pricesTopic } from "../feeds/topics";
import type { Visibility } from "../feeds/visibility";

/** The market drawn in the sparkline (the only one the service names). */
export const CHART_MARKET = "USDTNGN";

interface OverviewListeners {
  account(snapshot: Snapshot<Account>): void;
  markets(snapshot: Snapshot<Market[]>): void;
  prices(snapshot: Snapshot<Prices>): void;
  /** The maturities list: GET /positions, the same topic (one poll) as =HEDGE.POSITIONS cells. */
  positions?(snapshot: Snapshot<Position[]>): void;
}

interface OverviewFeeds {
  /** On connect / forget. */
  setConnected(connected: boolean): void;
  /** Subscribed now (connected and visible). */
  readonly following: boolean;
  /** Stops following for good. */
  dispose(): void;
}

/**
 * Follows the overview's topics (three, four with `positions`) while connected and visible. Hidden, it unsubscribes: nothing is polled for the
 * pane (the hub aborts a poll only the pane was waiting for). Shown again, the listeners get the last values at once and
 * every topic whose interval has passed is asked at once.
 */
export function followOverview(hub: FeedHub, visibility: Visibility, listeners: OverviewListeners): OverviewFeeds {
  let connected = false;
  let unsubscribe: Array<() => void> = [];
  const follow = () => {
    for (const u of unsubscribe) u();
    unsubscribe = [];
    if (!connected || !visibility.visible) return;
    unsubscribe = [
      hub.subscribe(accountTopic(), (s: Snapshot<Account>) => listeners.account(s)),
      hub.subscribe(marketsTopic(), (s: Snapshot<Market[]>) => listeners.markets(s)),
      hub.subscribe(pricesTopic(CHART_MARKET), (s: Snapshot<Prices>) => listeners.prices(s)),
    ];
    const positions = listeners.positions;
    if (positions) unsubscribe.push(hub.subscribe(positionsTopic(), (s: Snapshot<Position[]>) => positions(s)));
  };
  const stopListening = visibility.onChange(follow);
  return {
    setConnected(next) {
      connected = next;
      follow();
    },
    get following() {
      return unsubscribe.length > 0;
    },
    dispose() {
      stopListening();
      connected = false;
      follow();
    },
  };
}
