// diagnoseCors's decisions (what the connection panel tells after a network error), with the page's fetch answering as a browser does (Node's fetch has no CORS, no opaque answers): a readable redirect, a CORS refusal, nothing answering; never the key, a body or a cookie asked; nothing asked outside a page or on the page's own origin. The real browser's answers: test/e2e/taskpane-csp.test.ts.
import { diagnoseCors } from "../../src/api/transport";

const PAGE = "https://localhost:3000";
const SERVICE = "https://hedging.example:8443";
const URL_ASKED = `${SERVICE}/v2/account`;

/** What the page's fetch does with each question: answer with a response of a type, or throw (a browser's TypeError). */
type Answer = { type: ResponseType; ok?: boolean } | "throws";

let asked: Array<{ url: string; init: RequestInit }>;
const realFetch = globalThis.fetch;

/** The page (its origin, or none outside a page) and its fetch's answers, in order. */
function page(origin: string | null, answers: Answer[]) {
  asked = [];
  if (origin === null) Reflect.deleteProperty(globalThis, "location");
  else Object.defineProperty(globalThis, "location", { value: { origin }, configurable: true });
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    asked.push({ url, init });
    const answer = answers.shift();
    if (answer === undefined || answer === "throws") throw new TypeError("Failed to fetch");
    return { type: answer.type, ok: answer.ok ?? false } as Response;
  }) as typeof fetch;
}

afterEach(() => {
  globalThis.fetch = realFetch;
  Reflect.deleteProperty(globalThis, "location");
});

/** The fields a question carries, its timeout signal aside. */
const question = (i: number) => {
  const { signal, ...rest } = asked[i].init;
  expect(signal).toBeInstanceOf(AbortSignal);
  return { url: asked[i].url, ...rest };
};
const BARE = { url: URL_ASKED, method: "GET", credentials: "omit", cache: "no-store" };

describe("diagnoseCors", () => {
  it("a readable redirect: the service answered with a redirect, which the add-in never follows; asked once, bare, without following it", async () => {
    page(PAGE, [{ type: "opaqueredirect" }]);
    expect(await diagnoseCors(URL_ASKED)).toEqual({ pageOrigin: PAGE, serviceOrigin: SERVICE, redirected: true });
    expect(asked).toHaveLength(1);
    expect(question(0)).toEqual({ ...BARE, redirect: "manual" });
  });

  it("a readable answer: the service is not the problem (null), nothing more asked", async () => {
    page(PAGE, [{ type: "cors", ok: true }]);
    expect(await diagnoseCors(URL_ASKED)).toBeNull();
    expect(asked).toHaveLength(1);
  });

  it("unreadable (CORS), and an opaque answer in no-cors mode: the service is there and must allow this page's origin", async () => {
    page(PAGE, ["throws", { type: "opaque" }]);
    expect(await diagnoseCors(URL_ASKED)).toEqual({ pageOrigin: PAGE, serviceOrigin: SERVICE });
    expect(question(1)).toEqual({ ...BARE, mode: "no-cors" });
  });

  it("in no-cors mode a readable answer counts only when it is ok", async () => {
    page(PAGE, ["throws", { type: "basic", ok: true }]);
    expect(await diagnoseCors(URL_ASKED)).toEqual({ pageOrigin: PAGE, serviceOrigin: SERVICE });
    page(PAGE, ["throws", { type: "basic", ok: false }]);
    expect(await diagnoseCors(URL_ASKED)).toBeNull();
  });

  it("nothing answers either question: a real network error (null)", async () => {
    page(PAGE, ["throws", "throws"]);
    expect(await diagnoseCors(URL_ASKED)).toBeNull();
    expect(asked).toHaveLength(2);
  });

  it.each([
    ["outside a page", null, URL_ASKED],
    ["a page without an origin (file://)", "null", URL_ASKED],
    ["a base URL that is no URL", PAGE, "not a url"],
    ["the service on the page's own origin", PAGE, `${PAGE}/v2/account`],
  ])("%s: null, nothing asked", async (_name, origin, url) => {
    page(origin, [{ type: "opaqueredirect" }, { type: "opaque" }]);
    expect(await diagnoseCors(url)).toBeNull();
    expect(asked).toEqual([]);
  });

  it("each question gives up after the timeout given (5 s by default)", async () => {
    const timeouts: number[] = [];
    const timeout = jest.spyOn(AbortSignal, "timeout").mockImplementation((ms: number) => {
      timeouts.push(ms);
      return new AbortController().signal;
    });
    try {
      page(PAGE, ["throws", "throws"]);
      await diagnoseCors(URL_ASKED);
      page(PAGE, ["throws", "throws"]);
      await diagnoseCors(URL_ASKED, 250);
      expect(timeouts).toEqual([5_000, 5_000, 250, 250]);
    } finally {
      timeout.mockRestore();
    }
  });
});
