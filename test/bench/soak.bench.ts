// Bench (issue 25): all day. The shared runtime's hub with 1,000 PRICE and 200 QUOTE cells and the pane's overview, 8 simulated hours against the in-process sandbox, through visibility changes, an outage and a key change: heap after GC, live timers and listeners, and requests, each hour.
import "../functions/fake-invocation"; // first: it installs the CustomFunctions global functions.ts needs
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ManualClock } from "../../src/feeds/clock";
import { Connection } from "../../src/feeds/connection";
import { FeedHub } from "../../src/feeds/hub";
import { setSharedHub } from "../../src/feeds/shared";
import { ManualVisibility } from "../../src/feeds/visibility";
import "../../src/functions/engine"; // the functions' work, as the page's engine entry hands it over (after the CustomFunctions global)
import * as fn from "../../src/functions/functions";
import { startSandbox } from "../../src/sandbox/server";
import { CHART_MARKET, followOverview } from "../../src/taskpane/overview-feeds";
import { PriceHistory } from "../../src/taskpane/price-history";
import { benchAccount } from "../sandbox/helpers";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Simulated time moves in steps this long (every timer inside a step still fires at its own time). */
const STEP_MS = 10_000;
const PRICE_CELLS = 1_000;
const QUOTE_CELLS = 200;
/** The QUOTE cells ask this many distinct questions (a desk's sheet repeats a quote in several places). */
const DISTINCT_QUOTES = 20;
const MB = 1024 * 1024;

/** A cell as Excel keeps it: its last value only (a test's FakeInvocation keeps every value, which is not the add-in's memory). */
class SoakCell {
  last: unknown = undefined;
  updates = 0;
  onCanceled?: () => void;
  readonly setResult = (value: unknown): void => {
    this.last = value;
    this.updates++;
  };
}

/** The size of a private collection, for counting listeners the classes do not expose. */
function sizeOf(owner: object, field: string): number {
  const value = (owner as Record<string, unknown>)[field];
  return value instanceof Map || value instanceof Set ? value.size : Array.isArray(value) ? value.length : 0;
}

/** global.gc, whether or not node was started with --expose-gc. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

interface HourFigures {
  hour: number;
  heapMb: number;
  hubTimers: number;
  topics: number;
  sparkline: number;
  requestLog: number;
  nodeTimers: number;
  listeners: number;
  requests: number;
  failed: number;
  events: string[];
}

export async function run(): Promise<void> {
  const hours = Number(process.env.SOAK_HOURS ?? 8);
  const wallStart = Date.now();
  const keys = ["svc_test_bench_soak_key_a_0001", "svc_test_bench_soak_key_b_0002"];
  const sb = await startSandbox({ port: 0, http: true, accounts: keys.map((k) => benchAccount(k, ["USDTNGN"], 10_000)) });
  const gc = collector();
  try {
    const clock = new ManualClock(Date.now());
    const attempts: Array<{ at: number; status: number | null }> = [];
    const connection = new Connection({ onAttempt: (e) => attempts.push({ at: clock.now(), status: e.status }) });
    connection.configure({ apiKey: keys[0], baseUrl: sb.baseUrl });
    const hub = setSharedHub(new FeedHub({ source: connection, clock }));
    const visibility = new ManualVisibility(true);
    // The pane as overview-panel.ts mounts it: the three feeds, the sparkline's last hour and the feed status line.
    let paneUpdates = 0;
    const sparkline = new PriceHistory();
    const pane = followOverview(hub, visibility, {
      account: () => paneUpdates++,
      markets: () => paneUpdates++,
      prices: (snap) => {
        paneUpdates++;
        const entry = snap.value?.[CHART_MARKET];
        if (entry && snap.fetchedAt !== null) sparkline.add(snap.fetchedAt, entry.price, clock.now());
      },
    });
    let statusLines = 0;
    const stopStatus = hub.onStatus(() => statusLines++);
    pane.setConnected(true);
    const prices = Array.from({ length: PRICE_CELLS }, () => new SoakCell());
    for (const cell of prices) fn.price("USDTNGN", cell as never);
    const quotes = Array.from({ length: QUOTE_CELLS }, () => new SoakCell());
    const enterQuote = (i: number, hour: number) => {
      const q = i % DISTINCT_QUOTES;
      // The first question's cells are edited every hour (a new notional): a topic left by all its cells, a new one.
      const notional = 10_000 * (1 + q) + (q === 0 ? hour : 0);
      quotes[i] = new SoakCell();
      fn.quote("USDTNGN", q % 2 ? "sell" : "buy", notional, 7, "pricing.execution_price", quotes[i] as never);
    };
    quotes.forEach((_, i) => enterQuote(i, 0));
    const edited = quotes.map((_, i) => i).filter((i) => i % DISTINCT_QUOTES === 0);

    const listeners = () =>
      hub.topicInfo().reduce((sum, t) => sum + t.subscribers, 0) +
      sizeOf(hub, "statusListeners") +
      sizeOf(visibility, "listeners") +
      sizeOf(connection, "listeners") +
      (connection.client ? sizeOf((connection.client as unknown as { sender: object }).sender, "tradeListeners") : 0);
    const nodeTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    /** Moves the runtime's and the sandbox's clocks on together, each poll answered before the next timer fires. */
    const advance = async (ms: number) => {
      for (let done = 0; done < ms; done += STEP_MS) {
        const step = Math.min(STEP_MS, ms - done);
        sb.clock.advance(step);
        await clock.advance(step, () => hub.settled());
      }
    };

    // Each hour: the pane hidden from :20 to :35, the first quote's 10 cells edited at :36 (Excel cancels the old
    // formulas and calls the new ones). Hour 3: a 10-minute outage (every request 503) from :40.
    // Hour 5: the key changed at :40 (Forget key, another key connected). Hours 6 to 8 are the same as hour 1.
    const table: HourFigures[] = [];
    const start = clock.now();
    await advance(MINUTE); // the first answers, before hour 1 is counted
    const t0 = clock.now();
    for (let hour = 1; hour <= hours; hour++) {
      const events: string[] = [`pane hidden :20–:35, ${edited.length} QUOTE cells edited :36`];
      const from = clock.now();
      await advance(20 * MINUTE);
      visibility.set(false);
      await advance(15 * MINUTE);
      visibility.set(true);
      await advance(MINUTE);
      for (const i of edited) {
        quotes[i].onCanceled?.();
        enterQuote(i, hour);
      }
      await advance(4 * MINUTE);
      if (hour === 3) {
        events.push("outage :40–:50");
        sb.faults.apply({ fail_next: { count: 10_000_000, code: "service_unavailable" } });
        await advance(10 * MINUTE);
        sb.faults.clear();
        await advance(10 * MINUTE);
      } else if (hour === 5) {
        events.push("key changed :40");
        connection.configure({ apiKey: null, baseUrl: sb.baseUrl });
        await advance(STEP_MS);
        connection.configure({ apiKey: keys[1], baseUrl: sb.baseUrl });
        await advance(20 * MINUTE - STEP_MS);
      } else {
        await advance(20 * MINUTE);
      }
      for (let i = 0; i < 3; i++) gc();
      const inHour = attempts.filter((a) => a.at >= from && a.at < from + HOUR);
      table.push({
        hour,
        heapMb: process.memoryUsage().heapUsed / MB,
        hubTimers: clock.pending,
        topics: hub.topicInfo().length,
        sparkline: sparkline.size,
        requestLog: connection.client ? sizeOf((connection.client as unknown as { sender: object }).sender, "sentAt") : 0,
        nodeTimers: nodeTimers(),
        listeners: listeners(),
        requests: inHour.length,
        failed: inHour.filter((a) => a.status !== 200).length,
        events,
      });
      // Attempts of past hours are the bench's own record, not the runtime's: dropped so they do not weigh in the heap.
      attempts.length = 0;
    }
    const showing = (cells: SoakCell[]) => cells.filter((c) => typeof c.last === "number" || Array.isArray(c.last)).length;

    console.log(
      `Soak: ${PRICE_CELLS} PRICE and ${QUOTE_CELLS} QUOTE cells (${DISTINCT_QUOTES} distinct), the pane's overview, ${hours} simulated hours ` +
        `(${((clock.now() - start) / HOUR).toFixed(2)} h) against the in-process sandbox, real HTTP`,
    );
    console.log(
      "   hour | heap after GC | hub timers | node timers | listeners | topics | sparkline points | client's request log (last real minute) | requests (failed) | events",
    );
    for (const r of table)
      console.log(
        `   ${String(r.hour).padStart(4)} | ${r.heapMb.toFixed(2).padStart(10)} MB | ${String(r.hubTimers).padStart(10)} | ${String(r.nodeTimers).padStart(11)} | ${String(r.listeners).padStart(9)} | ${String(r.topics).padStart(6)} | ${String(r.sparkline).padStart(16)} | ${String(r.requestLog).padStart(38)} | ${`${r.requests} (${r.failed})`.padStart(17)} | ${r.events.join(", ")}`,
      );
    const first = table[0];
    const last = table[table.length - 1];
    const growth = last.heapMb - first.heapMb;
    const flat = (f: (r: HourFigures) => number) => table.every((r) => f(r) === f(first));
    const quiet = table.filter((r) => r.events.length === 1);
    const worstRate = Math.max(...quiet.map((r) => Math.abs(r.requests / first.requests - 1)));
    const ok = (pass: boolean) => (pass ? "PASS" : "FAIL");
    console.log(
      `   heap growth hour 1 → ${last.hour}: ${growth.toFixed(2)} MB   goal < 5 MB: ${ok(growth < 5)}; ` +
        `timers flat: ${ok(flat((r) => r.hubTimers) && flat((r) => r.nodeTimers))}; listeners flat: ${ok(flat((r) => r.listeners))}; ` +
        `requests per hour in hours without an event within ${(worstRate * 100).toFixed(1)} % of hour 1   goal ≤ 5 %: ${ok(worstRate <= 0.05)}`,
    );
    console.log(
      `   at the end: ${showing(prices)} of ${PRICE_CELLS} PRICE and ${showing(quotes)} of ${QUOTE_CELLS} QUOTE cells show a value; ` +
        `${paneUpdates} pane updates, ${statusLines} status lines; ${((clock.now() - t0) / HOUR).toFixed(0)} h after the first answers, in ${((Date.now() - wallStart) / 1000).toFixed(0)} s of real time`,
    );
    for (const cell of [...prices, ...quotes]) cell.onCanceled?.();
    stopStatus();
    pane.dispose();
    hub.dispose();
  } finally {
    await sb.close();
  }
}
