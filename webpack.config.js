// Webpack build of the add-in: one shared-runtime page (taskpane + functions + commands) under a Content-Security-Policy, functions.json and its help page, assets and manifest in dist/.
const { X509Certificate } = require("crypto");
const fs = require("fs");
const os = require("os");
const path = require("path");
const CopyWebpackPlugin = require("copy-webpack-plugin");
const CustomFunctionsMetadataPlugin = require("custom-functions-metadata-plugin");
const HtmlWebpackPlugin = require("html-webpack-plugin");
const zlib = require("zlib");
const { Compilation, DefinePlugin, WebpackError, sources } = require("webpack");

/** The dev server's port: package.json's config.dev_server_port, the one place it is set (npm start reads it too). */
const DEV_PORT = Number(require("./package.json").config?.dev_server_port);
if (!Number.isInteger(DEV_PORT) || DEV_PORT < 1 || DEV_PORT > 65535)
  throw configError('package.json: config.dev_server_port must be a port number, e.g. "config": { "dev_server_port": 3000 }.');
const DEV_URL = `https://localhost:${DEV_PORT}/`;
const CERT_DIR = path.join(os.homedir(), ".office-addin-dev-certs");
/**
 * The scripts the page may load besides its own bundles (src/README.md "Security"): Office.js's folder on Microsoft's
 * CDN (office.js loads its host script, e.g. excel-web-16.00.js, and its strings from beside itself, so its exact URL
 * alone would stop it in Excel) and the one MicrosoftAjax file its Windows, Mac and custom-functions host scripts load
 * from ajax.aspnetcdn.com (the rest of that host serves old jQuery and Knockout: script gadgets).
 */
const OFFICE_JS_URL = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";
const OFFICE_SCRIPT_SOURCES = [new URL(".", OFFICE_JS_URL).href, "https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js"];
/** The one frame Office.js opens itself, even outside Office: its telemetry page (a foreign origin, which cannot read this page). */
const OFFICE_FRAME_SOURCES = ["https://telemetryservice.firstpartyapps.oaspapps.com"];
/** Development and test builds may also reach the local sandbox, on any port (CSP cannot say 127.x.x.x or [::1]). */
const LOOPBACK_SOURCES = ["http://localhost:*", "https://localhost:*", "http://127.0.0.1:*", "https://127.0.0.1:*"];
/**
 * What a SERVICE_ORIGINS entry may name: a host name (an IDN arrives in punycode) or an IPv4 address, i.e. what a CSP
 * host-source can say (letters, digits, hyphens and dots; no IPv6 literal, no wildcard).
 */
const PLAIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.?$/;
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
const EXAMPLE_ORIGINS = "SERVICE_ORIGINS=https://api.hedging.example,https://sandbox.hedging.example";

/** An error webpack-cli prints as one clear line, without a stack trace. */
function configError(message) {
  const err = new Error(message);
  err.stack = message;
  return err;
}

/** A build setting from `--env NAME=value` or the environment variable of the same name. */
function setting(env, name) {
  return String(env?.[name] ?? process.env[name] ?? "").trim();
}

/** Where the built add-in is served: the dev server in development, ADDIN_PUBLIC_URL (required) in production. */
function publicUrl(env, production) {
  const value = setting(env, "ADDIN_PUBLIC_URL");
  if (!value) {
    if (!production) return DEV_URL;
    throw configError(
      "ADDIN_PUBLIC_URL is not set: a production build needs the https:// address it will be published at, so that " +
        `dist/manifest.xml does not point Excel at ${DEV_URL}. Build with e.g. ` +
        "ADDIN_PUBLIC_URL=https://hedge.addins.example.com/ npm run build (README: Pointing at the real service).",
    );
  }
  let url;
  try {
    url = new URL(value);
  } catch {
    throw configError(`ADDIN_PUBLIC_URL is not a URL: "${value}". Use e.g. ADDIN_PUBLIC_URL=https://hedge.example.com/`);
  }
  if (url.protocol !== "https:") {
    throw configError(`ADDIN_PUBLIC_URL must be an https:// URL (Office loads add-ins over HTTPS only), got "${value}".`);
  }
  if (url.search || url.hash || url.username || url.password)
    throw configError(`ADDIN_PUBLIC_URL must be a plain https:// address without query, fragment or user name, got "${value}".`);
  const href = url.href.endsWith("/") ? url.href : `${url.href}/`;
  if (production && url.pathname !== "/") sharedOrigin(env, href, url.origin);
  return href;
}

/**
 * An ADDIN_PUBLIC_URL with a path shares its origin with whatever else that host serves. OfficeRuntime.storage (where
 * the pane keeps the API key) and the CSP's 'self' are per origin, so any other page or add-in on that origin could
 * read the key, LIVE included, and would count as the add-in's own scripts and connections. Refused, unless the
 * builder says SHARED_ORIGIN_OK=1, which builds with this warning.
 */
function sharedOrigin(env, href, origin) {
  const risk =
    `ADDIN_PUBLIC_URL ${href} has a path, so the add-in shares the origin ${origin} with anything else served there. ` +
    "OfficeRuntime.storage, where the pane keeps the API key (LIVE keys too), and the page's Content-Security-Policy " +
    `'self' are per origin: any other page or add-in on ${origin} can read the key and is trusted as the add-in's own.`;
  if (setting(env, "SHARED_ORIGIN_OK") !== "1")
    throw configError(
      `${risk} Publish the add-in at the root of an origin of its own, e.g. ADDIN_PUBLIC_URL=https://hedge.addins.example.com/, ` +
        "or, if nothing else is ever served from that origin, build with --env SHARED_ORIGIN_OK=1 (README: Pointing at the real service).",
    );
  console.warn(`WARNING: ${risk} Building anyway because SHARED_ORIGIN_OK=1: make sure nothing else is ever served from ${origin}.`);
}

/**
 * The service origins the pane may connect to (SERVICE_ORIGINS: origins separated by commas or spaces). Production
 * builds need at least one, each https; development builds may name none (they reach the local sandbox anyway).
 */
function serviceOrigins(env, production) {
  const value = setting(env, "SERVICE_ORIGINS");
  const origins = value ? value.split(/[\s,]+/).filter(Boolean) : [];
  if (production && origins.length === 0)
    throw configError(
      "SERVICE_ORIGINS is not set: a production build must name the Hedging Service origins the pane may send the API key " +
        `to (they also form the page's Content-Security-Policy), e.g. ${EXAMPLE_ORIGINS} npm run build.`,
    );
  return origins.map((origin) => {
    let url;
    try {
      url = new URL(origin);
    } catch {
      throw configError(`SERVICE_ORIGINS: "${origin}" is not a URL. Give origins only, e.g. ${EXAMPLE_ORIGINS}`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw configError(`SERVICE_ORIGINS: "${origin}" must be an https:// origin, e.g. ${EXAMPLE_ORIGINS}`);
    if (url.pathname !== "/" || url.username || url.password || /[?#]/.test(origin))
      throw configError(`SERVICE_ORIGINS: "${origin}" must be an origin (scheme://host[:port]) without a path, e.g. ${url.origin}`);
    // One host, as the pane compares it: no wildcard (the CSP would allow more than the pane), nothing that is not a host.
    if (!PLAIN_HOST.test(url.hostname))
      throw configError(
        `SERVICE_ORIGINS: "${origin}" must name one host (letters, digits, dots and hyphens; no wildcard, no IPv6 address), e.g. https://api.hedging.example`,
      );
    if (production && url.protocol !== "https:")
      throw configError(`SERVICE_ORIGINS: "${origin}" must be https:// in a production build (the API key travels to it).`);
    // As browsers write it (lower case, no default port): the form the pane compares with and the CSP lists.
    return url.origin;
  });
}

/**
 * The page's Content-Security-Policy (src/README.md "Security" gives the reason for each entry). Everything from this
 * add-in's origin by default; scripts also from Office.js's folder and MicrosoftAjax's one file, no inline script;
 * images, fonts and styles from this origin (inline styles allowed: Office.js and Fluent set them); frames from this
 * origin and Office.js's telemetry page; connections only to
 * this origin and the allowed service origins; no sandbox and no frame-ancestors, which would stop Excel on the web
 * from framing the page or Office.js from loading. The one page of the shared runtime: the functions and commands run
 * in it too (manifest.xml's Runtime and FunctionFile are taskpane.html).
 */
function contentSecurityPolicy(origins, production) {
  const connect = ["'self'", ...origins, ...(production ? [] : LOOPBACK_SOURCES)];
  return [
    "default-src 'self'",
    `script-src 'self' ${OFFICE_SCRIPT_SOURCES.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self'",
    "font-src 'self'",
    `frame-src 'self' ${OFFICE_FRAME_SOURCES.join(" ")}`,
    `connect-src ${[...new Set(connect)].join(" ")}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
  ].join("; ");
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

/**
 * The address manifest.xml is written for: the folder of its task pane page (Microsoft's templates use
 * https://localhost:3000/). The build rewrites it to where the add-in is served, so dist/manifest.xml is the one to
 * sideload or publish.
 */
function manifestTemplateUrl(manifestXml) {
  const page = /<SourceLocation DefaultValue="([^"]+)"/.exec(manifestXml)?.[1];
  if (!page) throw configError("manifest.xml has no <SourceLocation DefaultValue=...>: the build cannot tell which address to rewrite.");
  return new URL(".", page).href;
}

const escapeHtml = (text) =>
  String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/** The help anchor of a custom function: its id in lower case ("price" for HEDGE.PRICE). */
const helpAnchor = (id) => String(id).toLowerCase();

/** assets' help page: one section per custom function (anchor = its id in lower case), written from functions.json. */
function helpPage(metadata, namespace, version) {
  const fns = metadata.functions ?? [];
  const signature = (fn) =>
    `=${namespace}.${fn.name}(${(fn.parameters ?? []).map((p) => (p.optional ? `[${p.name}]` : p.name)).join(", ")})`;
  const kind = (fn) =>
    [fn.options?.stream ? "Streams: the cell updates by itself while the workbook is open." : "", fn.options?.volatile ? "Volatile." : ""]
      .filter(Boolean)
      .join(" ");
  const section = (fn) => `
    <section id="${escapeHtml(helpAnchor(fn.id))}">
      <h2><code>${escapeHtml(signature(fn))}</code></h2>
      <p>${escapeHtml(fn.description)}</p>
      ${kind(fn) ? `<p class="note">${escapeHtml(kind(fn))}</p>` : ""}
      ${
        (fn.parameters ?? []).length === 0
          ? "<p>No arguments.</p>"
          : `<dl>${fn.parameters
              .map(
                (p) =>
                  `<dt><code>${escapeHtml(p.name)}</code>${p.optional ? " (optional)" : ""}</dt><dd>${escapeHtml(p.description ?? "")}</dd>`,
              )
              .join("")}</dl>`
      }
    </section>`;
  return `<!doctype html>
<!-- Generated by webpack.config.js from functions.json: the help page of the ${namespace}.* custom functions (helpUrl and SupportUrl). -->
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self'" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Hedge for Excel: help</title>
    <style>
      body { font-family: "Segoe UI", -apple-system, Roboto, "Helvetica Neue", sans-serif; max-width: 760px; margin: 24px auto; padding: 0 16px; line-height: 1.45; color: #242424; }
      code { font-family: Consolas, "Courier New", monospace; }
      section { border-top: 1px solid #e0e0e0; padding-top: 8px; margin-top: 16px; }
      h2 { font-size: 1.05em; }
      dt { font-weight: 600; margin-top: 4px; }
      dd { margin-left: 16px; }
      .note { color: #616161; }
    </style>
  </head>
  <body>
    <h1>Hedge for Excel ${escapeHtml(version)}</h1>
    <p>
      Hedge for Excel is a client of the Hedging Service v2: <code>${namespace}.*</code> worksheet functions stream rates,
      quotes and positions into cells, and the <strong>Hedge</strong> pane (Home tab) opens, grows, reduces and closes
      hedges from the rows you select. Set your API key in the pane first. Times come back as Excel date serials in UTC.
    </p>
    <nav><ul>${fns.map((fn) => `<li><a href="#${escapeHtml(helpAnchor(fn.id))}">${namespace}.${escapeHtml(fn.name)}</a></li>`).join("")}</ul></nav>
    ${fns.map(section).join("\n")}
    <section id="support">
      <h2>Support</h2>
      <p>Errors in a cell carry a message (hover the cell). <code>=${namespace}.STATUS()</code> shows the connection, and the pane shows what to do for each error code. Contact the team that gave you this add-in.</p>
    </section>
  </body>
</html>
`;
}

/**
 * Points every custom function's helpUrl at its section of help.html, and writes help.html from functions.json
 * (so the two never disagree).
 */
function functionsHelp(url, version) {
  return {
    apply(compiler) {
      compiler.hooks.thisCompilation.tap("FunctionsHelp", (compilation) => {
        compilation.hooks.processAssets.tap({ name: "FunctionsHelp", stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE }, () => {
          const asset = compilation.getAsset("functions.json");
          if (!asset) return;
          const metadata = JSON.parse(asset.source.source().toString());
          for (const fn of metadata.functions ?? []) fn.helpUrl = `${url}help.html#${helpAnchor(fn.id)}`;
          compilation.updateAsset("functions.json", new sources.RawSource(JSON.stringify(metadata, null, 2)));
          compilation.emitAsset("help.html", new sources.RawSource(helpPage(metadata, "HEDGE", version)));
        });
      });
    },
  };
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** Where a module's code comes from, for the chunk report: its npm package, or its folder of src/ ("src/taskpane"). */
function origin(resource) {
  const parts = resource.split(/[\\/]/);
  const nm = parts.lastIndexOf("node_modules");
  if (nm >= 0) return parts[nm + 1].startsWith("@") ? `${parts[nm + 1]}/${parts[nm + 2]}` : parts[nm + 1];
  const src = parts.lastIndexOf("src");
  return src >= 0 ? parts.slice(src, src + 2).join("/") : path.basename(resource);
}

/** The source files of a module (a concatenated module's inner modules), with their sizes. */
function sourcesOf(module) {
  const inner = module.modules ?? [module];
  return inner.filter((m) => m.resource).map((m) => ({ resource: m.resource.split("?")[0], size: m.size() }));
}

/**
 * A performance budget for one page, and the build's chunk report. The budget weighs the JS files its entries load
 * before anything runs (their initial chunks, shared ones once), gzipped as a server sends them; above `maxGzipBytes`
 * it is a build error. Chunks loaded later (webpack's `import()`, e.g. the panels of a connection) are not in the
 * figure. The report logs one line per chunk: its name (or id), file, size and gzipped size, whether the page loads it
 * at once or later, and what it holds most (by npm package or folder of src/). A source module found in two chunks
 * (it would be downloaded twice) is a build error too. (webpack's own `performance` hints weigh raw files per entry point.)
 */
function pageBudget({ page, entries, maxGzipBytes }) {
  return {
    name: "PageBudget",
    page,
    entries,
    maxGzipBytes,
    apply(compiler) {
      compiler.hooks.thisCompilation.tap("PageBudget", (compilation) => {
        // After minification and source maps: the files as they are written.
        compilation.hooks.processAssets.tap({ name: "PageBudget", stage: Compilation.PROCESS_ASSETS_STAGE_ANALYSE }, () => {
          const logger = compilation.getLogger("PageBudget");
          const gzip = (file) => zlib.gzipSync(compilation.getAsset(file).source.buffer()).length;
          const files = [...new Set(entries.flatMap((name) => [...(compilation.entrypoints.get(name)?.getFiles() ?? [])]))];
          const scripts = files.filter((file) => file.endsWith(".js"));
          const sizes = scripts.map((file) => ({ file, gzip: gzip(file) }));
          const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
          const detail = sizes.map((s) => `${s.file} ${kB(s.gzip)}`).join(", ");
          const figure = `${page} loads ${kB(total)} of JS gzipped (budget ${kB(maxGzipBytes)}): ${detail}`;
          logger.info(figure);
          if (total > maxGzipBytes) {
            const error = new WebpackError(`${figure}. Over the budget: find what grew and cut it (test/README.md "Benchmarks").`);
            error.stack = error.message;
            compilation.errors.push(error);
          }
          const initial = new Set(scripts);
          const holders = new Map();
          for (const chunk of [...compilation.chunks].sort((a, b) => String(a.name ?? a.id).localeCompare(String(b.name ?? b.id)))) {
            const file = [...chunk.files].find((f) => f.endsWith(".js"));
            if (!file) continue;
            const byOrigin = new Map();
            for (const module of compilation.chunkGraph.getChunkModulesIterable(chunk))
              for (const { resource, size } of sourcesOf(module)) {
                byOrigin.set(origin(resource), (byOrigin.get(origin(resource)) ?? 0) + size);
                holders.set(resource, [...(holders.get(resource) ?? []), chunk.name ?? String(chunk.id)]);
              }
            const most = [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 4);
            const raw = compilation.getAsset(file).source.size();
            logger.info(
              `chunk ${chunk.name ?? chunk.id}: ${file} ${kB(raw)}, ${kB(gzip(file))} gzipped, ${initial.has(file) ? "loaded with the page" : "loaded when first needed"}` +
                ` (${most.map(([name, size]) => `${name} ${kB(size)}`).join(", ")})`,
            );
          }
          const twice = [...holders].filter(([, chunks]) => chunks.length > 1);
          if (twice.length > 0) {
            const list = twice
              .map(([resource, chunks]) => `${path.relative(compiler.context, resource)} (${chunks.join(", ")})`)
              .join("; ");
            const error = new WebpackError(
              `${page}: modules in more than one chunk, downloaded twice: ${list}. Give them one chunk (optimization.splitChunks).`,
            );
            error.stack = error.message;
            compilation.errors.push(error);
          }
        });
      });
    },
  };
}

module.exports = async (env, argv) => {
  const production = argv.mode === "production";
  const manifestUrl = publicUrl(env, production);
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
      filename: "[name].js",
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
            transform: (content) => {
              const xml = content.toString();
              return xml.replaceAll(manifestTemplateUrl(xml), manifestUrl);
            },
          },
        ],
      }),
      functionsHelp(manifestUrl, version),
      ...(production ? [pageBudget({ page: "taskpane.html", entries: PAGE_ENTRIES, maxGzipBytes: PAGE_BUDGET_GZIP_BYTES })] : []),
    ],
    // The page's budget is pageBudget above (gzipped, all its entries together); webpack's raw per-entry hints are off.
    performance: false,
    devServer: {
      port: DEV_PORT,
      headers: { "Access-Control-Allow-Origin": "*" },
      server: { type: "https", options: env.WEBPACK_SERVE ? await devServerHttpsOptions() : undefined },
      static: false,
      // Serve dist/ exactly as a build writes it (npm run validate reads it too).
      devMiddleware: { writeToDisk: true },
    },
  };
};

module.exports.contentSecurityPolicy = contentSecurityPolicy;
module.exports.serviceOrigins = serviceOrigins;
module.exports.publicUrl = publicUrl;
module.exports.manifestTemplateUrl = manifestTemplateUrl;
module.exports.pageBudget = pageBudget;
module.exports.DEV_URL = DEV_URL;
module.exports.OFFICE_JS_URL = OFFICE_JS_URL;
