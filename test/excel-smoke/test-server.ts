// Microsoft's office-addin-test-server for the smoke run: started on a port, the add-in's posted observations awaited; on Linux it serves the dev certificates already made instead of asking office-addin-dev-certs to trust its CA (which needs sudo).
import path from "path";
import { TestServer } from "office-addin-test-server";
import { usableDevCertificates } from "../../src/devtools/dev-certs";
import { localhostTls } from "../../src/sandbox/certificates";
import type { SmokeObservation } from "../../src/taskpane/smoke-script";

export interface SmokeTestServer {
  port: number;
  /** The observations the add-in posts (once, at the end of its script). */
  results(): Promise<SmokeObservation[]>;
  stop(): Promise<void>;
}

/**
 * On Linux, the test server's office-addin-dev-certs would try to trust its CA with sudo (and regenerate the files each
 * time it fails): it is handed the certificates already made, or made now the way the sandbox makes them (a fresh
 * machine has none until something creates them; the run must not depend on which suite ran first).
 */
async function useExistingCertificatesOnLinux(): Promise<void> {
  if (process.platform !== "linux") return;
  const certs = usableDevCertificates() ?? (await localhostTls());
  const serverDir = path.dirname(require.resolve("office-addin-test-server/package.json"));
  const optionsModule = require.resolve("office-addin-dev-certs/lib/httpsServerOptions", { paths: [serverDir] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(optionsModule) as { getHttpsServerOptions: () => Promise<object> };
  mod.getHttpsServerOptions = async () => ({ key: certs.key, cert: certs.cert, ca: certs.ca });
}

export async function startSmokeTestServer(port: number): Promise<SmokeTestServer> {
  await useExistingCertificatesOnLinux();
  const server = new TestServer(port);
  // The package starts with a rejected "no results yet" promise; handled here so Node does not stop on it.
  server.getTestResults().catch(() => undefined);
  // true: as Microsoft's sample (mochaTest) — this process accepts the self-signed certificate when it pings.
  if (!(await server.startTestServer(true))) throw new Error(`The test server did not start on port ${port}.`);
  return {
    port,
    results: async () => (await server.getTestResults()) as unknown as SmokeObservation[],
    stop: async () => void (await server.stopTestServer()),
  };
}
