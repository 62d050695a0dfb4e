// The production guards of the build: ADDIN_PUBLIC_URL, SERVICE_ORIGINS, SHARED_ORIGIN_OK and the dev server's port read and checked, each refusal one clear line saying what to set.
/**
 * What a SERVICE_ORIGINS entry may name: a host name (an IDN arrives in punycode) or an IPv4 address, i.e. what a CSP
 * host-source can say (letters, digits, hyphens and dots; no IPv6 literal, no wildcard).
 */
const PLAIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.?$/;
const EXAMPLE_ORIGINS = "SERVICE_ORIGINS=https://api.hedging.example,https://sandbox.hedging.example";

/** `--env NAME=value` as webpack-cli passes them. */
export type BuildEnv = Record<string, unknown> | undefined;

/** An error webpack-cli prints as one clear line, without a stack trace. */
export function configError(message: string): Error {
  const err = new Error(message);
  err.stack = message;
  return err;
}

/** A build setting from `--env NAME=value` or the environment variable of the same name. */
export function setting(env: BuildEnv, name: string): string {
  return String(env?.[name] ?? process.env[name] ?? "").trim();
}

/** The dev server's port: package.json's config.dev_server_port, the one place it is set (npm start reads it too). */
export function devServerPort(packageJson: { config?: { dev_server_port?: unknown } }): number {
  const port = Number(packageJson.config?.dev_server_port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw configError('package.json: config.dev_server_port must be a port number, e.g. "config": { "dev_server_port": 3000 }.');
  return port;
}

/** Where the built add-in is served: the dev server (`devUrl`) in development, ADDIN_PUBLIC_URL (required) in production. */
export function publicUrl(env: BuildEnv, production: boolean, devUrl: string): string {
  const value = setting(env, "ADDIN_PUBLIC_URL");
  if (!value) {
    if (!production) return devUrl;
    throw configError(
      "ADDIN_PUBLIC_URL is not set: a production build needs the https:// address it will be published at, so that " +
        `dist/manifest.xml does not point Excel at ${devUrl}. Build with e.g. ` +
        "ADDIN_PUBLIC_URL=https://hedge.addins.example.com/ npm run build (README: Pointing at the real service).",
    );
  }
  let url: URL;
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
function sharedOrigin(env: BuildEnv, href: string, origin: string): void {
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
export function serviceOrigins(env: BuildEnv, production: boolean): string[] {
  const value = setting(env, "SERVICE_ORIGINS");
  const origins = value ? value.split(/[\s,]+/).filter(Boolean) : [];
  if (production && origins.length === 0)
    throw configError(
      "SERVICE_ORIGINS is not set: a production build must name the Hedging Service origins the pane may send the API key " +
        `to (they also form the page's Content-Security-Policy), e.g. ${EXAMPLE_ORIGINS} npm run build.`,
    );
  return origins.map((origin) => checkedOrigin(origin, production));
}

/** One SERVICE_ORIGINS entry as browsers write it (lower case, no default port): the form the pane compares with and the CSP lists. */
function checkedOrigin(origin: string, production: boolean): string {
  let url: URL;
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
  return url.origin;
}
