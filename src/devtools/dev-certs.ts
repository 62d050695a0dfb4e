// The localhost certificate files of office-addin-dev-certs, reused while valid so a start never regenerates them.
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const DEV_CERT_DIR = join(homedir(), ".office-addin-dev-certs");

export interface DevCertificates {
  key: Buffer;
  cert: Buffer;
  ca?: Buffer;
}

/**
 * The certificate files when they exist and stay valid for at least a day, else null. On Linux office-addin-dev-certs
 * can trust its CA only with sudo; asking it again after that failed regenerates the files and undoes a manual trust.
 */
export function usableDevCertificates(dir: string = DEV_CERT_DIR): DevCertificates | null {
  try {
    const cert = readFileSync(join(dir, "localhost.crt"));
    const key = readFileSync(join(dir, "localhost.key"));
    if (Date.parse(new X509Certificate(cert).validTo) <= Date.now() + 86_400_000) return null;
    const caPath = join(dir, "ca.crt");
    return { key, cert, ca: existsSync(caPath) ? readFileSync(caPath) : undefined };
  } catch {
    return null;
  }
}

/**
 * The dev server's TLS options (webpack.config.js): the files while usable on Linux, else office-addin-dev-certs'
 * (creating and trusting the certificates when needed), else the files it could not trust, with a warning.
 */
export async function devServerHttpsOptions(dir: string = DEV_CERT_DIR): Promise<DevCertificates | object> {
  const existing = usableDevCertificates(dir);
  if (process.platform === "linux" && existing) return existing;
  try {
    const certs = (await import("office-addin-dev-certs")) as { getHttpsServerOptions: () => Promise<object> };
    return await certs.getHttpsServerOptions();
  } catch (err) {
    if (!existing) throw err;
    console.warn(`Dev certificates in ${dir} are not trusted by the system; trust ca.crt manually.`);
    return existing;
  }
}
