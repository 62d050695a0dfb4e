// webpack.config.js as a whole: the dev server's port from package.json alone, a production build stops with a clear message without ADDIN_PUBLIC_URL or SERVICE_ORIGINS (never a localhost manifest, never a page that may connect anywhere), the harness entry in development only, the page budget in production only.
import fs from "fs";
import path from "path";

type Plugin = { name?: string; page?: string; entries?: string[]; maxGzipBytes?: number };
type MakeConfig = (env: Record<string, string>, argv: { mode: string }) => Promise<{ devtool?: unknown; entry: Record<string, unknown> }>;
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

test("development builds need neither setting and put the harness entry before the pane", async () => {
  const config = await makeConfig({}, { mode: "development" });
  expect(config.entry.taskpane).toEqual(["./src/taskpane/harness-entry.ts", "./src/taskpane/taskpane.ts"]);
  expect((await makeConfig(GOOD, { mode: "production" })).entry.taskpane).toBe("./src/taskpane/taskpane.ts");
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
});
