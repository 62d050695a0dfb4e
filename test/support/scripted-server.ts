// A tiny HTTP server for client tests: answers from a script and records every request it received.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  delayMs?: number;
  /** Destroy the socket without answering. */
  drop?: boolean;
}

export type Script = (request: Received, index: number) => Reply | Promise<Reply>;

export interface ScriptedServer {
  baseUrl: string;
  received: Received[];
  setScript(script: Script): void;
  close(): Promise<void>;
}

export const ok = (data: unknown, meta: Record<string, unknown> = {}): Reply => ({ status: 200, body: { data, error: null, meta } });
export const fail = (status: number, code: string, message = code, details: unknown = null, headers?: Record<string, string>): Reply => ({
  status,
  headers,
  body: { data: null, error: { code, message, details }, meta: {} },
});

export async function startScriptedServer(script: Script = () => ok(null)): Promise<ScriptedServer> {
  const received: Received[] = [];
  let current = script;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(request);
      const reply = await current(request, received.length - 1);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (reply.drop) {
        req.socket.destroy();
        return;
      }
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? null);
      res.writeHead(reply.status ?? 200, { "Content-Type": "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v2`,
    received,
    setScript: (s) => {
      current = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
