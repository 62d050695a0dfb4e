// The page's Content-Security-Policy (src/devtools/content-security-policy.ts): what it allows, and that the page it guards loads Office.js from the URL it names.
import fs from "fs";
import path from "path";
import { contentSecurityPolicy, OFFICE_JS_URL } from "../../src/devtools/content-security-policy";

test("the CSP: self by default, Office.js's folder and MicrosoftAjax's one file, inline styles, connections only to self and the service origins (plus loopback in development)", () => {
  expect(contentSecurityPolicy(["https://api.hedging.example"], true)).toBe(
    "default-src 'self'; script-src 'self' https://appsforoffice.microsoft.com/lib/1/hosted/ https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js; " +
      "style-src 'self' 'unsafe-inline'; img-src 'self'; font-src 'self'; frame-src 'self' https://telemetryservice.firstpartyapps.oaspapps.com; " +
      "connect-src 'self' https://api.hedging.example; object-src 'none'; base-uri 'self'; form-action 'none'",
  );
  const dev = contentSecurityPolicy([], false);
  expect(dev).toContain("connect-src 'self' http://localhost:* https://localhost:* http://127.0.0.1:* https://127.0.0.1:*;");
  for (const csp of [dev, contentSecurityPolicy(["https://a.example"], true)]) {
    expect(csp).not.toMatch(/sandbox|frame-ancestors|unsafe-eval|script-src[^;]*unsafe-inline/);
    // No whole CDN host: ajax.aspnetcdn.com also serves old jQuery and Knockout (script gadgets).
    expect(csp).not.toMatch(/script-src[^;]*https:\/\/[a-z.]+(?:[ ;]|$)/);
  }
});

test("the page the functions and commands run in is taskpane.html, the page under the CSP, and it loads Office.js from the URL the CSP names", () => {
  const manifest = fs.readFileSync(path.resolve(__dirname, "../../manifest.xml"), "utf8");
  const urlOf = (resid: string) => new RegExp(`<bt:Url id="${resid}" DefaultValue="([^"]+)"`).exec(manifest)![1];
  expect(/<Runtime resid="([^"]+)"/.exec(manifest)![1]).toBe("Taskpane.Url");
  expect(/<FunctionFile resid="([^"]+)"/.exec(manifest)![1]).toBe("Taskpane.Url");
  expect(urlOf("Taskpane.Url")).toMatch(/\/taskpane\.html$/);
  const html = fs.readFileSync(path.resolve(__dirname, "../../src/taskpane/taskpane.html"), "utf8");
  const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toEqual([OFFICE_JS_URL]);
  const policy = contentSecurityPolicy([], true);
  const scriptSources = /script-src ([^;]+)/.exec(policy)![1].split(" ");
  expect(scriptSources.some((source) => source.endsWith("/") && OFFICE_JS_URL.startsWith(source))).toBe(true);
});
