// The key's environment and masked form, and the base URL and destination rules checked before a key is ever sent: each refusal word for word.
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import {
  OPEN_POLICY,
  checkKeyDestination,
  describePolicy,
  environmentOf,
  isLoopback,
  keyFingerprint,
  PUBLIC_FINGERPRINT,
  maskKey,
  normaliseBaseUrl,
  publicKeyFingerprint,
  type ServicePolicy,
} from "../../src/api/environment";
import { HedgingApiError } from "../../src/api/errors";

/** The error a call throws, for its code and message. */
function thrown(fn: () => unknown): HedgingApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HedgingApiError) return e;
    throw e;
  }
  throw new Error("nothing was thrown");
}

describe("the key's environment", () => {
  it("is told by the prefix alone, and a bare prefix is no key", () => {
    expect(environmentOf("svc_live_a")).toBe("production");
    expect(environmentOf("svc_test_a")).toBe("sandbox");
    for (const key of ["svc_live_", "svc_test_", "sk_live_abc", "SVC_LIVE_abc"]) {
      const e = thrown(() => environmentOf(key));
      expect([e.code, e.message]).toEqual([
        "invalid_api_key",
        "The API key must start with svc_live_ (production) or svc_test_ (sandbox); this one does not, so nothing was sent.",
      ]);
    }
  });

  it("is masked to its prefix and last four characters, and a short key shows no tail at all", () => {
    expect(maskKey("svc_live_abcdefghWXYZ")).toBe("svc_live_…WXYZ");
    expect(maskKey("svc_test_abcdefgh1234")).toBe("svc_test_…1234");
    expect(maskKey("svc_test_abcdefgh")).toBe("svc_test_…"); // 8 characters after the prefix: half of it would show
    expect(maskKey("sk_abcdefghij")).toBe("…ghij");
    expect(maskKey("sk_abcde")).toBe("…");
  });
});

describe("fingerprints", () => {
  it("tell keys apart, by length and by every character, in a fixed form", () => {
    const keys = ["svc_test_a", "svc_test_b", "svc_test_ab", "svc_test_ba", "svc_live_a"];
    const prints = keys.map(keyFingerprint);
    expect(new Set(prints).size).toBe(keys.length);
    for (const p of prints) expect(p).toMatch(/^k[0-9a-f]{16}$/);
    // Kept in this computer's journal with each row sent (intent.keyId): a resumed row is told sent by this key only if
    // the same key still gives the same fingerprint after an upgrade, so the hash is pinned.
    expect(keyFingerprint("svc_test_abcdefgh1234")).toBe("k01f4b7301a958d54");
    expect(keyFingerprint("svc_live_a")).toBe("kc4c5662929c0f3e1");
  });

  it("show a public fingerprint: SHA-256 over the label and the key, cut to 16 hex characters", () => {
    const key = "svc_test_abcdefgh1234";
    expect(publicKeyFingerprint(key)).toBe(`fp-${bytesToHex(sha256(utf8ToBytes(`hedge-key-fingerprint-v1\n${key}`))).slice(0, 16)}`);
    expect(publicKeyFingerprint(key)).not.toContain("abcdefgh");
  });

  // What the Approvals sheet and the Hedge Log accept as a "by": a fingerprint exactly as made, never a key or a key with one around it.
  it.each([
    [publicKeyFingerprint("svc_test_abcdefgh1234"), true],
    ["fp-0123456789abcdef", true],
    ["fp-0123456789abcde", false], // one short
    ["fp-0123456789abcdef0", false], // one more
    ["fp-0", false],
    ["fp-0123456789ABCDEF", false], // capitals are not what it makes
    ["fp-ghijklmnopqrstuv", false],
    ["svc_test_key fp-0123456789abcdef", false], // a key before it
    ["fp-0123456789abcdef svc_test_key", false], // a key after it
    ["svc_test_abcdefgh1234", false],
  ])("a public fingerprint is exactly fp- and 16 lower-case hex: %s → %s", (text, ok) => {
    expect(PUBLIC_FINGERPRINT.test(text)).toBe(ok);
  });
});

describe("the base URL", () => {
  const refusal = (url: string) => {
    const e = thrown(() => normaliseBaseUrl(url));
    expect(e.code).toBe("validation_error");
    return e.message;
  };

  it("loses its trailing slashes, and plain http is allowed only on this machine", () => {
    expect(normaliseBaseUrl("https://hedging.example/v2///")).toBe("https://hedging.example/v2");
    for (const host of ["localhost:3000", "127.0.0.1:3000", "127.8.9.10", "[::1]:8080"]) {
      expect(normaliseBaseUrl(`http://${host}/v2/`)).toBe(`http://${host}/v2`);
    }
    expect(refusal("http://hedging.example/v2")).toBe(
      "Base URL must use https (plain http is allowed only for localhost); got http://hedging.example.",
    );
    expect(refusal("ftp://localhost/v2")).toBe("Base URL must use https (plain http is allowed only for localhost); got ftp://localhost.");
    expect(refusal("http://128.0.0.1/v2")).toMatch(/^Base URL must use https/);
  });

  it("refuses a user name, a password, a query and a fragment, even an empty one", () => {
    const credentials = "Base URL must not contain a user name or password (user@host): the API key is the only credential.";
    expect(refusal("https://me@hedging.example/v2")).toBe(credentials);
    expect(refusal("https://:secret@hedging.example/v2")).toBe(credentials);
    const query = "Base URL must not contain a query (?…): give only the service's address, e.g. https://hedging.example/v2.";
    expect(refusal("https://hedging.example/v2?a=1")).toBe(query);
    expect(refusal("https://hedging.example/v2?")).toBe(query);
    const fragment = "Base URL must not contain a fragment (#…): give only the service's address, e.g. https://hedging.example/v2.";
    expect(refusal("https://hedging.example/v2#top")).toBe(fragment);
    expect(refusal("https://hedging.example/v2#")).toBe(fragment);
    expect(refusal("hedging.example/v2")).toBe('Base URL "hedging.example/v2" is not a URL: give one such as https://host/v2.');
  });

  it("knows this machine's loopback names", () => {
    for (const url of ["http://localhost", "http://127.0.0.1", "http://127.1.2.3", "http://[::1]"])
      expect(isLoopback(new URL(url))).toBe(true);
    for (const url of ["http://localhost.example", "http://10.0.0.1", "http://[::2]"]) expect(isLoopback(new URL(url))).toBe(false);
  });
});

describe("where a key may go", () => {
  const built: ServicePolicy = { origins: ["https://api.hedging.example"], loopback: false, liveNeedsHttps: true };
  const dev: ServicePolicy = { origins: ["https://api.hedging.example"], loopback: true, liveNeedsHttps: false };

  it("names the origins a build allows", () => {
    expect(describePolicy(built)).toBe("https://api.hedging.example");
    expect(describePolicy({ ...built, origins: ["https://a.example", "https://b.example"] })).toBe("https://a.example, https://b.example");
    expect(describePolicy({ ...built, origins: [] })).toBe("none");
    expect(describePolicy(dev)).toBe("https://api.hedging.example, and localhost / 127.0.0.1");
    expect(describePolicy({ ...dev, origins: [] })).toBe("localhost and 127.0.0.1 only");
  });

  it("sends a key only to an origin the build allows, and to this machine only in a development build", () => {
    expect(() => checkKeyDestination("svc_live_abc", "https://api.hedging.example/v2", built)).not.toThrow();
    expect(() => checkKeyDestination("svc_test_abc", "http://localhost:3000/v2", dev)).not.toThrow();
    expect(() => checkKeyDestination("svc_test_abc", "http://127.0.0.1:3000/v2", dev)).not.toThrow();
    expect(() => checkKeyDestination("svc_live_abc", "http://anything.example/v2", OPEN_POLICY)).not.toThrow();
    const e = thrown(() => checkKeyDestination("svc_test_abc", "http://localhost:3000/v2", built));
    expect([e.code, e.message]).toEqual([
      "origin_not_allowed",
      "This build of the add-in connects only to https://api.hedging.example; http://localhost:3000 is not one of them, so nothing was sent.",
    ]);
    expect(thrown(() => checkKeyDestination("svc_test_abc", "https://evil.example/v2", dev)).code).toBe("origin_not_allowed");
    expect(thrown(() => checkKeyDestination("svc_test_abc", "http://127.0.0.2:3000/v2", dev)).code).toBe("origin_not_allowed");
    // A development build with no service origins configured: this machine only (the same values as OPEN_POLICY, not it).
    const devOnly: ServicePolicy = { origins: [], loopback: true, liveNeedsHttps: false };
    expect(thrown(() => checkKeyDestination("svc_test_abc", "https://evil.example/v2", devOnly)).code).toBe("origin_not_allowed");
  });

  it("sends a production key over https only where the build says so; a sandbox key may go over http", () => {
    const local: ServicePolicy = { origins: [], loopback: true, liveNeedsHttps: true };
    const e = thrown(() => checkKeyDestination("svc_live_abc", "http://localhost:3000/v2", local));
    expect([e.code, e.message]).toEqual([
      "validation_error",
      "A svc_live_ key (production money) is sent only over https; http://localhost:3000 is plain http, so nothing was sent.",
    ]);
    expect(() => checkKeyDestination("svc_test_abc", "http://localhost:3000/v2", local)).not.toThrow();
    expect(() => checkKeyDestination("svc_live_abc", "http://localhost:3000/v2", { ...local, liveNeedsHttps: false })).not.toThrow();
  });
});
