// Builds the add-in for the browser tests, once per mode, into test/artifacts/e2e-dist (development: the test build with the harness) or prod-dist (production); reused while no source changed.
import fs from "fs";
import path from "path";

const ROOT = path.resolve(__dirname, "../..");
export const E2E_DIST = path.join(ROOT, "test/artifacts/e2e-dist");
export const PROD_DIST = path.join(ROOT, "test/artifacts/prod-dist");
export type BuildMode = "development" | "production";
/** What the production build is built for here: a public host (not localhost) and two service origins. */
export const PRODUCTION_ENV = {
  ADDIN_PUBLIC_URL: "https://hedge.addins.example.com/",
  SERVICE_ORIGINS: "https://api.hedging.example,https://sandbox.hedging.example",
};
const distOf = (mode: BuildMode) => (mode === "production" ? PROD_DIST : E2E_DIST);
const stampOf = (mode: BuildMode) => path.join(distOf(mode), ".build-stamp");
const LOCK = path.join(ROOT, "test/artifacts/.e2e-build.lock");
const INPUTS = ["src", "assets", "webpack.config.js", "manifest.xml", "package.json", "package-lock.json", "tsconfig.json"];

/** Newest modification time among the build's inputs. */
function newestInput(): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!fs.existsSync(p)) return;
    const stat = fs.statSync(p);
    if (stat.isDirectory()) for (const child of fs.readdirSync(p)) visit(path.join(p, child));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const input of INPUTS) visit(path.join(ROOT, input));
  return newest;
}

function upToDate(mode: BuildMode): boolean {
  try {
    return Number(fs.readFileSync(stampOf(mode), "utf8")) >= newestInput() && fs.existsSync(path.join(distOf(mode), "taskpane.html"));
  } catch {
    return false;
  }
}

async function runWebpack(mode: BuildMode): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const webpack = require("webpack") as typeof import("webpack");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const makeConfig = require(path.join(ROOT, "webpack.config.js")) as (
    env: object,
    argv: object,
  ) => Promise<import("webpack").Configuration>;
  const stampTime = newestInput();
  const config = await makeConfig(mode === "production" ? PRODUCTION_ENV : {}, { mode });
  config.context = ROOT;
  config.output = { ...config.output, path: distOf(mode), clean: true };
  delete (config as Record<string, unknown>).devServer;
  await new Promise<void>((resolve, reject) => {
    webpack(config, (err, stats) => {
      if (err) return reject(err);
      if (stats?.hasErrors()) return reject(new Error(`The add-in build failed:\n${stats.toString({ all: false, errors: true })}`));
      resolve();
    });
  });
  fs.writeFileSync(stampOf(mode), String(stampTime));
}

/** Builds unless an up-to-date build is there; parallel test files wait for one build (a lock directory). */
export async function ensureBuilt(mode: BuildMode = "development"): Promise<string> {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch {
      // Another worker builds; a lock older than 5 minutes is left over from a killed run.
      const lock = fs.statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 300_000) fs.rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() - started > 300_000) throw new Error("Waited 5 minutes for another test's build of the add-in.");
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (!upToDate(mode)) await runWebpack(mode);
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
  return distOf(mode);
}
