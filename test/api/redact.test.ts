// The one key redaction against a table of echoes a gateway makes (cased, cut, hex, base64 of the key and of "Bearer key", URL, form, HTML and JSON escaping): each is replaced by the mask exactly, the text around stays, and text that only looks alike is left alone.
import { redactKey, SECRET_RUN } from "../../src/api/redact";

/** A key with characters that escapings change (+ / =), so that every escaped echo differs from the key itself. */
const KEY = "svc_live_k+y/with=chars_0123456789WXYZ";
const SECRET = KEY.slice("svc_live_".length);
const MASKED = "svc_live_…WXYZ";

const hex = (text: string) => Buffer.from(text, "latin1").toString("hex");
const b64 = (text: string) => Buffer.from(text, "latin1").toString("base64");
const urlSafe = (base64: string) => base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const htmlEscaped = (text: string) => text.replace(/[&<>"'/+=]/g, (c) => `&#${c.charCodeAt(0)};`);
const htmlHexEscaped = (text: string) => text.replace(/[/+=]/g, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`);
const utf16Hex = (text: string) => [...text].map((c) => c.charCodeAt(0).toString(16).padStart(4, "0")).join("");
/** RFC 4648 base32, written here independently of the code under test. */
function base32(text: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...Buffer.from(text, "latin1")].map((b) => b.toString(2).padStart(8, "0")).join("");
  const chars = (bits.match(/.{1,5}/g) ?? []).map((group) => alphabet[parseInt(group.padEnd(5, "0"), 2)]).join("");
  return chars.padEnd(Math.ceil(chars.length / 8) * 8, "=");
}
/** Hex bytes written as a hex dump writes them: two digits, a colon, two digits (`73:76:63`). */
const colonHex = (hexText: string) => (hexText.match(/../g) ?? []).join(":");
/** The text cut in pieces of `length` characters (the last one shorter). */
const pieces = (text: string, length: number) => text.match(new RegExp(`.{1,${length}}`, "gs")) ?? [];
const jsonUnicode = (text: string) => text.replace(/[+/=]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Every way a gateway was seen, or could be expected, to hand the key back. */
const ECHOES: Array<[string, string]> = [
  ["as it is", KEY],
  ["upper-cased", KEY.toUpperCase()],
  ["lower-cased", KEY.toLowerCase()],
  ["the secret part alone", SECRET],
  ["cut to its first 12 secret characters", `svc_live_${SECRET.slice(0, SECRET_RUN)}`],
  ["12 characters from the middle of the secret", SECRET.slice(7, 7 + SECRET_RUN)],
  ["the last 12 characters, upper-cased", SECRET.slice(-SECRET_RUN).toUpperCase()],
  ["hex", hex(KEY)],
  ["hex, upper-case digits", hex(KEY).toUpperCase()],
  ["hex of 12 secret characters", hex(SECRET.slice(3, 3 + SECRET_RUN))],
  ["hex with 0x, from an odd character", `0x${hex(KEY).slice(1)}`],
  ["base64", b64(KEY)],
  ["base64 without padding", b64(KEY).replace(/=+$/, "")],
  ["base64, URL-safe", urlSafe(b64(KEY))],
  ["base64 of Bearer key", b64(`Bearer ${KEY}`)],
  ["base64 of Bearer key, URL-safe", urlSafe(b64(`Bearer ${KEY}`))],
  ["base64 of Bearer key, cut", b64(`Bearer ${KEY}`).slice(0, 40)],
  ["base64 of the key from its second character", b64(KEY.slice(1))],
  ["base64 of 12 secret characters", b64(SECRET.slice(5, 5 + SECRET_RUN))],
  ["base64, percent-encoded", encodeURIComponent(b64(KEY))],
  ["URL-encoded", encodeURIComponent(KEY)],
  ["URL-encoded, lower-case hex", encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (p) => p.toLowerCase())],
  ["every character percent-encoded", [...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")],
  ["form-encoded", new URLSearchParams({ k: KEY }).toString().slice(2)],
  ["HTML-escaped (decimal)", htmlEscaped(KEY)],
  ["HTML-escaped (hex), upper-cased", htmlHexEscaped(KEY).toUpperCase()],
  ["HTML named entities", KEY.replace(/\//g, "&sol;").replace(/\+/g, "&plus;").replace(/=/g, "&equals;")],
  ["JSON-escaped", JSON.stringify(KEY).slice(1, -1).replace(/\//g, "\\/")],
  ["JSON \\u escapes", jsonUnicode(KEY)],
  // Issue 31: what a gateway's second escaping, or another encoder, makes of it.
  ["percent-encoded twice", encodeURIComponent(encodeURIComponent(KEY))],
  ["percent-encoded three times", encodeURIComponent(encodeURIComponent(encodeURIComponent(KEY)))],
  ["HTML-escaped, then percent-encoded", encodeURIComponent(htmlEscaped(KEY))],
  ["UTF-16 hex, big-endian", utf16Hex(KEY)],
  ["UTF-16 hex, little-endian", utf16Hex(KEY).replace(/(..)(..)/g, "$2$1")],
  ["UTF-16 hex of 12 secret characters, upper-case", utf16Hex(SECRET.slice(2, 2 + SECRET_RUN)).toUpperCase()],
  ["UTF-16 hex, little-endian, of 12 secret characters", utf16Hex(SECRET.slice(4, 4 + SECRET_RUN)).replace(/(..)(..)/g, "$2$1")],
  ["\\x escapes", KEY.replace(/[+/=_]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`)],
  ["every character \\x-escaped", [...KEY].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("")],
  ["\\u{} escapes", KEY.replace(/[+/=]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`)],
  ["HTML entities without their ;", KEY.replace(/[+/=]/g, (c) => `&#${c.charCodeAt(0)}`)],
  ["HTML hex entities without their ;", KEY.replace(/[+/=]/g, (c) => `&#x${c.charCodeAt(0).toString(16)}`)],
  ["HTML entities without their ;, before a digit", KEY.replace(/[+/=_]/g, (c) => `&#${c.charCodeAt(0)}`)],
  [
    "HTML hex entities without their ; or leading zeros, before a digit",
    KEY.replace(/[+/=_]/g, (c) => `&#x00${c.charCodeAt(0).toString(16)}`),
  ],
  ["HTML named entities without their ;, upper-cased", KEY.replace(/\//g, "&SOL").replace(/\+/g, "&PLUS").replace(/=/g, "&EQUALS")],
  ["base64 of base64", b64(b64(KEY))],
  ["base64 of base64 of Bearer key, URL-safe", urlSafe(b64(b64(`Bearer ${KEY}`)))],
  ["base64 of the URL-encoded key", b64(encodeURIComponent(KEY))],
  ["base32", base32(KEY)],
  ["base32, lower-case, without padding", base32(KEY).toLowerCase().replace(/=+$/, "")],
  ["base32 of Bearer key", base32(`Bearer ${KEY}`)],
  // Issue 40 item 6: what the third attack review got through.
  ["UTF-16 with NUL separators (little-endian)", [...KEY].map((c) => `${c}\0`).join("")],
  ["UTF-16 with NUL separators, big-endian", [...KEY].map((c) => `\0${c}`).join("")],
  ["UTF-16 with NUL separators, of 12 secret characters", [...SECRET.slice(6, 6 + SECRET_RUN)].map((c) => `${c}\0`).join("")],
  ["hex with colons", colonHex(hex(KEY))],
  ["hex with colons, upper-case, of 12 secret characters", colonHex(hex(SECRET.slice(1, 1 + SECRET_RUN))).toUpperCase()],
  ["UTF-16 hex with colons", colonHex(utf16Hex(KEY))],
  ["11-character pieces joined by …", `svc_live_${pieces(SECRET, SECRET_RUN - 1).join("…")}`],
  ["the secret's 11-character pieces joined by …, from its fourth character", pieces(SECRET.slice(3), SECRET_RUN - 1).join("…")],
  ["11-character pieces joined by ...", pieces(SECRET, SECRET_RUN - 1).join("...")],
];

describe.each(ECHOES)("an echo of the key %s", (_how, echo) => {
  test("in a message: masked, the words around kept", () => {
    const out = redactKey(`Unknown key [${echo}] at the gateway.`, KEY);
    expect(out).toBe(`Unknown key [${MASKED}] at the gateway.`);
    expect(out).not.toContain(echo);
    // Nothing of the secret is left, in any case, as text or decoded.
    expect(out.toLowerCase()).not.toContain(SECRET.slice(0, SECRET_RUN).toLowerCase());
  });

  test("inside a JSON answer: masked, and the answer still parses", () => {
    const body = JSON.stringify({ error: { code: "invalid_api_key", message: `key ${echo}`, details: { seen: echo } } });
    const out = redactKey(body, KEY);
    const parsed = JSON.parse(out) as { error: { message: string; details: { seen: string } } };
    expect([parsed.error.message, parsed.error.details.seen]).toEqual([`key ${MASKED}`, MASKED]);
    expect(out).not.toContain(echo);
  });
});

describe("a key whose base64 holds + and / (its ~, ? and >): URL-safe base64 is read as such", () => {
  const key = "svc_test_a~b?c>d~e?f>g~h?i>j~k?l>";
  const masked = "svc_test_…k?l>";
  test.each([
    ["URL-safe base64", urlSafe(b64(key))],
    ["URL-safe base64 of Bearer key, cut", urlSafe(b64(`Bearer ${key}`)).slice(0, 36)],
    ["URL-safe base64 of the upper-cased key", urlSafe(b64(key.toUpperCase()))],
    ["base64 of base64 of its URL-safe base64", b64(b64(urlSafe(b64(key))))],
  ])("%s", (_how, echo) => {
    expect(/[-_]/.test(echo) || /[-_]/.test(atob(atob(echo)))).toBe(true);
    expect(redactKey(`Unknown key [${echo}].`, key)).toBe(`Unknown key [${masked}].`);
  });

  test("base32 of it (its decoding holds ~ and >)", () => {
    expect(redactKey(`[${base32(key)}]`, key)).toBe(`[${masked}]`);
  });

  test("a key whose every whole group of three ends in ?: its base64 has / in every group (URL-safe: _)", () => {
    const slashed = "svc_test_ab?cd?ef?gh?ij?kl?mn?";
    const inner = urlSafe(b64(slashed));
    expect(inner.match(/_/g)?.length).toBe(7);
    expect(redactKey(`[${b64(b64(inner))}]`, slashed)).toBe("[svc_test_…?mn?]");
    expect(redactKey(`[${urlSafe(b64(slashed.toUpperCase()))}]`, slashed)).toBe("[svc_test_…?mn?]");
  });
});

describe("the edges of an echo: what is masked with it, and what stays beside it", () => {
  test.each(["A", "Z", "a", "z", "0", "9", "+", "/", "_", "-"])(
    "hex or base64 of the key inside a longer encoded word (%s at either end): the whole word is masked",
    (c) => {
      for (const encoded of [hex(KEY), b64(KEY).replace(/=+$/, "")])
        expect(redactKey(`[${c}${encoded}${c}] (${c}${c}${encoded}${c}${c})`, KEY)).toBe(`[${MASKED}] (${MASKED})`);
    },
  );

  test("a base64 echo's padding is masked with it, and text after the padding stays", () => {
    expect(redactKey(`[${b64(KEY.slice(1))}]x`, KEY)).toBe(`[${MASKED}]x`);
    expect(b64(KEY.slice(1)).endsWith("==")).toBe(true);
    // Inside a longer word (its decoding then reads nothing): found by the key's own base64, its padding masked with it.
    for (const c of ["A", "+", "_"]) expect(redactKey(`[${c}${b64(KEY.slice(1))}]x`, KEY)).toBe(`[${MASKED}]x`);
  });

  test("a key with & < > \" ' written with named entities, in any case, with or without the ;", () => {
    const key = "svc_test_a<b>c\"d'e&f<g>h\"i'j&k";
    const masked = "svc_test_…'j&k";
    const named = (k: string, semi: string) =>
      k
        .replace(/&/g, `&amp${semi}`)
        .replace(/</g, `&lt${semi}`)
        .replace(/>/g, `&GT${semi}`)
        .replace(/"/g, `&Quot${semi}`)
        .replace(/'/g, `&apos${semi}`);
    expect(redactKey(`[${named(key, ";")}]`, key)).toBe(`[${masked}]`);
    expect(redactKey(`[${named(key, "")}]`, key)).toBe(`[${masked}]`);
  });

  test("JSON's one-character escapes beside an echo stay as they were, each read as its one character", () => {
    const text = `{"m":"\\b${KEY}\\f\\n${KEY}\\r\\t${KEY}\\"${KEY}\\\\${KEY}\\/x"}`;
    const out = `{"m":"\\b${MASKED}\\f\\n${MASKED}\\r\\t${MASKED}\\"${MASKED}\\\\${MASKED}\\/x"}`;
    expect(redactKey(text, KEY)).toBe(out);
    // Each escape is one character: a run of the secret cut by one is no echo.
    const cut = (e: string) => `${SECRET.slice(0, 6)}${e}${SECRET.slice(6, 12)}`;
    for (const e of ["\\b", "\\f", "\\n", "\\r", "\\t", '\\"', "\\\\", "\\/x"]) expect(redactKey(cut(e), KEY)).toBe(cut(e));
  });
});

describe("an echo wherever it stands, and keys of every shape", () => {
  test.each([
    ["as it is", KEY],
    ["the secret alone", SECRET],
    ["JSON \\u-escaped", jsonUnicode(KEY)],
    ["UTF-16 with NUL separators (little-endian)", [...KEY].map((c) => `${c}\0`).join("")],
    ["UTF-16 with NUL separators, big-endian", [...KEY].map((c) => `\0${c}`).join("")],
    ["base64", b64(KEY)],
  ])("the whole text is an echo %s: the mask alone is left", (_how, echo) => {
    expect(redactKey(echo, KEY)).toBe(MASKED);
    expect(redactKey(`${echo} ${echo}`, KEY)).toBe(`${MASKED} ${MASKED}`);
  });

  test("an encoded echo before a plain one: both masked, in their places", () => {
    expect(redactKey(`a ${b64(KEY)} b ${KEY} c ${hex(KEY)} d ${SECRET}`, KEY)).toBe(`a ${MASKED} b ${MASKED} c ${MASKED} d ${MASKED}`);
  });

  test("a key whose secret part is 4 characters is masked; one of 3 is too short to mask anything", () => {
    expect(redactKey("key svc_test_ab+d, again ab+d.", "svc_test_ab+d")).toBe("key svc_test_…, again svc_test_….");
    expect(redactKey("key svc_test_ab+, again ab+.", "svc_test_ab+")).toBe("key svc_test_ab+, again ab+.");
  });

  test("a key without an environment prefix: runs of the whole key are its echoes", () => {
    const bare = "k0123456789abcdefWXYZ";
    expect(redactKey(`[${bare}] [${bare.slice(5, 17)}] [${b64(bare)}]`, bare)).toBe("[…WXYZ] […WXYZ] […WXYZ]");
  });

  test("the key's prefix and 3 characters of its secret are no echo", () => {
    expect(redactKey(`svc_live_${SECRET.slice(0, 3)} svc_live_${SECRET.slice(-3)}`, KEY)).toBe(
      `svc_live_${SECRET.slice(0, 3)} svc_live_${SECRET.slice(-3)}`,
    );
  });

  test("a key that is not Latin-1 (no base64 of it can be made) is still masked as text, and nothing else is", () => {
    const euro = "svc_test_€uro-key-0123456789";
    expect(redactKey(`undefined null [${euro}] [${euro.slice(12).toUpperCase()}]`, euro)).toBe(
      "undefined null [svc_test_…6789] [svc_test_…6789]",
    );
  });

  test("an encoded echo at the very end of an escaped text; base32 of 15 characters ending in 12 of the secret", () => {
    expect(redactKey(`a%20${b64(KEY)}`, KEY)).toBe(`a%20${MASKED}`);
    expect(redactKey(`a%20${hex(KEY)}`, KEY)).toBe(`a%20${MASKED}`);
    expect(redactKey(`[${base32(`abc${SECRET.slice(0, SECRET_RUN)}`)}]`, KEY)).toBe(`[${MASKED}]`);
  });

  test("what is not an escape after all joins nothing: a run of the secret cut by &nbsp; or a code past U+FFFF is no echo", () => {
    for (const cut of ["&nbsp;", "&#x1F600;"]) {
      const text = `${SECRET.slice(0, 6)}${cut}${SECRET.slice(6, 12)}`;
      expect(redactKey(text, KEY)).toBe(text);
    }
  });

  test("a base64 or base32 text of several lines (tab, CR, LF) holding the key is masked whole", () => {
    const text = `{\r\n\t"key": "${KEY}"\n}`;
    expect(redactKey(`[${b64(text)}]`, KEY)).toBe(`[${MASKED}]`);
    // base32 is found only by decoding it: the decoding's tab, CR and LF are printable text.
    for (const white of ["\t", "\r", "\n"]) expect(redactKey(`[${base32(`{${white}"key": "${KEY}"}`)}]`, KEY)).toBe(`[${MASKED}]`);
  });
});

describe("what is not the key stays as it is", () => {
  test.each([
    ["another key of the same environment", "svc_live_a9Zq7Lm2Pr4Tx8Vb"],
    ["the key's public prefix and last four characters", "svc_live_…WXYZ and svc_live_"],
    ["11 characters of the secret", SECRET.slice(0, SECRET_RUN - 1)],
    ["11 characters of the secret and an ellipsis, then other words", `${SECRET.slice(0, SECRET_RUN - 1)}… and ${SECRET.slice(-4)}`],
    ["11 characters of the secret in UTF-16 with NUL separators", [...SECRET.slice(0, SECRET_RUN - 1)].map((c) => `${c}\0`).join("")],
    ["11 secret characters as hex with colons", colonHex(hex(SECRET.slice(0, SECRET_RUN - 1)))],
    ["a time and a MAC address", "at 12:30:45, device 00:1a:2b:3c:4d:5e"],
    ["a transaction hash", "0x7f3a9c1e5b2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a"],
    ["base64 of something else", b64("Bearer svc_live_someone_elses_key_42")],
    ["escapes that are not the key", "AT&amp;T &lt;b&gt; 50%25 \\u00e9 &#233; &nbsp;"],
    ["base64 of base64 of another key", b64(b64("svc_live_someone_elses_key_42"))],
    ["base32 of another key", base32("svc_live_someone_elses_key_42")],
    ["UTF-16 hex of another key", utf16Hex("svc_live_someone_elses_key_42")],
    ["an escape past U+FFFF where a character of the key would stand", "svc_live_k&#x1002B;y/with=cha"],
    ["a word that only looks like base64 and base32", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567 and Zm9vYmFyYmF6cXV4cXV1eA"],
  ])("%s", (_what, text) => {
    expect(redactKey(text, KEY)).toBe(text);
  });

  test("text whose lower case is longer (İ) before the key: the mask stands exactly where the key stood", () => {
    expect(redactKey(`İİ ${KEY} İ ${SECRET.slice(4, 4 + SECRET_RUN).toUpperCase()} ok`, KEY)).toBe(`İİ ${MASKED} İ ${MASKED} ok`);
  });

  test("without a key there is nothing to mask", () => {
    expect(redactKey(`x ${KEY}`, null)).toBe(`x ${KEY}`);
  });

  test("masking twice masks nothing more (the transport's answer goes through the sender's errors again)", () => {
    const once = redactKey(`a ${KEY} b ${b64(KEY)}`, KEY);
    expect(once).toBe(`a ${MASKED} b ${MASKED}`);
    expect(redactKey(once, KEY)).toBe(once);
  });
});
