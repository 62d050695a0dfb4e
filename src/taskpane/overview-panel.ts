// The account overview: figures, exposure bar, every maturity with its plan and a timeline of them (with Propose), the rate's last hour and the markets table, fed by the shared feed hub while the pane is connected and visible.
import type { Account, Market, Position, Quote, QuoteRequest } from "../api/schemas";
import { quoteTopic } from "../feeds/topics";
import { quoteKey as questionKey } from "../policy/rollcost";
import type { FeedHub } from "../feeds/hub";
import type { Snapshot } from "../feeds/topic";
import { ManualVisibility, type Visibility } from "../feeds/visibility";
import { byId, h } from "./dom";
import { formatRate } from "./format";
import { MaturityWatch, type MaturityItem } from "./maturities-model";
import { feedStatusText, overviewModel } from "./overview-model";
import { CHART_MARKET, followOverview } from "./overview-feeds";
import { PriceHistory } from "./price-history";

interface OverviewPanel {
  /** Starts or stops following the feeds (on connect / forget); they are followed only while the pane is visible too. */
  setConnected(connected: boolean): void;
  /** Shows the maturities again (after a proposal changed what the watch knows). */
  renderMaturities(): void;
}

/** The maturities list: what it remembers, and what Propose beside a side does. */
interface MaturityOptions {
  watch: MaturityWatch;
  onPropose(item: MaturityItem): void;
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
  maturities: MaturityOptions = { watch: new MaturityWatch(), onPropose: () => undefined },
): OverviewPanel {
  const section = byId("overview-section");
  const view = overviewView(now);
  wireFeedControls(hub);
  let account: Account | null = null;
  let markets: Market[] = [];
  let positions: Position[] | null = null;
  const plans = planQuotes(
    hub,
    () => (feeds.following && positions ? maturities.watch.questions(positions) : []),
    () => draw(),
  );
  const draw = () =>
    view.renderMaturities(positions && maturities.watch.items(positions, now(), plans.quoteOf), maturities.onPropose, now());
  const followQuotes = plans.follow;
  const renderMaturities = () => {
    followQuotes();
    draw();
  };

  const feeds = followOverview(hub, visibility, {
    account(snap) {
      view.showError(snap);
      if (!snap.value) return;
      account = snap.value;
      view.renderAccount(account, markets);
      view.renderMarkets(account, markets);
      onAccount(snap.value);
    },
    markets(snap) {
      if (!snap.value) return;
      markets = snap.value;
      view.renderMarkets(account, markets);
    },
    prices(snap) {
      const entry = snap.value?.[CHART_MARKET];
      if (entry && snap.fetchedAt !== null) view.history.add(snap.fetchedAt, entry.price, now());
      view.renderSpark();
    },
    positions(snap) {
      if (!snap.value) return;
      positions = snap.value;
      renderMaturities();
    },
  });

  visibility.onChange(followQuotes); // hidden: the plans' quotes are not polled either

  return {
    setConnected(connected) {
      section.hidden = !connected;
      feeds.setConnected(connected);
      followQuotes();
      view.renderSpark();
    },
    renderMaturities,
  };
}

/** The overview's parts on the page: figures and exposure, the markets table, the maturities, the sparkline of the rate's last hour, the error line. */
function overviewView(now: () => number) {
  const history = new PriceHistory();
  const draw = chartDrawer();
  return {
    history,
    renderAccount: accountView(draw),
    renderMarkets: marketsView(),
    renderMaturities: maturitiesView(draw),
    renderSpark: sparkView(history, now, draw),
    showError: errorView(),
  };
}

/** Draws a chart once the charts' chunk is loaded (chartDrawer). */
type Draw = ReturnType<typeof chartDrawer>;

/** The account's figures and the exposure bar. */
function accountView(draw: Draw) {
  const figures = byId("figures");
  const exposureHost = byId("exposure");
  return (account: Account, markets: Market[]): void => {
    const model = overviewModel(account, markets);
    figures.replaceChildren(
      ...model.figures.flatMap((f) => [
        h("dt", {}, f.label),
        h("dd", { class: f.tone ? `tone-${f.tone}` : "", "data-figure": f.label }, f.value),
      ]),
    );
    const bar = h("span", { class: "chart-slot" });
    exposureHost.replaceChildren(
      h("div", { class: "exposure-text" }, model.exposure.text),
      bar,
      h("div", { class: "hint" }, `Headroom ${model.exposure.headroom}`),
    );
    draw("exposure", (charts) => bar.replaceWith(charts.exposureBarSvg(model.exposure.used, model.exposure.cap)));
  };
}

/** The markets table: each market's price and status, then each side's capacity and carry. */
function marketsView() {
  const marketsBody = byId("markets-body");
  return (account: Account | null, markets: Market[]): void => {
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
}

/** Every open hedge's maturity with its plan, and the sides flat since a maturity, each with Propose; a timeline of them; null before the first positions. */
function maturitiesView(draw: Draw) {
  const maturitiesList = byId("maturities-list");
  const timelineHost = byId("maturities-timeline");
  // What the list shows: redrawn only when it changes, so a poll does not take the focus off a Propose button.
  let maturitiesShown: string | null = null;
  return (items: MaturityItem[] | null, onPropose: (item: MaturityItem) => void, nowMs: number): void => {
    const signature = JSON.stringify(items?.map((i) => [i.text, i.planText]) ?? null);
    if (signature === maturitiesShown) return;
    maturitiesShown = signature;
    const slot = h("span", { class: "chart-slot" });
    timelineHost.replaceChildren(slot);
    const dots = (items ?? []).filter((i) => i.kind === "maturing");
    if (dots.length) draw("timeline", (charts) => slot.replaceWith(charts.maturityTimelineSvg(dots, nowMs)));
    if (!items) return maturitiesList.replaceChildren(h("li", { class: "hint" }, "Reading the positions…"));
    if (items.length === 0) return maturitiesList.replaceChildren(h("li", { class: "hint" }, "No open hedge."));
    maturitiesList.replaceChildren(
      ...items.map((item) => {
        const button = h("fluent-button", { type: "button", size: "small", "data-propose": `${item.market}|${item.side}` }, "Propose");
        button.setAttribute("aria-label", `Propose for ${item.market} ${item.side}`);
        button.addEventListener("click", () => onPropose(item));
        return h(
          "li",
          { class: `maturity ${item.kind}`, "data-kind": item.kind, "data-side": `${item.market}|${item.side}` },
          h("span", {}, item.text),
          button,
          ...(item.planText ? [h("div", { class: "plan", "data-plan": item.plan?.mode ?? "none" }, item.planText)] : []),
        );
      }),
    );
  };
}

/** The sparkline of the chart market's rate over the last hour, with its last value. */
function sparkView(history: PriceHistory, now: () => number, draw: Draw) {
  const sparkHost = byId("sparkline");
  return (): void => {
    // The last hour, or since the first reading when the pane has been open for less.
    const full = history.window(now());
    const w = { ...full, from: full.points.length ? Math.max(full.from, Math.min(full.points[0].t, full.to - 60_000)) : full.from };
    const line = h("span", { class: "chart-slot" });
    sparkHost.replaceChildren(
      h(
        "div",
        { class: "spark-head" },
        h("span", {}, `${CHART_MARKET}, last hour`),
        h("span", { class: "spark-last" }, w.points.length ? formatRate(w.points[w.points.length - 1].value) : "—"),
      ),
      line,
    );
    draw("sparkline", (charts) => line.replaceWith(charts.sparklineSvg(CHART_MARKET, w.points, w)));
  };
}

/** The feeds' error line (hidden while there is none, and before a key is given). */
function errorView() {
  const errorHost = byId("overview-error");
  return (snapshot: Snapshot<unknown>): void => {
    const e = snapshot.error;
    errorHost.hidden = !e || e.kind === "no_key";
    errorHost.textContent = e && e.kind !== "no_key" ? `${e.code}: ${e.message}${e.advice ? ` — ${e.advice}` : ""}` : "";
  };
}

/**
 * The quotes the plans' costs need, followed through the hub (each question once) while `wanted` names them: `follow`
 * subscribes the new questions and drops the ones no plan needs any more; each value that arrives redraws (`changed`).
 */
function planQuotes(hub: FeedHub, wanted: () => QuoteRequest[], changed: () => void) {
  const quotes = new Map<string, Quote>();
  const feeds = new Map<string, () => void>();
  return {
    quoteOf: (q: QuoteRequest) => quotes.get(questionKey(q)) ?? null,
    follow(): void {
      const asked = wanted();
      const keys = new Set(asked.map(questionKey));
      for (const [k, stop] of feeds) {
        if (keys.has(k)) continue;
        stop();
        feeds.delete(k);
        quotes.delete(k);
      }
      for (const q of asked) {
        const k = questionKey(q);
        if (feeds.has(k)) continue;
        feeds.set(k, () => undefined); // held before subscribing: a value given at once must not subscribe twice
        const stop = hub.subscribe(quoteTopic(q), (snap: Snapshot<Quote>) => {
          if (!snap.value) return;
          quotes.set(k, snap.value);
          changed();
        });
        feeds.set(k, stop);
      }
    },
  };
}

type Charts = typeof import("./charts");

/**
 * The charts' code is its own chunk, loaded the first time a chart is drawn (after the pane's first paint). Until it is
 * there, the latest drawing asked for each chart waits and runs once it arrives; a chunk that fails to load leaves the
 * figures' text, which carries the same numbers.
 */
function chartDrawer(): (chart: string, drawing: (charts: Charts) => void) => void {
  let charts: Charts | null = null;
  let loading = false;
  const waiting = new Map<string, (charts: Charts) => void>();
  return (chart, drawing) => {
    if (charts) return drawing(charts);
    waiting.set(chart, drawing);
    if (loading) return;
    loading = true;
    import(/* webpackChunkName: "charts" */ "./charts").then(
      (loaded) => {
        charts = loaded;
        for (const draw of waiting.values()) draw(loaded);
        waiting.clear();
      },
      () => {
        loading = false; // the next drawing tries again
      },
    );
  };
}

/** Pause / Resume and Refresh, and the feed status line under them. */
function wireFeedControls(hub: FeedHub): void {
  const feedLine = byId("feed-status");
  const pauseButton = byId("pause-feeds");
  byId("refresh-feeds").addEventListener("click", () => hub.refresh());
  pauseButton.addEventListener("click", () => {
    const paused = hub.togglePause();
    pauseButton.textContent = paused ? "Resume live data" : "Pause live data";
    pauseButton.setAttribute("aria-pressed", String(paused));
  });
  hub.onStatus((status) => {
    feedLine.textContent = feedStatusText(status);
  });
}
