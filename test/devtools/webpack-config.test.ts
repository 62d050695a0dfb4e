// The build's settings: the dev server's port from package.json alone, a production build stops with a clear message without ADDIN_PUBLIC_URL or SERVICE_ORIGINS (never a localhost manifest, never a page that may connect anywhere), and the CSP it writes.
import fs from "fs";
import os from "os";
import path from "path";

type Plugin = { name?: string; page?: string; entries?: string[]; maxGzipBytes?: number };
type MakeConfig = ((
  env: Record<string, string>,
  argv: { mode: string },
) => Promise<{ devtool?: unknown; entry: Record<string, unknown> }>) & {
  contentSecurityPolicy(origins: string[], production: boolean): string;
  serviceOrigins(env: Record<string, string>, production: boolean): string[];
  pageBudget(options: { page: string; entries: string[]; maxGzipBytes: number }): Plugin;
  publicUrl(env: Record<string, string>, production: boolean): string;
  OFFICE_JS_URL: string;
};
const CONFIG_FILE = path.resolve(__dirname, "../../webpack.config.js");
const PACKAGE_FILE = path.resolve(__dirname, "../../package.json");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const makeConfig = require(CONFIG_FILE) as MakeConfig;

const GOOD = { ADDIN_PUBLIC_URL: "https://hedge.addins.example.com/", SERVICE_ORIGINS: "https://api.hedging.example" };
const saved = { ...process.env };
beforeEach(() => {
  delete process.env.ADDIN_PUBLIC_URL;
  delete process.env.SERVICE_ORIGINS;
  delete process.env.SHARED_ORIGIN_OK;
});
afterAll(() => {
  process.env = saved;
});

test("a production build without ADDIN_PUBLIC_URL stops, saying what to set", async () => {
  await expect(makeConfig({ SERVICE_ORIGINS: GOOD.SERVICE_ORIGINS }, { mode: "production" })).rejects.toThrow(
    /ADDIN_PUBLIC_URL is not set: a production build needs the https:\/\/ address .* ADDIN_PUBLIC_URL=https:\/\/hedge\.addins\.example\.com\//,
  );
});

test("a production build without SERVICE_ORIGINS stops, saying what to set", async () => {
  await expect(makeConfig({ ADDIN_PUBLIC_URL: GOOD.ADDIN_PUBLIC_URL }, { mode: "production" })).rejects.toThrow(
    /SERVICE_ORIGINS is not set: .* e\.g\. SERVICE_ORIGINS=https:\/\/api\.hedging\.example,https:\/\/sandbox\.hedging\.example/,
  );
});

test("the environment variables work as well as --env", async () => {
  Object.assign(process.env, GOOD);
  await expect(makeConfig({}, { mode: "production" })).resolves.toMatchObject({ devtool: "hidden-source-map" });
});

test.each([
  ["http://api.hedging.example", /must be https:\/\//],
  ["https://api.hedging.example/v2", /without a path/],
  ["api.hedging.example", /is not a URL/],
  ["ftp://api.hedging.example", /must be an https:\/\/ origin/],
  ["https://api.hedging.example?x=1", /without a path/],
  // The CSP would allow every subdomain while the pane compares origins exactly; or a directive would be cut in two.
  ["https://*.hedging.example", /must name one host .*no wildcard/],
  ["https://api.hedging.example;script-src", /must name one host/],
  ["https://[::1]:4010", /no IPv6 address/],
])("SERVICE_ORIGINS=%s is refused in production", (origins, message) => {
  expect(() => makeConfig.serviceOrigins({ SERVICE_ORIGINS: origins }, true)).toThrow(message);
});

test("several origins, by commas or spaces; development builds need none", () => {
  expect(makeConfig.serviceOrigins({ SERVICE_ORIGINS: "https://a.example, https://b.example:8443 https://c.example/" }, true)).toEqual([
    "https://a.example",
    "https://b.example:8443",
    "https://c.example",
  ]);
  expect(makeConfig.serviceOrigins({}, false)).toEqual([]);
});

test("an origin is written as browsers write it (lower case, no default port), the form the pane compares with", () => {
  expect(makeConfig.serviceOrigins({ SERVICE_ORIGINS: "https://API.Hedging.Example:443,https://bücher.example" }, true)).toEqual([
    "https://api.hedging.example",
    "https://xn--bcher-kva.example",
  ]);
});

test("development builds need neither setting and put the harness entry before the pane", async () => {
  const config = await makeConfig({}, { mode: "development" });
  expect(config.entry.taskpane).toEqual(["./src/taskpane/harness-entry.ts", "./src/taskpane/taskpane.ts"]);
  expect((await makeConfig(GOOD, { mode: "production" })).entry.taskpane).toBe("./src/taskpane/taskpane.ts");
});

test("the CSP: self by default, Office.js's folder and MicrosoftAjax's one file, inline styles, connections only to self and the service origins (plus loopback in development)", () => {
  expect(makeConfig.contentSecurityPolicy(["https://api.hedging.example"], true)).toBe(
    "default-src 'self'; script-src 'self' https://appsforoffice.microsoft.com/lib/1/hosted/ https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js; " +
      "style-src 'self' 'unsafe-inline'; img-src 'self'; font-src 'self'; frame-src 'self' https://telemetryservice.firstpartyapps.oaspapps.com; " +
      "connect-src 'self' https://api.hedging.example; object-src 'none'; base-uri 'self'; form-action 'none'",
  );
  const dev = makeConfig.contentSecurityPolicy([], false);
  expect(dev).toContain("connect-src 'self' http://localhost:* https://localhost:* http://127.0.0.1:* https://127.0.0.1:*;");
  for (const csp of [dev, makeConfig.contentSecurityPolicy(["https://a.example"], true)]) {
    expect(csp).not.toMatch(/sandbox|frame-ancestors|unsafe-eval|script-src[^;]*unsafe-inline/);
    // No whole CDN host: ajax.aspnetcdn.com also serves old jQuery and Knockout (script gadgets).
    expect(csp).not.toMatch(/script-src[^;]*https:\/\/[a-z.]+(?:[ ;]|$)/);
  }
});

test("the page the functions and commands run in is taskpane.html, the page under the CSP, and it loads Office.js from the URL the CSP names", () => {
  const manifest = fs.readFileSync(path.resolve(__dirname, "../../manifest.xml"), "utf8");
  const urlOf = (resid: string) => new RegExp(`<bt:Url id="${resid}" DefaultValue="([^"]+)"`).exec(manifest)![1];
  expect(/<Runtime resid="([^"]+)"/.exec(manifest)![1]).toBe("Taskpane.Url");
  expect(/<FunctionFile resid="([^"]+)"/.exec(manifest)![1]).toBe("Taskpane.Url");
  expect(urlOf("Taskpane.Url")).toMatch(/\/taskpane\.html$/);
  const html = fs.readFileSync(path.resolve(__dirname, "../../src/taskpane/taskpane.html"), "utf8");
  const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toEqual([makeConfig.OFFICE_JS_URL]);
  const policy = makeConfig.contentSecurityPolicy([], true);
  const scriptSources = /script-src ([^;]+)/.exec(policy)![1].split(" ");
  expect(scriptSources.some((source) => source.endsWith("/") && makeConfig.OFFICE_JS_URL.startsWith(source))).toBe(true);
});

describe("an add-in origin of its own (OfficeRuntime.storage and the CSP's 'self' are per origin)", () => {
  const withPath = { ...GOOD, ADDIN_PUBLIC_URL: "https://addins.example.com/hedge/" };
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(console, "warn").mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  test("a production build for an address with a path stops, saying why and what to do", async () => {
    await expect(makeConfig(withPath, { mode: "production" })).rejects.toThrow(
      /ADDIN_PUBLIC_URL https:\/\/addins\.example\.com\/hedge\/ has a path.*OfficeRuntime\.storage.*API key.*per origin.*https:\/\/hedge\.addins\.example\.com\/.*SHARED_ORIGIN_OK=1/,
    );
    expect(warn).not.toHaveBeenCalled();
  });

  test("SHARED_ORIGIN_OK=1 builds it, with a warning that explains the risk", async () => {
    await expect(makeConfig({ ...withPath, SHARED_ORIGIN_OK: "1" }, { mode: "production" })).resolves.toMatchObject({
      devtool: "hidden-source-map",
    });
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/^WARNING: .*OfficeRuntime\.storage.*per origin.*https:\/\/addins\.example\.com can read the key/),
    );
  });

  test("the root of an origin builds without a word; development builds are not asked", async () => {
    await expect(makeConfig(GOOD, { mode: "production" })).resolves.toBeDefined();
    await expect(makeConfig({ ADDIN_PUBLIC_URL: "https://hedge.addins.example.com" }, { mode: "development" })).resolves.toBeDefined();
    expect(makeConfig.publicUrl({ ADDIN_PUBLIC_URL: "https://addins.example.com/hedge" }, false)).toBe("https://addins.example.com/hedge/");
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("the dev server's port is package.json's config.dev_server_port, and only there", () => {
  type Built = { devServer: { port: number }; plugins: Array<{ patterns?: Array<{ to?: string; transform?: (b: Buffer) => string }> }> };
  /** webpack.config.js loaded as if package.json said `port`. */
  function configWithPort(port: unknown): MakeConfig {
    const real = JSON.parse(fs.readFileSync(PACKAGE_FILE, "utf8")) as { config: Record<string, unknown> };
    let loaded: MakeConfig | undefined;
    jest.resetModules();
    jest.isolateModules(() => {
      jest.doMock(PACKAGE_FILE, () => ({ ...real, config: { ...real.config, dev_server_port: port } }));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(CONFIG_FILE) as MakeConfig;
    });
    jest.dontMock(PACKAGE_FILE);
    return loaded!;
  }

  test("another port moves the dev server and every URL of the development manifest", async () => {
    const built = (await configWithPort(3456)({}, { mode: "development" })) as unknown as Built;
    expect(built.devServer.port).toBe(3456);
    const manifest = built.plugins.flatMap((p) => p.patterns ?? []).find((p) => p.to === "manifest.xml")!;
    const xml = manifest.transform!(fs.readFileSync(path.resolve(__dirname, "../../manifest.xml")));
    const urls = [...xml.matchAll(/DefaultValue="(\w+:\/\/[^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(10);
    for (const url of urls) expect(url).toMatch(/^https:\/\/localhost:3456\//);
  });

  test("a port that is not a number stops the build, saying where to set it", () => {
    expect(() => configWithPort("three thousand")).toThrow(/package\.json: config\.dev_server_port must be a port number/);
  });
});

describe("the page's performance budget", () => {
  type WithPlugins = { plugins: Plugin[] };
  test("the production build weighs what taskpane.html loads before anything runs (all four entries) against 100 kB gzipped; development builds do not", async () => {
    const production = (await makeConfig(GOOD, { mode: "production" })) as unknown as WithPlugins;
    const budget = production.plugins.find((p) => p.name === "PageBudget");
    const html = production.plugins.find((p) => p.constructor.name === "HtmlWebpackPlugin") as unknown as {
      userOptions: { chunks: string[] };
    };
    expect(budget).toMatchObject({ page: "taskpane.html", maxGzipBytes: 100_000 });
    expect(budget!.entries).toEqual(html.userOptions.chunks);
    const development = (await makeConfig({}, { mode: "development" })) as unknown as WithPlugins;
    expect(development.plugins.some((p) => p.name === "PageBudget")).toBe(false);
  });

  /** Builds two entries sharing one module (about 6 kB gzipped in all) under `maxGzipBytes`; the budget's errors and its logged figure. */
  async function buildUnder(maxGzipBytes: number): Promise<{ errors: string[]; figure: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "page-budget-"));
    // Text that does not compress: a page's weight after gzip, not before.
    let seed = 7;
    const noise = (n: number) =>
      Array.from({ length: n }, () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % 36).toString(36)).join("");
    fs.writeFileSync(path.join(dir, "shared.js"), `export const shared = "${noise(4_000)}";`);
    fs.writeFileSync(path.join(dir, "a.js"), `import { shared } from "./shared.js"; console.log(shared, "${noise(2_000)}");`);
    fs.writeFileSync(path.join(dir, "b.js"), `import { shared } from "./shared.js"; console.log(shared, "${noise(2_000)}");`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const webpack = require("webpack") as typeof import("webpack");
    try {
      const stats = await new Promise<import("webpack").Stats>((resolve, reject) =>
        webpack(
          {
            mode: "production",
            context: dir,
            entry: { pane: "./a.js", functions: "./b.js" },
            output: { path: path.join(dir, "out") },
            optimization: { splitChunks: { chunks: "all", minSize: 0 } },
            plugins: [makeConfig.pageBudget({ page: "page.html", entries: ["pane", "functions"], maxGzipBytes }) as never],
          },
          (err, result) => (err || !result ? reject(err) : resolve(result)),
        ),
      );
      const json = stats.toJson({ all: false, errors: true, logging: "info" });
      return {
        errors: (json.errors ?? []).map((e) => e.message),
        figure: json.logging?.PageBudget?.entries.map((e) => e.message).join("\n") ?? "",
      };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Builds a page whose entry loads two chunks later (import()), each importing one shared module; the budget's errors and log. */
  async function buildLazy(minSize: number): Promise<{ errors: string[]; log: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "page-chunks-"));
    fs.writeFileSync(path.join(dir, "shared.js"), `export const shared = () => "${"shared ".repeat(200)}";`);
    fs.writeFileSync(path.join(dir, "x.js"), `import { shared } from "./shared.js"; export const x = () => shared() + "x";`);
    fs.writeFileSync(path.join(dir, "y.js"), `import { shared } from "./shared.js"; export const y = () => shared() + "y";`);
    fs.writeFileSync(
      path.join(dir, "a.js"),
      `import(/* webpackChunkName: "ex" */ "./x.js").then((m) => console.log(m.x())); import(/* webpackChunkName: "why" */ "./y.js").then((m) => console.log(m.y()));`,
    );
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const webpack = require("webpack") as typeof import("webpack");
    try {
      const stats = await new Promise<import("webpack").Stats>((resolve, reject) =>
        webpack(
          {
            mode: "production",
            context: dir,
            entry: { pane: "./a.js" },
            output: { path: path.join(dir, "out") },
            optimization: { splitChunks: { chunks: "all", minSize } },
            plugins: [makeConfig.pageBudget({ page: "page.html", entries: ["pane"], maxGzipBytes: 100_000 }) as never],
          },
          (err, result) => (err || !result ? reject(err) : resolve(result)),
        ),
      );
      const json = stats.toJson({ all: false, errors: true, logging: "info" });
      return {
        errors: (json.errors ?? []).map((e) => e.message),
        log: json.logging?.PageBudget?.entries.map((e) => e.message).join("\n") ?? "",
      };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test("the report names each chunk with its sizes and when it loads; a module in two chunks fails the build", async () => {
    const shared = await buildLazy(0);
    expect(shared.errors).toEqual([]);
    expect(shared.log).toMatch(/^chunk pane: pane\.js \d+\.\d kB, \d+\.\d kB gzipped, loaded with the page \(a\.js /m);
    expect(shared.log).toMatch(/^chunk ex: ex\.js .* gzipped, loaded when first needed \(x\.js /m);
    expect(shared.log).toMatch(/^chunk why: why\.js .* gzipped, loaded when first needed \(y\.js /m);
    // The first figure counts only what the page loads at once.
    expect(shared.log).toMatch(/^page\.html loads \d+\.\d kB of JS gzipped \(budget 100\.0 kB\): pane\.js [\d.]+ kB$/m);
    // Left to webpack's default (a shared module below minSize copied into each chunk): downloaded twice, refused.
    const copied = await buildLazy(1_000_000);
    expect(copied.errors).toEqual([
      expect.stringMatching(/modules in more than one chunk, downloaded twice: shared\.js \((ex, why|why, ex)\)/),
    ]);
  }, 60_000);

  test("a page over its budget fails the build with the figure; under it, the figure is logged", async () => {
    const under = await buildUnder(100_000);
    expect(under.errors).toEqual([]);
    // Both entries and their shared chunk, each once.
    expect(under.figure).toMatch(/^page\.html loads (\d+\.\d) kB of JS gzipped \(budget 100\.0 kB\): .*pane\.js .*functions\.js/);
    const total = Number(/loads (\d+\.\d) kB/.exec(under.figure)![1]) * 1000;
    expect(total).toBeGreaterThan(5_000);
    const over = await buildUnder(total - 500);
    expect(over.errors).toEqual([
      expect.stringMatching(/page\.html loads .* kB of JS gzipped .*Over the budget: find what grew and cut it/),
    ]);
  }, 60_000);
});
