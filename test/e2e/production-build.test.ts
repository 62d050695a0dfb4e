// The production build holds only what runs in Excel: no memory harness, memory workbook, window.hedgeHarness or smoke script (the test build has them), a page that only says to open it from Excel, the CSP of its SERVICE_ORIGINS, no served source maps, a manifest and help page for its public URL.
import fs from "fs";
import path from "path";
import { describeWithBrowser } from "./browser";
import { ensureBuilt, PRODUCTION_ENV } from "./build";
import { cspViolations, startPaneSession, type PaneSession } from "./pane-driver";

jest.setTimeout(300_000);

/** Strings only the memory harness (harness.ts, harness-entry.ts) and the memory workbook contain. */
const TEST_SEAMS = [
  "hedgeHarness",
  "harness=memory",
  "DEAL-1001",
  "custom property",
  "Not a cell address",
  "MemorySheetWriter",
  // The smoke run of npm run test:excel (smoke-script.ts, smoke-sheet.ts, memory-formulas.ts, office-addin-test-helpers).
  "smoke-service",
  "Hedge Smoke",
  "Not a HEDGE.* call with literal arguments",
  "/results/",
];

const files = (dir: string, ext: string) =>
  fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ext))
    .map((f) => path.join(dir, f));
const text = (dir: string, ext: string) => files(dir, ext).map((f) => fs.readFileSync(f, "utf8"));

let prod: string;
let dev: string;
beforeAll(async () => {
  dev = await ensureBuilt("development");
  prod = await ensureBuilt("production");
}, 300_000);

test("the test build has the harness and the memory workbook; the production bundles have none of them", () => {
  const devCode = text(dev, ".js").join("\n");
  const prodCode = [...text(prod, ".js"), ...text(prod, ".html")].join("\n");
  for (const seam of TEST_SEAMS) {
    expect([seam, devCode.includes(seam)]).toEqual([seam, true]);
    expect([seam, prodCode.includes(seam)]).toEqual([seam, false]);
  }
});

/** The project's own modules in a build, as its source maps list them (immune to minification's renaming). */
const modulesOf = (mapsDir: string) =>
  new Set(
    files(mapsDir, ".map").flatMap((f) =>
      (JSON.parse(fs.readFileSync(f, "utf8")) as { sources: string[] }).sources
        .map((s) => /(src\/[\w/.-]+\.ts)$/.exec(s)?.[1])
        .filter((s): s is string => s !== undefined),
    ),
  );

test("by their source maps, the production bundles hold no module of the harness or the memory workbook", () => {
  const seams = [
    "src/taskpane/harness-entry.ts",
    "src/taskpane/harness.ts",
    "src/excel/memory-workbook.ts",
    "src/taskpane/smoke-script.ts",
    "src/excel/smoke-sheet.ts",
    "src/excel/memory-formulas.ts",
  ];
  const devModules = modulesOf(dev);
  const prodModules = modulesOf(path.join(path.dirname(prod), "dist-sourcemaps"));
  expect(prodModules).toContain("src/taskpane/taskpane.ts");
  for (const seam of seams) {
    expect([seam, devModules.has(seam)]).toEqual([seam, true]);
    expect([seam, prodModules.has(seam)]).toEqual([seam, false]);
  }
});

test("the production page says only to open it from Excel, under a CSP of its SERVICE_ORIGINS", () => {
  const html = fs.readFileSync(path.join(prod, "taskpane.html"), "utf8");
  // (The production page is minified: attribute quotes and closing tags may be left out.)
  const outside = /<div id="?outside-office"?[^>]*>([\s\S]*?)<div id="?app"?/.exec(html)?.[1] ?? "";
  expect(
    outside
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim(),
  ).toBe("Hedge for Excel Open this page from Excel: on the Home tab, choose Hedge .");
  const csp = /http-equiv="?Content-Security-Policy"? content="([^"]+)"/.exec(html)?.[1];
  expect(csp).toBe(
    "default-src 'self'; script-src 'self' https://appsforoffice.microsoft.com/lib/1/hosted/ https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js; " +
      "style-src 'self' 'unsafe-inline'; img-src 'self'; font-src 'self'; frame-src 'self' https://telemetryservice.firstpartyapps.oaspapps.com; connect-src 'self' https://api.hedging.example https://sandbox.hedging.example; object-src 'none'; base-uri 'self'; form-action 'none'",
  );
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
});

test("every script but functions.js is named by its content's hash (served immutable); the page, functions.json and functions.js (the manifest's Functions.Script.Url) keep their names", () => {
  const scripts = fs.readdirSync(prod).filter((f) => f.endsWith(".js"));
  expect(scripts.length).toBeGreaterThan(10);
  expect(scripts).toContain("functions.js");
  for (const script of scripts.filter((f) => f !== "functions.js")) expect(script).toMatch(/^[\w-]+\.[0-9a-f]{16,}\.js$/);
  expect(fs.existsSync(path.join(prod, "taskpane.html"))).toBe(true);
  expect(fs.existsSync(path.join(prod, "functions.json"))).toBe(true);
});

test("source maps are kept for support beside dist/, never referenced or published in it", () => {
  expect(files(prod, ".map")).toEqual([]);
  for (const code of text(prod, ".js")) expect(code).not.toContain("sourceMappingURL");
  const maps = path.join(path.dirname(prod), "dist-sourcemaps");
  expect(fs.readdirSync(maps)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^taskpane\.[0-9a-f]{16,}\.js\.map$/), "functions.js.map"]),
  );
});

test("manifest, functions.json and the help page point at the public URL, with one help anchor per function", () => {
  const url = PRODUCTION_ENV.ADDIN_PUBLIC_URL;
  const manifest = fs.readFileSync(path.join(prod, "manifest.xml"), "utf8");
  expect(manifest).not.toContain("localhost");
  expect(manifest).toContain(`<SupportUrl DefaultValue="${url}help.html" />`);
  expect(manifest).toContain('<Set Name="CustomFunctionsRuntime" MinVersion="1.3" />');
  const functions = JSON.parse(fs.readFileSync(path.join(prod, "functions.json"), "utf8")) as {
    functions: { id: string; helpUrl: string }[];
  };
  const help = fs.readFileSync(path.join(prod, "help.html"), "utf8");
  expect(functions.functions.length).toBeGreaterThan(10);
  for (const fn of functions.functions) {
    const anchor = fn.id.toLowerCase();
    expect(fn.helpUrl).toBe(`${url}help.html#${anchor}`);
    expect(help).toMatch(new RegExp(`<section id="?${anchor}"?>`));
    expect(help).toContain(`=HEDGE.${fn.id}(`);
  }
});

describeWithBrowser("the production page in Chromium", (chromiumPath) => {
  let session: PaneSession;
  beforeAll(async () => {
    session = await startPaneSession(chromiumPath(), { mode: "production" });
  }, 300_000);
  afterAll(() => session?.close());

  test("?harness=memory outside Excel: the page says to open it from Excel, and there is no window.hedgeHarness", async () => {
    const pane = await session.open({ query: "harness=memory" });
    const { page } = pane;
    await page.waitForSelector("#outside-office:not([hidden])");
    expect(await page.locator("#app").isHidden()).toBe(true);
    expect(await page.evaluate(() => "hedgeHarness" in window)).toBe(false);
    expect(await page.locator("body").innerText()).toBe("Hedge for Excel\n\nOpen this page from Excel: on the Home tab, choose Hedge.");
    expect(await cspViolations(pane)).toEqual([]);
    await pane.context.close();
  });
});
