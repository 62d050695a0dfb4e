// The preload hints (src/devtools/preload-hints.ts) on a small webpack build: the page gets a preload link for each file of the named later chunks (their shared chunks too), none for what it loads anyway, and a name that is no chunk stops the build.
import fs from "fs";
import os from "os";
import path from "path";
import { preloadHints } from "../../src/devtools/preload-hints";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const HtmlWebpackPlugin = require("html-webpack-plugin") as typeof import("html-webpack-plugin");

/** Builds a page whose entry imports "panel" and "chart" later (both sharing one module), with hints for `chunks`. */
async function build(chunks: string[]): Promise<{ html: string; files: string[]; errors: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "preload-hints-"));
  fs.writeFileSync(path.join(dir, "shared.js"), `export const shared = () => "${"shared ".repeat(50)}";`);
  fs.writeFileSync(path.join(dir, "panel.js"), `import { shared } from "./shared.js"; export const panel = () => shared() + "panel";`);
  fs.writeFileSync(path.join(dir, "chart.js"), `import { shared } from "./shared.js"; export const chart = () => shared() + "chart";`);
  fs.writeFileSync(
    path.join(dir, "entry.js"),
    `setTimeout(() => { import(/* webpackChunkName: "panel" */ "./panel.js"); import(/* webpackChunkName: "chart" */ "./chart.js"); });`,
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const webpack = require("webpack") as typeof import("webpack");
  try {
    const stats = await new Promise<import("webpack").Stats>((resolve, reject) =>
      webpack(
        {
          mode: "production",
          context: dir,
          entry: { page: "./entry.js" },
          output: { path: path.join(dir, "out"), filename: "[name].[contenthash].js" },
          optimization: { splitChunks: { chunks: "all", minSize: 0 } },
          plugins: [
            new HtmlWebpackPlugin({ filename: "page.html", templateContent: "<html><head></head><body></body></html>" }),
            preloadHints(HtmlWebpackPlugin as never, { page: "page.html", chunks }) as never,
          ],
        },
        (err, result) => (err || !result ? reject(err) : resolve(result)),
      ),
    );
    const out = path.join(dir, "out");
    const errors = (stats.toJson({ all: false, errors: true }).errors ?? []).map((e) => e.message);
    const html = fs.existsSync(path.join(out, "page.html")) ? fs.readFileSync(path.join(out, "page.html"), "utf8") : "";
    return { html, files: fs.existsSync(out) ? fs.readdirSync(out) : [], errors };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The preload links' files (a production page is minified: its attribute quotes may be left out). */
const preloads = (html: string) => [...html.matchAll(/<link rel="?preload"? as="?script"? href="?([^"> ]+)"?[^>]*>/g)].map((m) => m[1]);

test("each file of the named later chunks is preloaded once, after the page's own scripts; the others are not", async () => {
  const { html, files, errors } = await build(["panel"]);
  expect(errors).toEqual([]);
  const panel = files.find((f) => /^panel\.[0-9a-f]+\.js$/.test(f))!;
  const shared = files.filter((f) => f.endsWith(".js") && !/^(panel|chart|page)\./.test(f));
  expect(shared).toHaveLength(1);
  expect(preloads(html).sort()).toEqual([panel, ...shared].sort());
  expect(html).toMatch(/<script defer[^>]* src="?page\./);
  expect(html.search(/rel="?preload/)).toBeGreaterThan(html.search(/<script defer[^>]* src="?page\./));
  expect(html).not.toMatch(/preload[^>]*(chart|page)\./);
  // Fetched at the page's own scripts' priority, after them: a preload's default (high) would fetch them first.
  for (const link of html.match(/<link rel="?preload[^>]*>/g) ?? []) expect(link).toMatch(/fetchpriority="?low/);
  const both = await build(["panel", "chart"]);
  // The shared chunk once, though both need it.
  expect(preloads(both.html)).toHaveLength(3);
}, 60_000);

test("a name that is no chunk stops the build, naming it", async () => {
  const { errors } = await build(["panels"]);
  expect(errors.join("\n")).toMatch(/no chunk named "panels"/);
}, 60_000);
