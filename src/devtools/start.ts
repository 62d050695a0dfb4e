// `npm start`: development build, local sandbox (when present), HTTPS dev server on package.json's config.dev_server_port, then sideloading where the platform allows (`--smoke PORT`: a manifest whose page runs the smoke script of npm run test:excel).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { get } from "node:https";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ensureCertificatesAreInstalled, verifyCertificates } from "office-addin-dev-certs";
import { DEV_CERT_DIR as CERT_DIR, usableDevCertificates } from "./dev-certs";
import { turnOffOfficeAddinUsageData, USAGE_DATA_FILE } from "./usage-data-off";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// The built manifest: its URLs point at the dev server's port (webpack.config.js rewrites manifest.xml's).
const MANIFEST = join(ROOT, "dist", "manifest.xml");
const WEBPACK = join(ROOT, "node_modules", "webpack", "bin", "webpack.js");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const SANDBOX_ENTRY = join(ROOT, "src", "sandbox", "main.ts");
const PORT = Number(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { config: { dev_server_port: number } }).config.dev_server_port,
);
const TASKPANE_URL = `https://localhost:${PORT}/taskpane.html`;
const SANDBOX_READY_MS = 60_000;
const DEV_SERVER_READY_MS = 180_000;
// office-addin-debugging is fetched on demand, not a dependency: its tree needs native modules and a package the registry lacks.
const DEBUGGING = "office-addin-debugging@6";

/** `--smoke PORT` (npm run test:excel): the page runs its smoke script and posts to Microsoft's test server on PORT. */
const SMOKE_PORT = (() => {
  const at = process.argv.indexOf("--smoke");
  if (at < 0) return null;
  const port = Number(process.argv[at + 1]);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    console.error("✖ --smoke needs the test server's port, e.g. --smoke 4201");
    process.exit(2);
  }
  return port;
})();
/** Outside dist/ (the dev server cleans it on every build). */
const SMOKE_MANIFEST = join(tmpdir(), "hedge-for-excel-smoke-manifest.xml");

/** The built manifest with every page URL asking for the smoke run (?smoke=PORT): the pane, the shared runtime, the functions' page. */
function smokeManifest(port: number): string {
  const xml = readFileSync(MANIFEST, "utf8").replaceAll('taskpane.html"', `taskpane.html?smoke=${port}"`);
  writeFileSync(SMOKE_MANIFEST, xml);
  return SMOKE_MANIFEST;
}

const children: ChildProcess[] = [];
let stopping = false;

/** Runs a Node program (a package's bin script) as a child that start.ts stops on exit. */
function startNode(name: string, args: string[], stdio: "inherit" | "pipe"): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", stdio, stdio] });
  children.push(child);
  child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`✖ ${name} exited (${signal ?? `code ${code}`}); stopping.`);
    void shutdown(1);
  });
  return child;
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of running) child.kill("SIGTERM");
  const exited = Promise.all(running.map((child) => new Promise((resolve) => child.once("exit", resolve))));
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  process.exit(code);
}

/** `npx --yes office-addin-debugging@6 ...`, usage data off (see usage-data-off.ts). */
function runDebugging(args: string[]): number {
  const result = spawnSync("npx", ["--yes", DEBUGGING, ...args], { cwd: ROOT, stdio: "inherit", shell: process.platform === "win32" });
  return result.status ?? 1;
}

function build(): void {
  console.log("Building (webpack --mode development)…");
  const result = spawnSync(process.execPath, [WEBPACK, "--mode", "development"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    console.error("✖ the development build failed");
    process.exit(1);
  }
}

/** Starts src/sandbox/main.ts and resolves once it prints "listening on "; its output is passed through. */
function startSandbox(): Promise<void> {
  if (!existsSync(SANDBOX_ENTRY)) {
    console.log("Sandbox: src/sandbox/main.ts does not exist yet, skipped.");
    return Promise.resolve();
  }
  console.log("Starting the local sandbox (tsx src/sandbox/main.ts)…");
  const child = startNode("the sandbox", [TSX, SANDBOX_ENTRY], "pipe");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the sandbox did not print "listening on " within ${SANDBOX_READY_MS / 1000} s`)),
      SANDBOX_READY_MS,
    );
    const relay = (stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream) => {
      if (!stream) return;
      createInterface({ input: stream }).on("line", (line) => {
        out.write(`[sandbox] ${line}\n`);
        if (line.includes("listening on ")) {
          clearTimeout(timer);
          resolve();
        }
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
  });
}

const certificatesUsable = (): boolean => usableDevCertificates() !== null;

function caTrusted(): boolean {
  try {
    return verifyCertificates();
  } catch {
    return false;
  }
}

/** Creates the localhost certificates with office-addin-dev-certs and trusts their CA where the platform allows. */
async function ensureDevCertificates(): Promise<void> {
  const manual = `Dev certificates are in ${CERT_DIR} but not trusted by the system: trust ${join(CERT_DIR, "ca.crt")} manually (e.g. in your browser's certificate settings).`;
  // On Linux trusting needs sudo; if it failed once, calling ensure again would regenerate the certificates and undo a manual trust.
  if (process.platform === "linux" && certificatesUsable()) {
    if (!caTrusted()) console.log(manual);
    return;
  }
  try {
    await ensureCertificatesAreInstalled();
  } catch (err) {
    if (certificatesUsable()) console.log(manual);
    else console.log(`✖ could not create dev certificates (${(err as Error).message.split("\n")[0]}); the dev server will try again.`);
  }
}

/** Resolves once the dev server answers 200 for the task pane page (it holds requests until its first bundle is done). */
async function waitForDevServer(): Promise<void> {
  const deadline = Date.now() + DEV_SERVER_READY_MS;
  while (Date.now() < deadline) {
    const status = await new Promise<number>((resolve) => {
      const request = get(TASKPANE_URL, { rejectUnauthorized: false, timeout: Math.max(1_000, deadline - Date.now()) }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("timeout", () => request.destroy());
      request.on("error", () => resolve(0));
    });
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`the dev server did not serve ${TASKPANE_URL} within ${DEV_SERVER_READY_MS / 1000} s`);
}

function sideload(): void {
  if (process.platform === "win32" || process.platform === "darwin") {
    const manifest = SMOKE_PORT === null ? MANIFEST : smokeManifest(SMOKE_PORT);
    console.log(`Sideloading into Excel (npx ${DEBUGGING} start ${manifest} desktop)…`);
    const status = runDebugging(["start", manifest, "desktop", "--app", "excel", "--no-debug", "--dev-server-port", String(PORT)]);
    if (status !== 0)
      console.log(`✖ sideloading failed (exit ${status}); the dev server keeps running: upload ${MANIFEST} in Excel by hand.`);
    else console.log("Sideloaded. `npm stop` unregisters the add-in.");
    return;
  }
  console.log(
    `Desktop sideloading is not supported on ${process.platform === "linux" ? "Linux" : process.platform}: open Excel on the web → Home → Add-ins → More Add-ins → Upload My Add-in → choose ${MANIFEST}`,
  );
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  if (turnOffOfficeAddinUsageData()) console.log(`office-addin usage data turned off (${USAGE_DATA_FILE}).`);

  build();
  await ensureDevCertificates();
  await startSandbox();
  console.log(`Starting the dev server (webpack serve --mode development) on https://localhost:${PORT}/…`);
  startNode("the dev server", [WEBPACK, "serve", "--mode", "development"], "inherit");
  await waitForDevServer();
  console.log(`Dev server ready: ${TASKPANE_URL}`);
  sideload();
  console.log("Serving until Ctrl-C.");
}

main().catch((err: unknown) => {
  console.error(`✖ npm start: ${(err as Error).message}`);
  void shutdown(1);
});
