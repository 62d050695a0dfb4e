// HEDGE.STATUS: the hub's status as a two-column spill (never the key), the client's learned request rate and its 429s included.
import type { FeedStatus } from "../feeds/feed-status";
import { serialFromMs, type Spill } from "./cells";

export function statusSpill(status: FeedStatus): Spill {
  return [
    ["environment", status.environment],
    ["connected", status.connected],
    ["reason", status.reason],
    ["last_update", status.lastSuccessAt === null ? "" : serialFromMs(status.lastSuccessAt)],
    ["requests_last_minute", status.requestsInLastMinute],
    ["paused", status.paused],
    ["active_feeds", status.activeTopics],
    ["rate_per_second", status.ratePerSecond],
    ["rate_limited_last_minute", status.rateLimitedInLastMinute],
  ];
}
