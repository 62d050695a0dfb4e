// Preload hints written by the build into a page (a webpack plugin beside HtmlWebpackPlugin): the files of chunks the page loads later (the panels of a connection) fetched while the page starts, not when first needed.
import type { Compilation, Compiler } from "webpack";

/** The part of HtmlWebpackPlugin's hooks this plugin uses (the class is passed in: the one the config built the page with). */
interface HtmlTag {
  tagName: string;
  voidTag: boolean;
  attributes: Record<string, string | boolean>;
  meta: Record<string, unknown>;
}
interface HtmlPluginClass {
  getHooks(compilation: Compilation): {
    alterAssetTagGroups: {
      tap(name: string, fn: (data: { headTags: HtmlTag[]; bodyTags: HtmlTag[]; outputName: string; publicPath: string }) => unknown): void;
    };
  };
}

export interface PreloadOptions {
  /** The page (HtmlWebpackPlugin's filename) that gets the hints. */
  page: string;
  /** The names of the chunks loaded later (webpackChunkName) whose files are to be fetched with the page. */
  chunks: readonly string[];
}

/**
 * The JS files of the named chunk groups (their own chunks and the shared ones they need), each once, in order; not
 * those of a chunk the page loads with itself anyway.
 */
export function chunkFiles(compilation: Pick<Compilation, "namedChunkGroups">, names: readonly string[]): string[] {
  const files = names.flatMap((name) => {
    const group = compilation.namedChunkGroups.get(name);
    if (!group) throw new Error(`preloadHints: no chunk named "${name}" (a webpackChunkName of an import())`);
    return group.chunks
      .filter((chunk) => !chunk.canBeInitial())
      .flatMap((chunk) => [...chunk.files].filter((file) => file.endsWith(".js")));
  });
  return [...new Set(files)];
}

/**
 * `<link rel="preload" as="script" fetchpriority="low">` for each file of `chunks`, after the page's own scripts. Low:
 * Chromium fetches a script preload at high priority and a deferred script at low, so without it the later chunks would
 * be fetched before the functions' and the engine's own scripts (the registration measured 49 % later at 1× cold).
 */
export function preloadHints(HtmlPlugin: HtmlPluginClass, { page, chunks }: PreloadOptions) {
  return {
    apply(compiler: Compiler): void {
      compiler.hooks.thisCompilation.tap("PreloadHints", (compilation) => {
        HtmlPlugin.getHooks(compilation).alterAssetTagGroups.tap("PreloadHints", (data) => {
          if (data.outputName !== page) return data;
          const links = chunkFiles(compilation, chunks).map((file) => ({
            tagName: "link",
            voidTag: true,
            attributes: { rel: "preload", as: "script", href: `${data.publicPath}${file}`, fetchpriority: "low" },
            meta: { plugin: "PreloadHints" },
          }));
          data.headTags.push(...links);
          return data;
        });
      });
    },
  };
}
