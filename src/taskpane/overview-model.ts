// View model of the account overview: account figures, exposure against the cap, markets per side, and the live-data status line.
import type { Account, Market } from "../api/schemas";
import type { FeedStatus } from "../feeds/feed-status";
import { formatCompact, formatPct, formatRate, formatSignedUsd, formatUsd, formatUsdc, formatUtc } from "./format";

interface Figure {
  label: string;
  value: string;
  /** Tone for signed figures. */
  tone?: "positive" | "negative";
}

interface MarketRow {
  market: string;
  status: string;
  price: string;
  sides: { side: "buy" | "sell"; capacity: string; capacityFull: string; carry: string }[];
}

interface OverviewModel {
  address: string;
  figures: Figure[];
  exposure: { used: number; cap: number; headroom: string; text: string };
  markets: MarketRow[];
}

function tone(value: number): Figure["tone"] {
  return value > 0 ? "positive" : value < 0 ? "negative" : undefined;
}

export function overviewModel(account: Account, markets: readonly Market[]): OverviewModel {
  return {
    address: account.account_address ?? "no on-chain address yet",
    figures: [
      { label: "Balance", value: formatUsdc(account.balance_usdc) },
      { label: "Margin used", value: formatUsdc(account.margin_used_usdc) },
      { label: "Unrealized P&L", value: formatSignedUsd(account.unrealized_pnl_usd), tone: tone(account.unrealized_pnl_usd) },
      { label: "Open positions", value: String(account.open_positions) },
    ],
    exposure: {
      used: account.exposure_usd,
      cap: account.max_exposure_usd,
      headroom: formatUsd(account.available_exposure_usd),
      text: `${formatUsd(account.exposure_usd)} of ${formatUsd(account.max_exposure_usd)}`,
    },
    markets: markets.map((m) => ({
      market: m.market,
      status: m.status,
      price: formatRate(m.price),
      sides: (["buy", "sell"] as const).map((side) => ({
        side,
        capacity: formatCompact(m.available_capacity_usd[side]),
        capacityFull: formatUsd(m.available_capacity_usd[side]),
        carry: `${formatPct(m.net_rate_daily_pct[side])}/day`,
      })),
    })),
  };
}

/** One line about the live data: connected or not, paused, requests in the last minute and the rate allowed, last error. */
export function feedStatusText(status: FeedStatus): string {
  if (status.environment === "none") return "Live data: no API key.";
  const state = status.paused ? "paused" : status.connected ? "updating" : `not connected${status.reason ? ` (${status.reason})` : ""}`;
  const last = status.lastSuccessAt ? `, last answer ${formatUtc(status.lastSuccessAt).slice(11)}` : "";
  const limited = status.rateLimitedInLastMinute > 0 ? `, ${status.rateLimitedInLastMinute} refused (429)` : "";
  return `Live data ${state}${last}; ${status.requestsInLastMinute} requests in the last minute${limited}, up to ${status.ratePerSecond}/s.`;
}
