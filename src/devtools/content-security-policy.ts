// The page's Content-Security-Policy, written by the build into taskpane.html: what the page may load and where it may connect (src/README.md "Security" gives the reason for each entry).
/**
 * The scripts the page may load besides its own bundles: Office.js's folder on Microsoft's CDN (office.js loads its
 * host script, e.g. excel-web-16.00.js, and its strings from beside itself, so its exact URL alone would stop it in
 * Excel) and the one MicrosoftAjax file its Windows, Mac and custom-functions host scripts load from ajax.aspnetcdn.com
 * (the rest of that host serves old jQuery and Knockout: script gadgets).
 */
export const OFFICE_JS_URL = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";
const OFFICE_SCRIPT_SOURCES = [new URL(".", OFFICE_JS_URL).href, "https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js"];
/** The one frame Office.js opens itself, even outside Office: its telemetry page (a foreign origin, which cannot read this page). */
const OFFICE_FRAME_SOURCES = ["https://telemetryservice.firstpartyapps.oaspapps.com"];
/** Development and test builds may also reach the local sandbox, on any port (CSP cannot say 127.x.x.x or [::1]). */
const LOOPBACK_SOURCES = ["http://localhost:*", "https://localhost:*", "http://127.0.0.1:*", "https://127.0.0.1:*"];

/**
 * Everything from this add-in's origin by default; scripts also from Office.js's folder and MicrosoftAjax's one file,
 * no inline script; images, fonts and styles from this origin (inline styles allowed: Office.js and Fluent set them);
 * frames from this origin and Office.js's telemetry page; connections only to this origin and the allowed service
 * origins; no sandbox and no frame-ancestors, which would stop Excel on the web from framing the page or Office.js from
 * loading. The one page of the shared runtime: the functions and commands run in it too (manifest.xml's Runtime and
 * FunctionFile are taskpane.html).
 */
export function contentSecurityPolicy(origins: readonly string[], production: boolean): string {
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
