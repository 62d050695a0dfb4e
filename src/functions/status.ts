// HEDGE.STATUS: the hub's status as a two-column spill (never the key).
import type { FeedStatus } from "../feeds/hub";
import { serialFromMs, type Spill } from "./cells";

export const STATUS_FIELDS = [
  "environment",
  "connected",
  "reason",
  "last_update",
  "requests_last_minute",
  "paused",
  "active_feeds",
] as const;

export function statusSpill(status: FeedStatus): Spill {
  return [
    ["environment", status.environment],
    ["connected", status.connected],
    ["reason", status.reason],
    ["last_update", status.lastSuccessAt === null ? "" : serialFromMs(status.lastSuccessAt)],
    ["requests_last_minute", status.requestsInLastMinute],
    ["paused", status.paused],
    ["active_feeds", status.activeTopics],
  ];
}
