// Startup of the production page in Chromium: page load → functions registered, → first =HEDGE.PRICE value, → pane interactive; this build and the baselines (the one-bundle page d67aaa2 and main a002fa9 by default) interleaved, cold and warm cache, CPU slowed 4× and not at all, with the machine's load average.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findChromium, launchChromium } from "../e2e/browser";
import { ensureBuilt, PRODUCTION_ENV } from "../e2e/build";
import { serveDirectory } from "../e2e/static-server";
import { startSandbox } from "../../src/sandbox/server";
import { coldThenWarm, officeStandIn, SERVICE_ORIGIN, type Times } from "./startup-page";

const ROOT = path.resolve(__dirname, "../..");
/** d67aaa2: the build before issue 33's split (one bundle); a002fa9: main before issue 41. `--baseline <ref>` (repeatable) replaces them. */
const DEFAULT_BASELINES = ["d67aaa2", "a002fa9"];
const DEFAULT_RUNS = 5;
/** The CPU slowdowns run, each in every round: 4× (a slow laptop) and none; `--slowdown <n>` (repeatable) replaces them. */
const DEFAULT_SLOWDOWNS = [4, 1];
const CACHES = ["cold", "warm"] as const;
type Cache = (typeof CACHES)[number];
const MILESTONES = ["registered", "price", "interactive"] as const;
type Milestone = (typeof MILESTONES)[number];
const LABELS: Record<Milestone, string> = {
  registered: "functions registered",
  price: "first PRICE value",
  interactive: "pane interactive",
};

/** The baseline's production build: `git archive <ref>` into a temporary folder (node_modules linked), built once and kept. */
async function baselineBuild(ref: string): Promise<{ commit: string; dist: string }> {
  const commit = execFileSync("git", ["rev-parse", "--short", `${ref}^{commit}`], { cwd: ROOT, encoding: "utf8" }).trim();
  const dir = path.join(os.tmpdir(), `hedge-startup-baseline-${commit}`);
  const dist = path.join(dir, "dist");
  if (fs.existsSync(path.join(dist, "taskpane.html"))) return { commit, dist };
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
  return { commit, dist };
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${Math.round(value)} ms`;
const arg = (name: string) => process.argv.flatMap((a, i) => (a === name ? [process.argv[i + 1]] : []));

interface Build {
  name: string;
  dist: string;
  functions: number;
  times: Record<string, Times[]>;
}
const key = (slowdown: number, cache: Cache) => `${slowdown}× ${cache}`;

export async function run(): Promise<void> {
  const refs = arg("--baseline").length > 0 ? arg("--baseline") : DEFAULT_BASELINES;
  const runs = Number(arg("--runs")[0] ?? DEFAULT_RUNS);
  const slowdowns = arg("--slowdown").length > 0 ? arg("--slowdown").map(Number) : DEFAULT_SLOWDOWNS;
  const chromium = findChromium();
  if (!chromium) {
    console.log("  skipped: no Chromium (install it, or set CHROMIUM_PATH)");
    return;
  }
  const dists = [
    ...(await Promise.all(refs.map(async (ref) => ({ name: ref, ...(await baselineBuild(ref)) })))).map((b) => ({
      name: `${b.name === b.commit ? b.commit : `${b.name} (${b.commit})`}`,
      dist: b.dist,
    })),
    { name: "this build", dist: await ensureBuilt("production") },
  ];
  // Each build registers the functions its own functions.json declares (a later build may add one, e.g. ROLLCOST).
  const builds: Build[] = dists.map((d) => ({
    ...d,
    functions: (JSON.parse(fs.readFileSync(path.join(d.dist, "functions.json"), "utf8")) as { functions: unknown[] }).functions.length,
    times: {},
  }));
  const sandbox = await startSandbox({ port: 0, http: true, seed: 1 });
  const sandboxOrigin = new URL(sandbox.baseUrl).origin;
  // Served as README.md "Hosting" says: hashed files immutable, the page and functions.json no-cache (revalidated).
  const servers = await Promise.all(builds.map((b) => serveDirectory(b.dist, "hosted")));
  const browser = await launchChromium(chromium);
  const officeJs = officeStandIn();
  console.log(`  load average at start (1 / 5 / 15 min): ${load()} on ${os.cpus().length} cores`);
  try {
    // A warm-up of each (Chromium's own first start, the disk cache of the files), not counted.
    for (const server of servers) await coldThenWarm(browser, server.origin, sandboxOrigin, officeJs, 1);
    // Interleaved: each round starts every build under every slowdown, so the machine's load falls on all alike.
    for (let i = 0; i < runs; i++)
      for (const slowdown of slowdowns)
        for (const [b, build] of builds.entries()) {
          const { cold, warm } = await coldThenWarm(browser, servers[b].origin, sandboxOrigin, officeJs, slowdown);
          for (const [cache, t] of [
            ["cold", cold],
            ["warm", warm],
          ] as const) {
            if (t.functions !== build.functions)
              throw new Error(`${build.name}: ${t.functions} functions registered, functions.json has ${build.functions}`);
            (build.times[key(slowdown, cache)] ??= []).push(t);
          }
          const line = (t: Times) =>
            `${MILESTONES.map((m) => Math.round(t[m])).join(" / ")} (prices sent ${Math.round(t.pricesSent)}, answered ${Math.round(t.pricesAnswered)})`;
          console.log(
            `  round ${i + 1}, CPU ${slowdown}×, ${build.name}: cold ${line(cold)} ms, warm ${line(warm)} ms (${warm.cached} of ${warm.scripts} scripts from the cache); load ${load()}`,
          );
        }
  } finally {
    await browser.close();
    await Promise.all(servers.map((s) => s.close()));
    await sandbox.close();
  }
  console.log(`  load average at end: ${load()}`);
  report(builds, runs, slowdowns);
}

/** One table per CPU slowdown and cache: the builds' medians (min–max), then this build against each baseline. */
function report(builds: Build[], runs: number, slowdowns: number[]): void {
  console.log(
    `\n  Production builds in headless Chromium, ${runs} rounds, medians (min–max) from navigation; Office.js stood in (ready at once), ` +
      `the sandbox on loopback behind ${SERVICE_ORIGIN}, a saved demo key; files served with Cache-Control as README.md "Hosting" says.`,
  );
  const self = builds[builds.length - 1];
  for (const slowdown of slowdowns)
    for (const cache of CACHES) {
      const k = key(slowdown, cache);
      console.log(`\n  CPU ${slowdown === 1 ? "not slowed" : `${slowdown}× slower`}, ${cache} cache:`);
      console.log(`  ${"".padEnd(22)} ${MILESTONES.map((m) => LABELS[m].padStart(26)).join(" ")}   JS loaded`);
      for (const build of builds) {
        const t = build.times[k];
        const cell = (m: Milestone) =>
          `${ms(median(t.map((x) => x[m])))} (${Math.round(Math.min(...t.map((x) => x[m])))}–${Math.round(Math.max(...t.map((x) => x[m])))})`.padStart(
            26,
          );
        console.log(
          `  ${build.name.padEnd(22)} ${MILESTONES.map(cell).join(" ")}   ${(median(t.map((x) => x.scriptBytes)) / 1000).toFixed(1)} kB in ` +
            `${median(t.map((x) => x.scripts))} files, ${median(t.map((x) => x.cached))} from the cache`,
        );
      }
      for (const base of builds.slice(0, -1)) {
        const change = (m: Milestone) => {
          const pct = 100 * (1 - median(self.times[k].map((x) => x[m])) / median(base.times[k].map((x) => x[m])));
          return `${LABELS[m]} ${Math.abs(pct).toFixed(0)} % ${pct >= 0 ? "sooner" : "later"}`;
        };
        console.log(`  this build against ${base.name}: ${MILESTONES.map(change).join(", ")}`);
      }
    }
}
