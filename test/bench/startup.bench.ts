// Startup of the production page in Chromium with the CPU slowed 4×: page load → functions registered, → first =HEDGE.PRICE value, → pane interactive; today's build (a baseline commit) and this one side by side, five runs each, medians.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { findChromium, launchChromium } from "../e2e/browser";
import { ensureBuilt, PRODUCTION_ENV } from "../e2e/build";
import { serveDirectory } from "../e2e/static-server";
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import { DEMO_API_KEY } from "../../src/sandbox/demo";

const ROOT = path.resolve(__dirname, "../..");
/** The build before issue 33's split (every panel and zod's full build on the page). */
const DEFAULT_BASELINE = "d67aaa2";
const RUNS = 5;
const CPU_SLOWDOWN = 4;
/** The service origin of the production build (PRODUCTION_ENV's SERVICE_ORIGINS): its requests go to the local sandbox. */
const SERVICE_ORIGIN = "https://sandbox.hedging.example";

interface Times {
  registered: number;
  price: number;
  interactive: number;
  functions: number;
  /** JS the page downloaded, in bytes (as served, not compressed), and how many files. */
  scriptBytes: number;
  scripts: number;
}

/**
 * Stands in for Office.js as Excel loads the shared runtime, in place of Microsoft's CDN script: Office.onReady says
 * Excel at once (Office.js's own start-up is not measured), OfficeRuntime.storage holds the saved demo key for the
 * service origin (as after an earlier session), CustomFunctions.associate notes each registration's time and, for
 * PRICE, calculates one =HEDGE.PRICE("USDTNGN") cell as Excel does when a workbook opens, noting its first number. The
 * workbook itself never answers (Excel.run stays pending): the desk's log read is left waiting.
 */
function officeStandIn(): string {
  const saved = {
    "hedge.apiKey": DEMO_API_KEY,
    "hedge.baseUrl": `${SERVICE_ORIGIN}/v2`,
    "hedge.apiKeyOrigin": SERVICE_ORIGIN,
  };
  return `(() => {
  const now = () => performance.now();
  const bench = (window.__startup = { associated: [], price: null, interactive: null });
  const saved = new Map(Object.entries(${JSON.stringify(saved)}));
  window.OfficeRuntime = { storage: {
    getItem: async (k) => saved.get(k) ?? null,
    setItem: async (k, v) => void saved.set(k, String(v)),
    removeItem: async (k) => void saved.delete(k),
  } };
  class CustomFunctionError extends Error { constructor(code, message) { super(message); this.code = code; } }
  window.CustomFunctions = {
    Error: CustomFunctionError,
    ErrorCode: { invalidValue: "#VALUE!", notAvailable: "#N/A" },
    associate(id, fn) {
      bench.associated.push([id, now()]);
      if (id === "PRICE") fn("USDTNGN", { address: "Sheet1!A1", setResult(v) { if (bench.price === null && typeof v === "number") bench.price = now(); } });
    },
  };
  const info = { host: "Excel", platform: "PC" };
  window.Office = {
    onReady: (cb) => { const p = Promise.resolve(info); if (cb) p.then(cb); return p; },
    context: { officeTheme: null, document: { settings: { get: () => null, set() {}, saveAsync: (o, cb) => (cb ?? o)?.({ status: "succeeded" }) }, addHandlerAsync() {} } },
    EventType: { OfficeThemeChanged: "officeThemeChanged" },
    AsyncResultStatus: { Succeeded: "succeeded", Failed: "failed" },
    actions: { associate() {} },
    addin: { onVisibilityModeChanged: async () => async () => {} },
  };
  window.Excel = { run: () => new Promise(() => {}) };
  new MutationObserver(() => {
    if (bench.interactive === null && document.documentElement.dataset.ready === "true") bench.interactive = now();
  }).observe(document.documentElement, { attributes: true });
})();`;
}

/** The baseline's production build: `git archive <ref>` into a temporary folder (node_modules linked), built once and kept. */
async function baselineBuild(ref: string): Promise<string> {
  const commit = execFileSync("git", ["rev-parse", "--short", `${ref}^{commit}`], { cwd: ROOT, encoding: "utf8" }).trim();
  const dir = path.join(os.tmpdir(), `hedge-startup-baseline-${commit}`);
  const dist = path.join(dir, "dist");
  if (fs.existsSync(path.join(dist, "taskpane.html"))) return dist;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  console.log(`  building ${ref} (${commit}) for production in ${dir} …`);
  // Its own webpack.config.js, as `npm run build` would run it there.
  execFileSync(
    path.join(ROOT, "node_modules/.bin/webpack"),
    [
      "--mode",
      "production",
      "--env",
      `ADDIN_PUBLIC_URL=${PRODUCTION_ENV.ADDIN_PUBLIC_URL}`,
      "--env",
      `SERVICE_ORIGINS=${PRODUCTION_ENV.SERVICE_ORIGINS}`,
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
  );
  return dist;
}

/** One cold start of the page served from `dist`: a fresh browser context (no cache), the CPU slowed, the three times. */
async function startOnce(browser: Browser, origin: string, sandbox: RunningSandbox, officeJs: string): Promise<Times> {
  const context = await browser.newContext({ viewport: { width: 320, height: 900 } });
  try {
    await context.route("https://appsforoffice.microsoft.com/**", (route) =>
      route.fulfill({ body: officeJs, contentType: "text/javascript; charset=utf-8" }),
    );
    await context.route(`${SERVICE_ORIGIN}/**`, async (route) => {
      const request = route.request();
      const headers = { ...request.headers() };
      delete headers.host;
      const url = request.url().replace(SERVICE_ORIGIN, new URL(sandbox.baseUrl).origin);
      try {
        await route.fulfill({ response: await route.fetch({ url, headers }) });
      } catch {
        // The run is over and its context closed while a poll was on its way.
      }
    });
    // Nothing else leaves this machine.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1|appsforoffice\.microsoft\.com|sandbox\.hedging\.example)/, (route) => route.abort());
    const page = await context.newPage();
    const messages: string[] = [];
    page.on("console", (m) => messages.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => messages.push(`pageerror: ${e.message}`));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await page.goto(`${origin}/taskpane.html`);
    const done = () => {
      const b = (window as unknown as { __startup: { price: number | null; interactive: number | null } }).__startup;
      return b.price !== null && b.interactive !== null;
    };
    try {
      await page.waitForFunction(done, undefined, { timeout: 90_000, polling: 50 });
    } catch (e) {
      const state = await page.evaluate(() => JSON.stringify((window as unknown as { __startup: unknown }).__startup));
      throw new Error(`${origin}: the page did not finish starting: ${state}\n${messages.join("\n")}`, { cause: e });
    }
    return await page.evaluate(() => {
      const b = (window as unknown as { __startup: { associated: Array<[string, number]>; price: number; interactive: number } }).__startup;
      // The page's own scripts (not the Office.js stand-in).
      const scripts = performance
        .getEntriesByType("resource")
        .filter((e) => /\.js$/.test(new URL(e.name).pathname) && !e.name.includes("appsforoffice")) as PerformanceResourceTiming[];
      return {
        registered: Math.max(...b.associated.map(([, t]) => t)),
        functions: b.associated.length,
        price: b.price,
        interactive: b.interactive,
        scriptBytes: scripts.reduce((sum, e) => sum + (e.decodedBodySize || 0), 0),
        scripts: scripts.length,
      };
    });
  } finally {
    await context.unrouteAll({ behavior: "ignoreErrors" });
    await context.close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const ms = (value: number) => `${Math.round(value)} ms`.padStart(8);

export async function run(): Promise<void> {
  const at = process.argv.indexOf("--baseline");
  const ref = at >= 0 ? process.argv[at + 1] : DEFAULT_BASELINE;
  const chromium = findChromium();
  if (!chromium) {
    console.log("  skipped: no Chromium (install it, or set CHROMIUM_PATH)");
    return;
  }
  const builds = [
    { name: `baseline ${ref}`, dist: await baselineBuild(ref) },
    { name: "this build", dist: await ensureBuilt("production") },
  ];
  // Each build registers the functions its own functions.json declares (a later build may add one, e.g. ROLLCOST).
  const functionsCount = builds.map(
    (b) => (JSON.parse(fs.readFileSync(path.join(b.dist, "functions.json"), "utf8")) as { functions: unknown[] }).functions.length,
  );
  const sandbox = await startSandbox({ port: 0, http: true, seed: 1 });
  const servers = await Promise.all(builds.map((b) => serveDirectory(b.dist)));
  const browser = await launchChromium(chromium);
  const times: Times[][] = builds.map(() => []);
  try {
    const officeJs = officeStandIn();
    // A warm-up of each (Chromium's own first start, the disk cache of the files), not counted.
    for (const server of servers) {
      const t = await startOnce(browser, server.origin, sandbox, officeJs);
      console.log(`  warm-up ${server.origin}: ${Math.round(t.registered)} / ${Math.round(t.price)} / ${Math.round(t.interactive)} ms`);
    }
    console.log(`  warmed up; ${RUNS} runs of each …`);
    // Alternating, so that the machine's load falls on both alike.
    for (let i = 0; i < RUNS; i++)
      for (let b = 0; b < builds.length; b++) {
        const t = await startOnce(browser, servers[b].origin, sandbox, officeJs);
        times[b].push(t);
        console.log(
          `  run ${i + 1}, ${builds[b].name}: ${Math.round(t.registered)} / ${Math.round(t.price)} / ${Math.round(t.interactive)} ms`,
        );
      }
  } finally {
    await browser.close();
    await Promise.all(servers.map((s) => s.close()));
    await sandbox.close();
  }

  console.log(
    `  Production builds in Chromium (headless, CPU ${CPU_SLOWDOWN}× slower), cold cache, ${RUNS} runs each, median (min–max); ` +
      `Office.js stood in (ready at once), the sandbox on loopback behind ${SERVICE_ORIGIN}, a saved demo key:`,
  );
  console.log(
    `  ${"".padEnd(28)} ${"functions registered".padStart(26)} ${"first PRICE value".padStart(26)} ${"pane interactive".padStart(26)}   JS loaded`,
  );
  const medians = builds.map((build, b) => {
    const t = times[b];
    for (const one of t)
      if (one.functions !== functionsCount[b])
        throw new Error(`${build.name}: ${one.functions} functions registered, functions.json has ${functionsCount[b]}`);
    const cell = (pick: (x: Times) => number) =>
      `${ms(median(t.map(pick)))} (${Math.round(Math.min(...t.map(pick)))}–${Math.round(Math.max(...t.map(pick)))})`.padStart(26);
    console.log(
      `  ${build.name.padEnd(28)} ${cell((x) => x.registered)} ${cell((x) => x.price)} ${cell((x) => x.interactive)}   ` +
        `${(median(t.map((x) => x.scriptBytes)) / 1000).toFixed(1)} kB in ${median(t.map((x) => x.scripts))} files`,
    );
    return {
      registered: median(t.map((x) => x.registered)),
      price: median(t.map((x) => x.price)),
      interactive: median(t.map((x) => x.interactive)),
    };
  });
  const [before, after] = medians;
  const sooner = (k: keyof (typeof medians)[number]) => `${(100 * (1 - after[k] / before[k])).toFixed(0)} % sooner`;
  console.log(
    `  this build against the baseline: functions registered ${sooner("registered")} (goal ≥ 40 %), first PRICE value ${sooner("price")}, pane interactive ${sooner("interactive")}`,
  );
}
