// One start of a production page for the startup bench: Office.js stood in, the service origin sent to the local sandbox, the CPU slowed as asked; the three milestones of a cold start and of a second start with the HTTP cache kept.
import type { Browser, BrowserContext, CDPSession } from "playwright-core";
import { DEMO_API_KEY } from "../../src/sandbox/demo";

/** The service origin of the production build (PRODUCTION_ENV's SERVICE_ORIGINS): its requests go to the local sandbox. */
export const SERVICE_ORIGIN = "https://sandbox.hedging.example";
const OFFICE_HOST = "https://appsforoffice.microsoft.com";

export interface Times {
  registered: number;
  price: number;
  interactive: number;
  functions: number;
  /** JS the page downloaded, in bytes (as served, not compressed), how many files, and how many came from the HTTP cache. */
  scriptBytes: number;
  scripts: number;
  cached: number;
  /** When the first GET /prices was sent and answered (the first value's request), from navigation. */
  pricesSent: number;
  pricesAnswered: number;
}

/**
 * Stands in for Office.js as Excel loads the shared runtime, in place of Microsoft's CDN script: Office.onReady says
 * Excel at once (Office.js's own start-up is not measured), OfficeRuntime.storage holds the saved demo key for the
 * service origin (as after an earlier session), CustomFunctions.associate notes each registration's time and, for
 * PRICE, calculates one =HEDGE.PRICE("USDTNGN") cell as Excel does when a workbook opens, noting its first number. The
 * workbook itself never answers (Excel.run stays pending): the desk's log read is left waiting.
 */
export function officeStandIn(): string {
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

/**
 * Answers the page's requests to Office.js's host (the stand-in) and to the service origin (forwarded to the sandbox,
 * CORS preflights included) through the DevTools Fetch domain, for these two hosts only: Playwright's own routing would
 * turn the HTTP cache off, and the warm start needs it.
 */
export async function interceptForeignHosts(cdp: CDPSession, sandboxOrigin: string, officeJs: string): Promise<void> {
  cdp.on(
    "Fetch.requestPaused",
    (event: { requestId: string; request: { url: string; method: string; headers: Record<string, string>; postData?: string } }) => {
      void answer(event).catch(() => undefined); // the page may be gone while a poll was on its way
    },
  );
  const answer = async ({
    requestId,
    request,
  }: {
    requestId: string;
    request: { url: string; method: string; headers: Record<string, string>; postData?: string };
  }) => {
    if (request.url.startsWith(OFFICE_HOST)) {
      await cdp.send("Fetch.fulfillRequest", {
        requestId,
        responseCode: 200,
        responseHeaders: [{ name: "Content-Type", value: "text/javascript; charset=utf-8" }],
        body: Buffer.from(officeJs).toString("base64"),
      });
      return;
    }
    const headers = { ...request.headers };
    delete headers.Host;
    delete headers.host;
    const response = await fetch(request.url.replace(SERVICE_ORIGIN, sandboxOrigin), {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" ? undefined : request.postData,
    });
    const body = Buffer.from(await response.arrayBuffer());
    await cdp.send("Fetch.fulfillRequest", {
      requestId,
      responseCode: response.status,
      // fetch has already decoded the body: its encoding and length are not the ones sent on.
      responseHeaders: [...response.headers]
        .filter(([name]) => name !== "content-encoding" && name !== "content-length")
        .map(([name, value]) => ({ name, value })),
      body: body.toString("base64"),
    });
  };
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: `${OFFICE_HOST}/*` }, { urlPattern: `${SERVICE_ORIGIN}/*` }] });
}

/** The milestones and script counts of a started page: an expression evaluated in the page (plain JS, as sent). */
const COLLECT = `(() => {
  const b = window.__startup;
  // The page's own scripts (not the Office.js stand-in).
  const scripts = performance.getEntriesByType("resource")
    .filter((e) => /\\.js$/.test(new URL(e.name).pathname) && !e.name.includes("appsforoffice"));
  const prices = performance.getEntriesByType("resource")
    .filter((e) => new URL(e.name).pathname.endsWith("/prices"))
    .sort((x, y) => x.startTime - y.startTime)[0];
  return {
    pricesSent: prices ? prices.startTime : NaN,
    pricesAnswered: prices ? prices.responseEnd : NaN,
    registered: Math.max(...b.associated.map(([, t]) => t)),
    functions: b.associated.length,
    price: b.price,
    interactive: b.interactive,
    scriptBytes: scripts.reduce((sum, e) => sum + (e.decodedBodySize || 0), 0),
    scripts: scripts.length,
    // A file from the HTTP cache has no bytes on the wire (a revalidated one has its 304's headers).
    cached: scripts.filter((e) => e.transferSize === 0).length,
  };
})()`;

/** One navigation to the page in `context`, the CPU slowed `slowdown` times; its milestones from navigation. */
async function startPage(
  context: BrowserContext,
  pageUrl: string,
  sandboxOrigin: string,
  officeJs: string,
  slowdown: number,
): Promise<Times> {
  const page = await context.newPage();
  const messages: string[] = [];
  page.on("console", (m) => messages.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => messages.push(`pageerror: ${e.message}`));
  try {
    const cdp = await context.newCDPSession(page);
    await interceptForeignHosts(cdp, sandboxOrigin, officeJs);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: slowdown });
    await page.goto(pageUrl);
    // Polled through DevTools' Runtime.evaluate, not Playwright's waitForFunction/evaluate: those inject Playwright's
    // own script into the page, hundreds of ms of main-thread work at 4× landing in the middle of the start measured.
    const evaluate = async <T>(expression: string): Promise<T> =>
      ((await cdp.send("Runtime.evaluate", { expression, returnByValue: true })) as { result: { value: T } }).result.value;
    const deadline = Date.now() + 90_000;
    while (!(await evaluate<boolean>("window.__startup.price !== null && window.__startup.interactive !== null"))) {
      if (Date.now() > deadline) {
        const state = await evaluate<string>("JSON.stringify(window.__startup)");
        throw new Error(`${pageUrl}: the page did not finish starting: ${state}\n${messages.join("\n")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return await evaluate<Times>(COLLECT);
  } finally {
    await page.close();
  }
}

/**
 * A cold start (a fresh browser context: empty HTTP cache) and then a warm one (a second start in the same context, the
 * HTTP cache kept, as the second start of the day), both under the same CPU slowdown.
 */
export async function coldThenWarm(
  browser: Browser,
  origin: string,
  sandboxOrigin: string,
  officeJs: string,
  slowdown: number,
): Promise<{ cold: Times; warm: Times }> {
  const context = await browser.newContext({ viewport: { width: 320, height: 900 } });
  try {
    const cold = await startPage(context, `${origin}/taskpane.html`, sandboxOrigin, officeJs, slowdown);
    const warm = await startPage(context, `${origin}/taskpane.html`, sandboxOrigin, officeJs, slowdown);
    return { cold, warm };
  } finally {
    await context.close();
  }
}
