// The page budget and chunk report (src/devtools/page-budget.ts) on small webpack builds: the figure under and over the budget, one line per chunk, a module in two chunks refused.
import fs from "fs";
import os from "os";
import path from "path";
import { origin, pageBudget } from "../../src/devtools/page-budget";

describe("the page budget", () => {
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
            plugins: [pageBudget({ page: "page.html", entries: ["pane", "functions"], maxGzipBytes }) as never],
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
            plugins: [pageBudget({ page: "page.html", entries: ["pane"], maxGzipBytes: 100_000 }) as never],
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

test("the report names a module's npm package (with its scope) or its folder of src/", () => {
  expect(origin("/w/node_modules/zod/v4/mini/index.js")).toBe("zod");
  expect(origin("/w/node_modules/@fluentui/web-components/dist/esm/button.js")).toBe("@fluentui/web-components");
  expect(origin("C:\\w\\src\\taskpane\\pane-app.ts")).toBe("src/taskpane");
  expect(origin("/elsewhere/entry.js")).toBe("entry.js");
});
