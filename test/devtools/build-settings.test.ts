// The production guards of the build (src/devtools/build-settings.ts): SERVICE_ORIGINS refused unless each names one https origin, written as browsers write it; the dev port and ADDIN_PUBLIC_URL as given.
import { devServerPort, publicUrl, serviceOrigins } from "../../src/devtools/build-settings";

test.each([
  ["http://api.hedging.example", /must be https:\/\//],
  ["https://api.hedging.example/v2", /without a path/],
  ["api.hedging.example", /is not a URL/],
  ["ftp://api.hedging.example", /must be an https:\/\/ origin/],
  ["https://api.hedging.example?x=1", /without a path/],
  // The CSP would allow every subdomain while the pane compares origins exactly; or a directive would be cut in two.
  ["https://*.hedging.example", /must name one host .*no wildcard/],
  ["https://api.hedging.example;script-src", /must name one host/],
  ["https://[::1]:4010", /no IPv6 address/],
])("SERVICE_ORIGINS=%s is refused in production", (origins, message) => {
  expect(() => serviceOrigins({ SERVICE_ORIGINS: origins }, true)).toThrow(message);
});

test("several origins, by commas or spaces; development builds need none", () => {
  expect(serviceOrigins({ SERVICE_ORIGINS: "https://a.example, https://b.example:8443 https://c.example/" }, true)).toEqual([
    "https://a.example",
    "https://b.example:8443",
    "https://c.example",
  ]);
  expect(serviceOrigins({}, false)).toEqual([]);
});

test("an origin is written as browsers write it (lower case, no default port), the form the pane compares with", () => {
  expect(serviceOrigins({ SERVICE_ORIGINS: "https://API.Hedging.Example:443,https://bücher.example" }, true)).toEqual([
    "https://api.hedging.example",
    "https://xn--bcher-kva.example",
  ]);
});

test("ADDIN_PUBLIC_URL gains its final slash; without it a development build is served by the dev server", () => {
  expect(publicUrl({ ADDIN_PUBLIC_URL: "https://addins.example.com/hedge" }, false, "https://localhost:3000/")).toBe(
    "https://addins.example.com/hedge/",
  );
  expect(publicUrl({}, false, "https://localhost:3000/")).toBe("https://localhost:3000/");
  expect(() => publicUrl({ ADDIN_PUBLIC_URL: "http://hedge.example.com/" }, true, "https://localhost:3000/")).toThrow(
    /must be an https:\/\/ URL/,
  );
  expect(() => publicUrl({ ADDIN_PUBLIC_URL: "https://hedge.example.com/?x=1" }, true, "https://localhost:3000/")).toThrow(
    /without query, fragment or user name/,
  );
});

test.each([[0], [65536], [3000.5], ["3000x"], [undefined]])("dev_server_port %p is refused, saying where to set it", (port) => {
  expect(() => devServerPort({ config: { dev_server_port: port } })).toThrow(
    /package\.json: config\.dev_server_port must be a port number/,
  );
});

test("a port given as a number or its digits is taken", () => {
  expect(devServerPort({ config: { dev_server_port: 3456 } })).toBe(3456);
  expect(devServerPort({ config: { dev_server_port: "65535" } })).toBe(65535);
});
