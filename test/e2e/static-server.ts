// A tiny HTTP server for the built add-in on 127.0.0.1 (random port), for the browser tests (nothing cached) and the startup bench (cached as README.md "Hosting" says).
import fs from "fs";
import http from "http";
import path from "path";
import type { AddressInfo } from "net";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".xml": "application/xml",
  ".css": "text/css",
};

/** A file name that carries its content's hash (the production build's `[name].[contenthash].js`): it never changes. */
const HASHED = /\.[0-9a-f]{8,}\.(?:js|css)$/;

/**
 * How the server lets the browser cache: "none" (no-store, the browser tests: each build is fresh) or "hosted", as
 * README.md's "Hosting" asks of a host: hashed files `immutable` for a year, everything else (taskpane.html,
 * functions.json, an older build's unhashed bundles) `no-cache`, revalidated with its ETag (304 Not Modified).
 */
export type Caching = "none" | "hosted";

export function cacheControl(file: string, caching: Caching): string {
  if (caching === "none") return "no-store";
  return HASHED.test(path.basename(file)) ? "public, max-age=31536000, immutable" : "no-cache";
}

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

export async function serveDirectory(root: string, caching: Caching = "none"): Promise<StaticServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const file = path.normalize(path.join(root, decodeURIComponent(url.pathname)));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    const stat = fs.statSync(file);
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const headers = {
      "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "Cache-Control": cacheControl(file, caching),
    };
    if (caching === "hosted" && req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ...headers, ETag: etag }).end();
      return;
    }
    res.writeHead(200, caching === "hosted" ? { ...headers, ETag: etag } : headers);
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
