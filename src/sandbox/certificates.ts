// The HTTPS certificate: office-addin-dev-certs' localhost certificate (the one Excel trusts), or its files if already made.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface TlsOptions {
  key: string | Buffer;
  cert: string | Buffer;
  ca?: string | Buffer;
}

const CERT_DIR = join(homedir(), ".office-addin-dev-certs");

export const HTTPS_HELP =
  "HTTPS needs the localhost certificate of office-addin-dev-certs: run `npx office-addin-dev-certs install` once, " +
  "or start the sandbox with --http (plain HTTP on loopback, fine for tests and Node tools).";

/** Asks office-addin-dev-certs for the certificate (it creates and installs it when missing); falls back to its files. */
export async function localhostTls(): Promise<TlsOptions> {
  let reason = "";
  try {
    const certs = (await import("office-addin-dev-certs")) as { getHttpsServerOptions: () => Promise<TlsOptions> };
    const options = await certs.getHttpsServerOptions();
    if (options?.key && options?.cert) return options;
  } catch (e) {
    reason = (e as Error).message.split("\n")[0];
  }
  const key = join(CERT_DIR, "localhost.key");
  const cert = join(CERT_DIR, "localhost.crt");
  if (existsSync(key) && existsSync(cert)) {
    const ca = join(CERT_DIR, "ca.crt");
    return { key: readFileSync(key), cert: readFileSync(cert), ca: existsSync(ca) ? readFileSync(ca) : undefined };
  }
  throw new Error(`${HTTPS_HELP}${reason ? ` (office-addin-dev-certs said: ${reason})` : ""}`);
}
