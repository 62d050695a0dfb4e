// The HTTPS certificate: office-addin-dev-certs' localhost certificate (the one Excel trusts), or its files if already made.
import { usableDevCertificates } from "../devtools/dev-certs";

export interface TlsOptions {
  key: string | Buffer;
  cert: string | Buffer;
  ca?: string | Buffer;
}

export const HTTPS_HELP =
  "HTTPS needs the localhost certificate of office-addin-dev-certs: run `npx office-addin-dev-certs install` once, " +
  "or start the sandbox with --http (plain HTTP on loopback, fine for tests and Node tools).";

/** Reuses office-addin-dev-certs' files while valid; otherwise asks it to create (and trust) them. */
export async function localhostTls(): Promise<TlsOptions> {
  const existing = usableDevCertificates();
  if (existing) return existing;
  try {
    const certs = (await import("office-addin-dev-certs")) as { getHttpsServerOptions: () => Promise<TlsOptions> };
    const options = await certs.getHttpsServerOptions();
    if (options?.key && options?.cert) return options;
  } catch (e) {
    const created = usableDevCertificates();
    if (created) return created;
    throw new Error(`${HTTPS_HELP} (office-addin-dev-certs said: ${(e as Error).message.split("\n")[0]})`, { cause: e });
  }
  throw new Error(HTTPS_HELP);
}
