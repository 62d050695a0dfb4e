// Webpack build of the add-in: one shared-runtime page (taskpane + functions + commands), functions.json, assets and manifest in dist/.
const { X509Certificate } = require("crypto");
const fs = require("fs");
const os = require("os");
const path = require("path");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const { Compilation, sources } = require("webpack");

const DEV_URL = "https://localhost:3000/";
const CERT_DIR = path.join(os.homedir(), ".office-addin-dev-certs");

/** An error webpack-cli prints as one clear line, without a stack trace. */
function configError(message) {
  const err = new Error(message);
  err.stack = message;
  return err;
}

/** The public URL that replaces https://localhost:3000/ in a production manifest (ADDIN_PUBLIC_URL), or the dev URL. */
function publicUrl() {
  const value = (process.env.ADDIN_PUBLIC_URL || "").trim();
  if (!value) return DEV_URL;
  let url;
  try {
    url = new URL(value);
  } catch {
    throw configError(`ADDIN_PUBLIC_URL is not a URL: "${value}". Use e.g. ADDIN_PUBLIC_URL=https://hedge.example.com/`);
  }
  if (url.protocol !== "https:") {
    throw configError(`ADDIN_PUBLIC_URL must be an https:// URL (Office loads add-ins over HTTPS only), got "${value}".`);
  }
  return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

/** Dev-server TLS options from office-addin-dev-certs (creating and trusting the certificates when needed). */
async function devServerHttpsOptions() {
  const files = { ca: "ca.crt", cert: "localhost.crt", key: "localhost.key" };
  const read = () => Object.fromEntries(Object.entries(files).map(([k, f]) => [k, fs.readFileSync(path.join(CERT_DIR, f))]));
  const usable = () => {
    try {
      const cert = new X509Certificate(fs.readFileSync(path.join(CERT_DIR, files.cert)));
      return fs.existsSync(path.join(CERT_DIR, files.key)) && Date.parse(cert.validTo) > Date.now() + 86_400_000;
    } catch {
      return false;
    }
  };
  // On Linux office-addin-dev-certs can only trust its CA with sudo; when that failed it would regenerate the
  // certificates on every start, undoing any manual trust. Reuse valid ones instead.
  if (process.platform === "linux" && usable()) return read();
  try {
    return await require("office-addin-dev-certs").getHttpsServerOptions();
  } catch (err) {
    if (!usable()) throw err;
    console.warn(`Dev certificates in ${CERT_DIR} are not trusted by the system; trust ca.crt manually.`);
    return read();
  }
}

/** Rewrites the dev URL in generated functions.json (e.g. helpUrl) the way the manifest copy is rewritten. */
function rewriteFunctionsJson(url) {
  return {
    apply(compiler) {
      compiler.hooks.thisCompilation.tap("RewriteFunctionsJson", (compilation) => {
        compilation.hooks.processAssets.tap({ name: "RewriteFunctionsJson", stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE }, () => {
          const asset = compilation.getAsset("functions.json");
          if (asset)
            compilation.updateAsset("functions.json", new sources.RawSource(asset.source.source().toString().replaceAll(DEV_URL, url)));
        });
      });
    },
  };
}

module.exports = async (env, argv) => {
  const production = argv.mode === "production";
  const manifestUrl = production ? publicUrl() : DEV_URL;

  return {
    mode: production ? "production" : "development",
    devtool: "source-map",
    target: ["web", "es2020"],
    entry: {
      taskpane: "./src/taskpane/taskpane.ts",
      commands: "./src/commands/commands.ts",
      functions: "./src/functions/functions.ts",
    },
    output: {
      path: path.resolve(__dirname, "dist"),
      filename: "[name].js",
      clean: true,
    },
    // One webpack runtime for the three bundles of the shared page, so a module they share (API client, cache) is one
    // instance; code they share goes to common chunks, which HtmlWebpackPlugin adds to the page.
    optimization: { runtimeChunk: "single", splitChunks: { chunks: "all" } },
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
      new CustomFunctionsMetadataPlugin({
        output: "functions.json",
        input: path.resolve(__dirname, "src/functions/functions.ts"),
      }),
      new HtmlWebpackPlugin({
        filename: "taskpane.html",
        template: "./src/taskpane/taskpane.html",
        chunks: ["taskpane", "functions", "commands"],
      }),
      new CopyWebpackPlugin({
        patterns: [
          { from: "assets/*", to: "assets/[name][ext]" },
          {
            from: "manifest.xml",
            to: "manifest.xml",
            transform: (content) => content.toString().replaceAll(DEV_URL, manifestUrl),
          },
        ],
      }),
      rewriteFunctionsJson(manifestUrl),
    ],
    // An add-in page is loaded once per session; warn only when it gets really big.
    performance: { maxEntrypointSize: 1024 * 1024, maxAssetSize: 1024 * 1024 },
    devServer: {
      port: 3000, // the port in DEV_URL and manifest.xml
      headers: { "Access-Control-Allow-Origin": "*" },
      server: { type: "https", options: env.WEBPACK_SERVE ? await devServerHttpsOptions() : undefined },
      static: false,
      // Serve dist/ exactly as a build writes it (npm run validate reads it too).
      devMiddleware: { writeToDisk: true },
    },
  };
};
