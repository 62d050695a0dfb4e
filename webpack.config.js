// Webpack build of the add-in: one shared-runtime page (taskpane + functions + commands) under a Content-Security-Policy, functions.json and its help page, assets and manifest in dist/; the build's checks are src/devtools/ modules.
const path = require("path");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const { DefinePlugin } = require("webpack");

/** A TypeScript module of src/devtools/: jest compiles it itself (ts-jest); webpack-cli and the bench load it through tsx. */
function devtool(name) {
  const file = path.join(__dirname, "src/devtools", `${name}.ts`);
  return process.env.JEST_WORKER_ID ? require(file) : require("tsx/cjs/api").require(file, __filename);
}
const { devServerPort, publicUrl, serviceOrigins } = devtool("build-settings");
const { contentSecurityPolicy } = devtool("content-security-policy");
const { devServerHttpsOptions } = devtool("dev-certs");
const { functionsHelp } = devtool("functions-help");
const { rewriteManifest } = devtool("manifest-address");
const { pageBudget } = devtool("page-budget");
const { preloadHints } = devtool("preload-hints");

const DEV_URL = `https://localhost:${devServerPort(require("./package.json"))}/`;
/**
 * The entries taskpane.html loads (one shared runtime: functions, commands, the functions' work, pane), in the order
 * the page runs them: the functions register first, from a small entry of their own (functions.ts: no client, feeds
 * or zod), before the rest of the page has run; the pane last (src/functions/README.md "When the page starts").
 */
const PAGE_ENTRIES = ["functions", "commands", "engine", "taskpane"];
/**
 * What the JS taskpane.html loads before anything runs may weigh, gzipped, in a production build: above it the build
 * fails (test/README.md "Benchmarks"). The panels of a connection are chunks loaded when it connects, not counted.
 */
const PAGE_BUDGET_GZIP_BYTES = 100_000;
/**
 * The chunk a saved connection loads at once (src/taskpane/pane-app.ts, pane-start.ts: the panels and the workbook, one chunk):
 * production pages preload them, so they arrive while the functions register instead of after the key's check.
 */
const CONNECTION_CHUNKS = ["panels"];

module.exports = async (env, argv) => {
  const production = argv.mode === "production";
  const manifestUrl = publicUrl(env, production, DEV_URL);
  const origins = serviceOrigins(env, production);
  const { version } = require("./package.json");

  return {
    mode: production ? "production" : "development",
    // Production: source maps are written for support but not referenced by the bundles (nothing asks the server for them).
    devtool: production ? "hidden-source-map" : "source-map",
    target: ["web", "es2020"],
    // In PAGE_ENTRIES' order: taskpane.html lists each entry's scripts in this order, and deferred scripts run in it.
    entry: {
      functions: "./src/functions/functions.ts",
      commands: "./src/commands/commands.ts",
      engine: "./src/functions/engine.ts",
      // Development and test builds put the memory harness (?harness=memory, window.hedgeHarness) in front of the
      // pane as a separate entry module; production bundles never contain it.
      taskpane: production ? "./src/taskpane/taskpane.ts" : ["./src/taskpane/harness-entry.ts", "./src/taskpane/taskpane.ts"],
    },
    output: {
      path: path.resolve(__dirname, "dist"),
      // Production files are named by their content's hash, so a host serves them immutable and a second start reads
      // them from the cache (README.md "Serving dist/"); taskpane.html, functions.json and the functions' 1 kB entry
      // functions.js keep their names (the manifest names functions.js as Functions.Script.Url).
      filename: production ? (data) => (data.chunk?.name === "functions" ? "[name].js" : "[name].[contenthash].js") : "[name].js",
      chunkFilename: production ? "[id].[contenthash].js" : "[id].js",
      // Production source maps go next to dist/, not into it: kept for support, never published with the add-in.
      ...(production ? { sourceMapFilename: "../dist-sourcemaps/[file].map" } : {}),
      clean: true,
    },
    // One webpack runtime for the three bundles of the shared page, so a module they share (API client, cache) is one
    // instance; code they share goes to common chunks, which HtmlWebpackPlugin adds to the page. The chunks loaded later
    // (import(): the panels of a connection, the charts) share theirs the same way, however small (minSize 0): a module
    // is in one chunk only, so it is never downloaded twice (pageBudget checks it).
    optimization: { runtimeChunk: "single", splitChunks: { chunks: "all", minSize: 0 } },
    resolve: { extensions: [".ts", ".js"] },
    module: {
      rules: [
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          loader: "ts-loader",
          // Type-checked build with the shared tsconfig.json; only files the bundles import (not tests) are compiled.
          options: { configFile: path.resolve(__dirname, "tsconfig.json"), onlyCompileBundledFiles: true },
        },
      ],
    },
    plugins: [
      // The pane refuses what the CSP would block anyway, with a message that names the allowed origins.
      new DefinePlugin({ "process.env.SERVICE_ORIGINS": JSON.stringify(origins.join(" ")) }),
      new CustomFunctionsMetadataPlugin({
        output: "functions.json",
        input: path.resolve(__dirname, "src/functions/functions.ts"),
      }),
      new HtmlWebpackPlugin({
        filename: "taskpane.html",
        template: "./src/taskpane/taskpane.html",
        chunks: PAGE_ENTRIES,
        templateParameters: { csp: contentSecurityPolicy(origins, production), harnessHint: !production },
      }),
      new CopyWebpackPlugin({
        patterns: [
          { from: "assets/*", to: "assets/[name][ext]" },
          {
            from: "manifest.xml",
            to: "manifest.xml",
            transform: (content) => rewriteManifest(content.toString(), manifestUrl),
          },
        ],
      }),
      functionsHelp(manifestUrl, version),
      ...(production
        ? [
            preloadHints(HtmlWebpackPlugin, { page: "taskpane.html", chunks: CONNECTION_CHUNKS }),
            pageBudget({ page: "taskpane.html", entries: PAGE_ENTRIES, maxGzipBytes: PAGE_BUDGET_GZIP_BYTES }),
          ]
        : []),
    ],
    // The page's budget is pageBudget above (gzipped, all its entries together); webpack's raw per-entry hints are off.
    performance: false,
    devServer: {
      port: Number(new URL(DEV_URL).port),
      headers: { "Access-Control-Allow-Origin": "*" },
      server: { type: "https", options: env.WEBPACK_SERVE ? await devServerHttpsOptions() : undefined },
      static: false,
      // Serve dist/ exactly as a build writes it (npm run validate reads it too).
      devMiddleware: { writeToDisk: true },
    },
  };
};
