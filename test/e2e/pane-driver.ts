// Drives the task pane page in Chromium for the e2e tests: the setup every pane test file shares (sandbox, build, server, browser, page), Office.js routed to the local copy, the console and every Content-Security-Policy violation recorded.
import fs from "fs";
import path from "path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "./browser";
import { ensureBuilt, type BuildMode } from "./build";
import { serveDirectory, type StaticServer } from "./static-server";
import { startSandbox, type RunningSandbox } from "../../src/sandbox/server";
import type { AccountConfig } from "../../src/sandbox/accounts";
import { publicKeyFingerprint } from "../../src/api/environment";
import type { HedgeHarness } from "../../src/taskpane/harness";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import type { CellValue } from "../../src/trading/cells";

/** How long any one wait of a page may take before it fails naming what it waited for: the e2e tests' own timeout's share. */
export const WAIT_MS = 60_000;

const ROOT = path.resolve(__dirname, "../..");
const OFFICE_JS_DIR = path.join(ROOT, "node_modules/@microsoft/office-js/dist");
export const ARTIFACTS = path.join(ROOT, "test/artifacts");
export const PANE_WIDTH = 320;
/** The preview with every figure in (rows stream in while they are priced; see data-state in preview-table.ts). */
export const PREVIEW_DONE = '#preview-table[data-state="final"] tbody tr';

export interface PaneSession {
  browser: Browser;
  server: StaticServer;
  close(): Promise<void>;
  open(options?: OpenOptions): Promise<PanePage>;
}

export interface OpenOptions {
  query?: string;
  width?: number;
  height?: number;
  /** Accept a self-signed https server (Microsoft's test server on the dev certificates, untrusted here). */
  ignoreHTTPSErrors?: boolean;
  /** Browser permissions granted to the page's origin, e.g. ["clipboard-read", "clipboard-write"]. */
  permissions?: string[];
  /** The page's clock starts there (epoch ms) and flows on; the test moves it with `page.clock.setSystemTime`. */
  clockAt?: number;
}

export interface PanePage {
  page: Page;
  context: BrowserContext;
  /** Every console message and page error so far, as text. */
  console: string[];
}

/** Reported by the page for every Content-Security-Policy violation (a `securitypolicyviolation` event). */
export interface CspViolation {
  directive: string;
  blocked: string;
  source: string;
  sample: string;
}

/** Runs in every page before its own scripts (outside the page's CSP): records CSP violations in window.__cspViolations. */
const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile + ":" + e.lineNumber, sample: e.sample });
  }, true);
`;

/** The CSP violations the page reported so far, plus console lines in which Chromium reports one. */
export async function cspViolations(pane: PanePage): Promise<Array<CspViolation | string>> {
  const reported = await pane.page.evaluate(() => (window as unknown as { __cspViolations?: CspViolation[] }).__cspViolations ?? []);
  return [...reported, ...pane.console.filter((line) => /Content Security Policy/i.test(line))];
}

/** Builds (or reuses) the add-in (the development/test build unless told otherwise), serves it, and launches Chromium. */
export async function startPaneSession(executablePath: string, { mode = "development" }: { mode?: BuildMode } = {}): Promise<PaneSession> {
  const dist = await ensureBuilt(mode);
  const server = await serveDirectory(dist);
  const browser = await launchChromium(executablePath);
  return {
    browser,
    server,
    async close() {
      await browser.close();
      await server.close();
    },
    async open({
      query = "harness=memory",
      width = PANE_WIDTH,
      height = 900,
      ignoreHTTPSErrors = false,
      permissions,
      clockAt,
    }: OpenOptions = {}) {
      const context = await browser.newContext({ viewport: { width, height }, ignoreHTTPSErrors });
      if (permissions) await context.grantPermissions(permissions, { origin: server.origin });
      if (clockAt !== undefined) await context.clock.install({ time: clockAt });
      const page = await context.newPage();
      // A wait is for its event (a selector, a text), as long as a busy machine needs: the bound is the test's own timeout,
      // not a guessed budget per step (a Chromium suite beside a mutation run took longer than 15 s for one step).
      page.setDefaultTimeout(WAIT_MS);
      const messages: string[] = [];
      page.on("console", (m) => messages.push(`${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => messages.push(`pageerror: ${e.message}\n${e.stack ?? ""}`));
      await context.addInitScript({ content: RECORD_CSP_VIOLATIONS });
      // Office.js comes from Microsoft's CDN in the page; the tests serve the copy from @microsoft/office-js instead.
      await context.route("https://appsforoffice.microsoft.com/**", async (route) => {
        const rel = new URL(route.request().url()).pathname.replace(/^\/lib\/1\/hosted\//, "");
        const file = path.normalize(path.join(OFFICE_JS_DIR, rel));
        if (file.startsWith(OFFICE_JS_DIR) && fs.existsSync(file))
          await route.fulfill({ path: file, contentType: "text/javascript; charset=utf-8" });
        else await route.fulfill({ status: 404, body: "" });
      });
      // Nothing else leaves this machine.
      await context.route(/^https?:\/\/(?!127\.0\.0\.1|localhost|appsforoffice\.microsoft\.com)/, (route) => route.abort());
      await page.goto(`${server.origin}/taskpane.html${query ? `?${query}` : ""}`);
      return { page, context, console: messages };
    },
  };
}

/** What a pane test file works with, once its beforeAll has run. */
export interface PaneWorld {
  /** The sandbox, in-process over HTTP on a free port. */
  readonly sandbox: RunningSandbox;
  /** The built pane served on 127.0.0.1, and Chromium: `session.open()` opens more pages. */
  readonly session: PaneSession;
  /** The page opened for the whole file, ready (unless `open: false`). */
  readonly pane: PanePage;
}

/**
 * The setup every pane test file shares, as beforeAll and afterAll of the describe it is called in: a seeded sandbox
 * over HTTP, the development build served, Chromium, and one page (`open`: its query; false for none) waited ready.
 */
export function paneWithSandbox(
  executablePath: () => string,
  options: { seed: number; fillMs?: number; open?: { query?: string } | false; accounts?: AccountConfig[] },
): PaneWorld {
  let sandbox: RunningSandbox | undefined;
  let session: PaneSession | undefined;
  let pane: PanePage | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, http: true, seed: options.seed, fillMs: options.fillMs ?? 200, accounts: options.accounts });
    session = await startPaneSession(executablePath());
    if (options.open !== false) {
      pane = await session.open(options.open);
      await waitReady(pane.page);
    }
  }, 240_000);
  afterAll(async () => {
    await session?.close();
    await sandbox?.close();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not there: the file's beforeAll failed, or it was set up with open: false.`);
    return value;
  };
  return {
    get sandbox() {
      return ready(sandbox, "The sandbox");
    },
    get session() {
      return ready(session, "The pane session");
    },
    get pane() {
      return ready(pane, "The page");
    },
  };
}

/** The memory harness of a page (`?harness=memory`): window.hedgeHarness. */
export type HarnessWindow = { hedgeHarness: HedgeHarness };

/** The page's memory workbook (`?harness=memory`): a sheet set, a selection made on a sheet, a sheet's cells read. */
export const harness = (page: Page) => ({
  setSheet: (name: string, grid: CellValue[][]) =>
    page.evaluate(([n, g]) => (window as unknown as HarnessWindow).hedgeHarness.setSheet(n, g), [name, grid] as const),
  select: (address: string, sheet: string) =>
    page.evaluate(([a, s]) => (window as unknown as HarnessWindow).hedgeHarness.select(a, s), [address, sheet] as const),
  cells: (sheet: string) => page.evaluate((s) => (window as unknown as HarnessWindow).hedgeHarness.cells(s), sheet),
});

/** The Hedge Log's rows as the page's memory workbook holds them. */
export function logRows(page: Page): Promise<LogRecord[]> {
  return page.evaluate(() => (window as unknown as HarnessWindow).hedgeHarness.logRows()) as Promise<LogRecord[]>;
}

export async function waitReady(page: Page): Promise<void> {
  await page.waitForSelector("html[data-ready=true]");
}

/** The whole page by default; `fullPage: false` shows what the pane's window shows (e.g. a modal dialog over it). */
export async function screenshot(page: Page, name: string, { fullPage = true }: { fullPage?: boolean } = {}): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  // Transitions (the progress bar eases to its value) are finished first, so the picture shows the final state.
  await page.screenshot({ path: file, fullPage, animations: "disabled" });
  return file;
}

/** Whether the LIVE confirmation (a fluent-dialog around a native modal <dialog>) is open. */
export async function liveDialogOpen(page: Page): Promise<boolean> {
  return page.evaluate(() => document.getElementById("live-dialog")?.shadowRoot?.querySelector("dialog")?.open ?? false);
}

export async function waitLiveDialogOpen(page: Page): Promise<void> {
  await page.waitForFunction(() => document.getElementById("live-dialog")?.shadowRoot?.querySelector("dialog")?.open === true);
}

/** Connects with the mouse: types the key and URL into the Fluent fields (their inputs sit in shadow roots) and clicks Connect. */
export async function connect(page: Page, apiKey: string, baseUrl: string): Promise<void> {
  await page.locator("#api-key").fill(apiKey);
  await page.locator("#base-url input").fill(baseUrl);
  await page.locator("#connect").click();
  await page.waitForFunction(() => /Connected with key/.test(document.getElementById("connection-status")?.textContent ?? ""));
}

/** Opens the connection form (folded once connected), types another key and connects; waits until the pane uses it. */
export async function switchKey(page: Page, apiKey: string): Promise<void> {
  if ((await page.locator("#connection-edit").getAttribute("open")) === null) await page.locator("#connection-edit > summary").click();
  await page.locator("#api-key").fill(apiKey);
  await page.locator("#connect").click();
  await page.waitForFunction((fp) => document.getElementById("key-fingerprint")?.textContent === fp, publicKeyFingerprint(apiKey));
  await page.waitForSelector("#read-selection:not([disabled])");
}

/**
 * Propose from the harness's Model (A2:D2) and Policy (A2:I2) sheets, as the analyst does (the pane then knows the model
 * it arms rolls from); returns the proposal's sheet name ("" when there was nothing to do).
 */
export async function proposeFromModel(page: Page): Promise<string> {
  const note = async () => (await page.locator("#propose-note").textContent()) ?? "";
  const choose = harness(page).select;
  await choose("A2:D2", "Model");
  await page.locator("#propose").click();
  await page.waitForFunction(() => /^Exposures: /.test(document.getElementById("propose-note")?.textContent ?? ""));
  const before = await note();
  await choose("A2:I2", "Policy");
  await page.locator("#propose").click();
  await page.waitForFunction((b) => {
    const text = document.getElementById("propose-note")?.textContent ?? "";
    return text !== b && /proposed on|Nothing to do/.test(text);
  }, before);
  return /proposed on (.+?) \(/.exec(await note())?.[1] ?? "";
}

export async function chooseAction(page: Page, action: "open" | "add" | "reduce" | "close"): Promise<void> {
  await page.locator(`#action fluent-radio[value=${action}]`).click();
}

export async function select(page: Page, address: string): Promise<void> {
  await page.evaluate((a) => (window as unknown as HarnessWindow).hedgeHarness.select(a), address);
}

/** Text of the visible status rows, by data-status. */
export async function rowStatuses(page: Page): Promise<Array<{ row: string; status: string; text: string }>> {
  return page.$$eval("#row-status li", (lis) =>
    lis.map((li) => ({
      row: (li as HTMLElement).dataset.row ?? "",
      status: (li as HTMLElement).dataset.status ?? "",
      text: li.textContent ?? "",
    })),
  );
}

/** Waits until every listed row reached one of `statuses`. */
export async function waitRowsFinal(page: Page, count: number, timeoutMs = WAIT_MS): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const lis = [...document.querySelectorAll("#row-status li")] as HTMLElement[];
      return lis.length >= n && lis.every((li) => ["filled", "failed", "closed", "rejected", "not_sent"].includes(li.dataset.status ?? ""));
    },
    count,
    { timeout: timeoutMs },
  );
}

/** Runs axe-core in the page (or only on the element `within` selects) and returns the serious and critical violations. */
export async function axeViolations(
  page: Page,
  within?: string,
): Promise<Array<{ id: string; impact: string; help: string; targets: string[] }>> {
  // Evaluated, not added as a <script>: the page's CSP refuses inline scripts (as it should).
  if (!(await page.evaluate(() => "axe" in window)))
    await page.evaluate(fs.readFileSync(path.join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8"));
  return page.evaluate(async (selector) => {
    type AxeNode = { target: unknown };
    type AxeViolation = { id: string; impact: string | null; help: string; nodes: AxeNode[] };
    const axe = (window as unknown as { axe: { run(ctx: Document | Element, options: object): Promise<{ violations: AxeViolation[] }> } })
      .axe;
    const context = selector ? document.querySelector(selector) : document;
    if (!context) throw new Error(`axe: nothing matches ${selector}`);
    const result = await axe.run(context, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact ?? "", help: v.help, targets: v.nodes.map((n) => String(n.target)) }));
  }, within ?? null);
}

/** Presses Tab (unless focus is there already) until the focused top-level element matches `selector`; fails when it is not reached in `max` presses. */
export async function tabTo(page: Page, selector: string, max = 40): Promise<number> {
  if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return 0;
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return presses;
  }
  const at = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
  throw new Error(`${selector} was not reached with ${max} Tab presses (focus is on ${at}).`);
}
