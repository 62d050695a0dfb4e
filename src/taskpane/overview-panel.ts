// The account overview: figures, exposure bar, the rate's last hour and the markets table, fed by the shared feed hub while the pane is connected and visible.
import type { Account, Market } from "../api/schemas";
import type { FeedHub, Snapshot } from "../feeds/hub";
import { ManualVisibility, type Visibility } from "../feeds/visibility";
import { exposureBarSvg, sparklineSvg } from "./charts";
import { byId, h } from "./dom";
import { formatRate } from "./format";
import { feedStatusText, overviewModel } from "./overview-model";
import { CHART_MARKET, followOverview } from "./overview-feeds";
import { PriceHistory } from "./price-history";

export interface OverviewPanel {
  /** Starts or stops following the feeds (on connect / forget); they are followed only while the pane is visible too. */
  setConnected(connected: boolean): void;
}

/**
 * Mounts the overview. Its figures are polled only while the pane is connected and `visibility` says it can be seen:
 * hidden, it unsubscribes (nothing is polled for it); shown again, it shows the last values at once and polls what is due.
 */
export function mountOverviewPanel(
  hub: FeedHub,
  onAccount: (account: Account) => void,
  now: () => number = Date.now,
  visibility: Visibility = new ManualVisibility(true),
): OverviewPanel {
  const section = byId("overview-section");
  const figures = byId("figures");
  const exposureHost = byId("exposure");
  const sparkHost = byId("sparkline");
  const marketsBody = byId("markets-body");
  const feedLine = byId("feed-status");
  const pauseButton = byId("pause-feeds");
  const refreshButton = byId("refresh-feeds");
  const errorHost = byId("overview-error");

  const history = new PriceHistory();
  let account: Account | null = null;
  let markets: Market[] = [];

  const renderAccount = () => {
    if (!account) return;
    const model = overviewModel(account, markets);
    figures.replaceChildren(
      ...model.figures.flatMap((f) => [
        h("dt", {}, f.label),
        h("dd", { class: f.tone ? `tone-${f.tone}` : "", "data-figure": f.label }, f.value),
      ]),
    );
    exposureHost.replaceChildren(
      h("div", { class: "exposure-text" }, model.exposure.text),
      exposureBarSvg(model.exposure.used, model.exposure.cap),
      h("div", { class: "hint" }, `Headroom ${model.exposure.headroom}`),
    );
  };

  const renderMarkets = () => {
    const model = account ? overviewModel(account, markets).markets : [];
    marketsBody.replaceChildren(
      ...model.flatMap((m) => [
        h(
          "tr",
          { class: "market-row" },
          h("th", { scope: "rowgroup", colspan: 3 }, `${m.market} ${m.price}`, h("span", { class: "hint" }, ` · ${m.status}`)),
        ),
        ...m.sides.map((s) =>
          h("tr", {}, h("th", { scope: "row" }, s.side), h("td", { title: s.capacityFull }, s.capacity), h("td", {}, s.carry)),
        ),
      ]),
    );
  };

  const renderSpark = () => {
    // The last hour, or since the first reading when the pane has been open for less.
    const full = history.window(now());
    const w = { ...full, from: full.points.length ? Math.max(full.from, Math.min(full.points[0].t, full.to - 60_000)) : full.from };
    sparkHost.replaceChildren(
      h(
        "div",
        { class: "spark-head" },
        h("span", {}, `${CHART_MARKET}, last hour`),
        h("span", { class: "spark-last" }, w.points.length ? formatRate(w.points[w.points.length - 1].value) : "—"),
      ),
      sparklineSvg(CHART_MARKET, w.points, w),
    );
  };

  const showError = (snapshot: Snapshot<unknown>) => {
    const e = snapshot.error;
    errorHost.hidden = !e || e.kind === "no_key";
    errorHost.textContent = e && e.kind !== "no_key" ? `${e.code}: ${e.message}${e.advice ? ` — ${e.advice}` : ""}` : "";
  };

  pauseButton.addEventListener("click", () => {
    const paused = hub.togglePause();
    pauseButton.textContent = paused ? "Resume live data" : "Pause live data";
    pauseButton.setAttribute("aria-pressed", String(paused));
  });
  refreshButton.addEventListener("click", () => hub.refresh());
  hub.onStatus((status) => {
    feedLine.textContent = feedStatusText(status);
  });

  const feeds = followOverview(hub, visibility, {
    account(snap) {
      showError(snap);
      if (!snap.value) return;
      account = snap.value;
      renderAccount();
      renderMarkets();
      onAccount(snap.value);
    },
    markets(snap) {
      if (!snap.value) return;
      markets = snap.value;
      renderMarkets();
    },
    prices(snap) {
      const entry = snap.value?.[CHART_MARKET];
      if (entry && snap.fetchedAt !== null) history.add(snap.fetchedAt, entry.price, now());
      renderSpark();
    },
  });

  return {
    setConnected(connected) {
      section.hidden = !connected;
      feeds.setConnected(connected);
      renderSpark();
    },
  };
}
