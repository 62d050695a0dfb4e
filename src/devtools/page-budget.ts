// The page budget and chunk report of the production build (a webpack plugin): what taskpane.html loads before anything runs, gzipped, against its budget; one line per chunk; a module in two chunks refused.
import path from "node:path";
import zlib from "node:zlib";
import type { Chunk, Compilation, Compiler, Module } from "webpack";

export interface PageBudgetOptions {
  /** The page's name, for the messages ("taskpane.html"). */
  page: string;
  /** The entries the page loads, in its order. */
  entries: readonly string[];
  maxGzipBytes: number;
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** Where a module's code comes from, for the chunk report: its npm package, or its folder of src/ ("src/taskpane"). */
export function origin(resource: string): string {
  const parts = resource.split(/[\\/]/);
  const nm = parts.lastIndexOf("node_modules");
  if (nm >= 0) return parts[nm + 1].startsWith("@") ? `${parts[nm + 1]}/${parts[nm + 2]}` : parts[nm + 1];
  const src = parts.lastIndexOf("src");
  return src >= 0 ? parts.slice(src, src + 2).join("/") : path.basename(resource);
}

/** The source files of a module (a concatenated module's inner modules), with their sizes. */
function sourcesOf(module: Module): Array<{ resource: string; size: number }> {
  const inner = (module as Module & { modules?: Module[] }).modules ?? [module];
  return inner
    .map((m) => ({ m, resource: (m as Module & { resource?: string }).resource }))
    .filter((x): x is { m: Module; resource: string } => Boolean(x.resource))
    .map(({ m, resource }) => ({ resource: resource.split("?")[0], size: m.size() }));
}

const chunkName = (chunk: Chunk) => chunk.name ?? String(chunk.id);

/**
 * A performance budget for one page, and the build's chunk report. The budget weighs the JS files its entries load
 * before anything runs (their initial chunks, shared ones once), gzipped as a server sends them; above `maxGzipBytes`
 * it is a build error. Chunks loaded later (webpack's `import()`, e.g. the panels of a connection) are not in the
 * figure. The report logs one line per chunk: its name (or id), file, size and gzipped size, whether the page loads it
 * at once or later, and what it holds most (by npm package or folder of src/). A source module found in two chunks
 * (it would be downloaded twice) is a build error too. (webpack's own `performance` hints weigh raw files per entry point.)
 */
export function pageBudget({ page, entries, maxGzipBytes }: PageBudgetOptions) {
  return {
    name: "PageBudget",
    page,
    entries,
    maxGzipBytes,
    apply(compiler: Compiler): void {
      const { Compilation: Stages } = compiler.webpack;
      compiler.hooks.thisCompilation.tap("PageBudget", (compilation) => {
        // After minification and source maps: the files as they are written.
        compilation.hooks.processAssets.tap({ name: "PageBudget", stage: Stages.PROCESS_ASSETS_STAGE_ANALYSE }, () => {
          const logger = compilation.getLogger("PageBudget");
          const gzip = (file: string) => zlib.gzipSync(compilation.getAsset(file)!.source.buffer()).length;
          const files = [...new Set(entries.flatMap((name) => [...(compilation.entrypoints.get(name)?.getFiles() ?? [])]))];
          const scripts = files.filter((file) => file.endsWith(".js"));
          const sizes = scripts.map((file) => ({ file, gzip: gzip(file) }));
          const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
          const detail = sizes.map((s) => `${s.file} ${kB(s.gzip)}`).join(", ");
          const figure = `${page} loads ${kB(total)} of JS gzipped (budget ${kB(maxGzipBytes)}): ${detail}`;
          logger.info(figure);
          if (total > maxGzipBytes)
            fail(compiler, compilation, `${figure}. Over the budget: find what grew and cut it (test/README.md "Benchmarks").`);
          const twice = chunkReport(compilation, new Set(scripts), gzip, (line) => logger.info(line));
          if (twice.length > 0) {
            const list = twice
              .map(([resource, chunks]) => `${path.relative(compiler.context, resource)} (${chunks.join(", ")})`)
              .join("; ");
            fail(
              compiler,
              compilation,
              `${page}: modules in more than one chunk, downloaded twice: ${list}. Give them one chunk (optimization.splitChunks).`,
            );
          }
        });
      });
    },
  };
}

/** A build error of one line (no stack trace). */
function fail(compiler: Compiler, compilation: Compilation, message: string): void {
  const error = new compiler.webpack.WebpackError(message);
  error.stack = error.message;
  compilation.errors.push(error);
}

/** Logs one line per chunk (by name); returns the source modules found in more than one chunk, with their chunks. */
function chunkReport(
  compilation: Compilation,
  initial: ReadonlySet<string>,
  gzip: (file: string) => number,
  log: (line: string) => void,
): Array<[string, string[]]> {
  const holders = new Map<string, string[]>();
  for (const chunk of [...compilation.chunks].sort((a, b) => chunkName(a).localeCompare(chunkName(b)))) {
    const file = [...chunk.files].find((f) => f.endsWith(".js"));
    if (!file) continue;
    const byOrigin = new Map<string, number>();
    for (const module of compilation.chunkGraph.getChunkModulesIterable(chunk))
      for (const { resource, size } of sourcesOf(module)) {
        byOrigin.set(origin(resource), (byOrigin.get(origin(resource)) ?? 0) + size);
        holders.set(resource, [...(holders.get(resource) ?? []), chunkName(chunk)]);
      }
    const most = [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 4);
    const raw = compilation.getAsset(file)!.source.size();
    log(
      `chunk ${chunkName(chunk)}: ${file} ${kB(raw)}, ${kB(gzip(file))} gzipped, ${initial.has(file) ? "loaded with the page" : "loaded when first needed"}` +
        ` (${most.map(([name, size]) => `${name} ${kB(size)}`).join(", ")})`,
    );
  }
  return [...holders].filter(([, chunks]) => chunks.length > 1);
}
