// Traces one start of the production page (Chromium's performance trace and a CPU profile): the main thread's longest tasks and the functions' self time before the first GET /prices is sent, and from then to the pane's data-ready; `npx tsx test/bench/startup-trace.ts [--slowdown 4] [--warm] [--dist <dir>]`.
import fs from "node:fs";
import path from "node:path";
import type { CDPSession } from "playwright-core";
import { findChromium, launchChromium } from "../e2e/browser";
import { ensureBuilt } from "../e2e/build";
import { serveDirectory } from "../e2e/static-server";
import { startSandbox } from "../../src/sandbox/server";
import { interceptForeignHosts, officeStandIn } from "./startup-page";

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: Record<string, unknown>; name?: string; [k: string]: unknown };
}
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const arg = (name: string) => process.argv.flatMap((a, i) => (a === name ? [process.argv[i + 1]] : []))[0];
const CATEGORIES = [
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "v8.execute",
  "v8",
  "blink.user_timing",
  "loading",
  "toplevel",
].join(",");

/** Ends the trace and reads it (kept in the browser until now: streaming it during the start would load this process, which answers the page's requests). */
async function collectTrace(cdp: CDPSession): Promise<TraceEvent[]> {
  const done = new Promise<string>((resolve) => cdp.once("Tracing.tracingComplete", (e) => resolve(String(e.stream))));
  await cdp.send("Tracing.end");
  const handle = await done;
  let text = "";
  for (;;) {
    const chunk = await cdp.send("IO.read", { handle, size: 1 << 20 });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, "base64").toString("utf8") : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send("IO.close", { handle });
  const parsed = JSON.parse(text) as { traceEvents: TraceEvent[] } | TraceEvent[];
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

const short = (url: unknown) => (typeof url === "string" && url ? url.replace(/^.*\//, "") : "");

/** What a top-level task did, named by its largest script or function call. */
function describe(task: TraceEvent, inside: TraceEvent[]): string {
  const parts = inside
    .filter((e) => e.ts >= task.ts && e.ts < task.ts + (task.dur ?? 0) && e !== task && e.ph === "X")
    .filter((e) =>
      [
        "EvaluateScript",
        "FunctionCall",
        "TimerFire",
        "v8.compile",
        "ParseHTML",
        "EventDispatch",
        "FireAnimationFrame",
        "RunMicrotasks",
        "v8.compileModule",
        "V8.GC_SCAVENGER",
        "MajorGC",
        "MinorGC",
        "Layout",
        "UpdateLayoutTree",
        "Paint",
        "XHRReadyStateChange",
        "ResourceReceivedData",
        "ResourceFinish",
        "v8.evaluateModule",
        "ParseAuthorStyleSheet",
        "Document::updateStyleAndLayout",
        "PrePaint",
        "v8.callFunction",
        "V8.ParseOnBackground",
      ].includes(e.name),
    )
    .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
    .slice(0, 3)
    .map((e) => {
      const d = e.args?.data ?? {};
      const what = short(d.url) || (d.functionName as string) || (d.type as string) || "";
      return `${e.name}${what ? ` ${what}${d.functionName && d.url ? ` ${d.functionName as string}` : ""}` : ""} ${((e.dur ?? 0) / 1000).toFixed(1)}`;
    });
  return parts.join("; ");
}

/** Self time per function (name, file:line) and per script from the CPU profile's samples between `from` and `to` (µs, trace clock). */
function selfTimes(profile: Profile, from: number, to: number): { functions: Map<string, number>; scripts: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const functions = new Map<string, number>();
  const scripts = new Map<string, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (t < from || t >= to) continue;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    const f = node.callFrame;
    const name = `${f.functionName || "(anonymous)"} ${short(f.url)}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + dt);
    const script = short(f.url) || f.functionName;
    scripts.set(script, (scripts.get(script) ?? 0) + dt);
  }
  return { functions, scripts };
}

const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `    ${(v / 1000).toFixed(1).padStart(7)} ms  ${k}`)
    .join("\n");

async function main(): Promise<void> {
  const slowdown = Number(arg("--slowdown") ?? 4);
  const warm = process.argv.includes("--warm");
  const chromium = findChromium();
  if (!chromium) throw new Error("no Chromium");
  const dist = arg("--dist") ?? (await ensureBuilt("production"));
  const sandbox = await startSandbox({ port: 0, http: true, seed: 1 });
  const server = await serveDirectory(dist, "hosted");
  const browser = await launchChromium(chromium);
  try {
    const context = await browser.newContext({ viewport: { width: 320, height: 900 } });
    const url = `${server.origin}/taskpane.html`;
    const officeJs = officeStandIn();
    if (warm) {
      const first = await context.newPage();
      const c = await context.newCDPSession(first);
      await interceptForeignHosts(c, new URL(sandbox.baseUrl).origin, officeJs);
      await first.goto(url);
      await first.waitForFunction(() => document.documentElement.dataset.ready === "true", undefined, { timeout: 60_000 });
      await first.close();
    }
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await interceptForeignHosts(cdp, new URL(sandbox.baseUrl).origin, officeJs);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: slowdown });
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    await cdp.send("Tracing.start", { categories: CATEGORIES, transferMode: "ReturnAsStream" });
    await cdp.send("Profiler.start");
    await page.goto(url);
    // DevTools' Runtime.evaluate, not Playwright's waitForFunction (its injected script would be in the trace).
    const evaluate = async <T>(expression: string): Promise<T> =>
      ((await cdp.send("Runtime.evaluate", { expression, returnByValue: true })) as { result: { value: T } }).result.value;
    while (!(await evaluate<boolean>("window.__startup.price !== null && window.__startup.interactive !== null")))
      await new Promise((resolve) => setTimeout(resolve, 50));
    const marks = await evaluate<{ registered: number; price: number; interactive: number }>(
      "({ registered: Math.max(...window.__startup.associated.map((a) => a[1])), price: window.__startup.price, interactive: window.__startup.interactive })",
    );
    const { profile } = (await cdp.send("Profiler.stop")) as unknown as { profile: Profile };
    const events = await collectTrace(cdp);
    fs.mkdirSync(path.resolve(__dirname, "../artifacts"), { recursive: true });
    fs.writeFileSync(path.resolve(__dirname, "../artifacts/startup-trace.json"), JSON.stringify({ traceEvents: events }));
    // The CPU profile beside it (DevTools' Performance or Memory panel opens it; its clock is the trace's).
    fs.writeFileSync(path.resolve(__dirname, "../artifacts/startup-profile.cpuprofile"), JSON.stringify(profile));
    report(events, profile, marks, url, slowdown, warm);
    await context.close();
  } finally {
    await browser.close();
    await server.close();
    await sandbox.close();
  }
}

function report(
  events: TraceEvent[],
  profile: Profile,
  marks: { registered: number; price: number; interactive: number },
  url: string,
  slowdown: number,
  warm: boolean,
): void {
  const nav = events
    .filter((e) => e.name === "navigationStart" && String(e.args?.data?.documentLoaderURL ?? "").startsWith(url))
    .sort((a, b) => b.ts - a.ts)[0];
  if (!nav) throw new Error("no navigationStart in the trace");
  const main = { pid: nav.pid, tid: nav.tid };
  const at = (ts: number) => ((ts - nav.ts) / 1000).toFixed(1);
  const sends = events.filter((e) => e.name === "ResourceSendRequest").sort((a, b) => a.ts - b.ts);
  const prices = sends.find((e) => String(e.args?.data?.url).includes("/prices"));
  const sent = prices?.ts ?? nav.ts + marks.price * 1000;
  const ready = nav.ts + marks.interactive * 1000;
  console.log(`CPU ${slowdown}×, ${warm ? "warm" : "cold"}; profile starts ${at(profile.startTime)} ms`);
  console.log(
    `registered ${marks.registered.toFixed(0)} ms, GET /prices sent ${at(sent)} ms, first PRICE value ${marks.price.toFixed(0)} ms, data-ready ${marks.interactive.toFixed(0)} ms`,
  );
  console.log("requests sent (ms from navigation):");
  for (const s of sends.filter(
    (e) => e.ts < ready && /^https?:/.test(String(e.args?.data?.url)) && !/\.(js|css|woff2|svg|ico)$/.test(String(e.args?.data?.url)),
  ))
    console.log(`    ${at(s.ts).padStart(7)}  ${String(s.args?.data?.requestMethod ?? "")} ${short(s.args?.data?.url)}`);
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const tasks = onMain.filter(
    (e) => (e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask") && e.ph === "X" && e.ts >= nav.ts && e.ts < ready,
  );
  console.log("main-thread tasks over 4 ms (start, duration, ms; what ran longest inside):");
  for (const t of tasks.filter((x) => (x.dur ?? 0) > 4000))
    console.log(`    ${at(t.ts).padStart(7)} ${((t.dur ?? 0) / 1000).toFixed(1).padStart(6)}  ${describe(t, onMain)}`);
  const busy = (from: number, to: number) =>
    tasks.filter((t) => t.ts >= from && t.ts < to).reduce((s, t) => s + Math.min(t.dur ?? 0, to - t.ts), 0) / 1000;
  console.log(
    `main thread busy: navigation → prices sent ${busy(nav.ts, sent).toFixed(0)} ms of ${at(sent)}; prices sent → data-ready ${busy(sent, ready).toFixed(0)} ms`,
  );
  for (const [label, from, to] of [
    ["navigation → GET /prices sent", nav.ts, sent],
    ["GET /prices sent → data-ready", sent, ready],
  ] as const) {
    const { functions, scripts } = selfTimes(profile, from, to);
    console.log(`\n${label}: self time by script\n${top(scripts, 15)}\n${label}: self time by function\n${top(functions, 30)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
