// The one redaction of the API key out of text (answers, headers, error messages, what the pane and the log show): every echo a gateway makes of it, masked.
import { LIVE_PREFIX, TEST_PREFIX, maskKey } from "./environment";

/**
 * How many characters of the key's secret part (after `svc_live_` / `svc_test_`) make an echo: any run this long is
 * masked, so a gateway that truncates the key still gives nothing away.
 */
export const SECRET_RUN = 12;

/** The named HTML entities a gateway's escaping produces (numeric ones, `&#43;` and `&#x2B;`, are read by number). */
const HTML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", sol: "/", plus: "+", equals: "=" };
/** What hex and base64 are written with: a found run of the key's hex or base64 is masked with the rest of its word. */
const ENCODED = /[A-Za-z0-9+/_-]/;
const JSON_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
/** The named entities above in any case, as a browser reads them: with their `;` or, for these, without. */
const ENTITY_NAMES = Object.keys(HTML_ENTITIES)
  .map((name) => [...name].map((c) => `[${c}${c.toUpperCase()}]`).join(""))
  .join("|");
/**
 * One escape: percent (URL, form), an HTML entity (numeric or named, its `;` optional as browsers read it), JSON's `\u`,
 * JavaScript's `\x` and `\u{…}`, JSON's one-character escapes. A numeric entity without its `;` is read as the ASCII
 * character it can stand for (the key is ASCII): `&#x3dc` of `=c` is `=` and `c`, where a browser would read U+03DC.
 * Last, what a writer puts between the key's characters or pieces, read as nothing: a NUL (UTF-16 read as bytes), an
 * ellipsis joining cut pieces (`…`, `...`), a colon between two hex digit pairs that stand alone (a hex dump's `73:76`).
 */
const ESCAPES = new RegExp(
  [
    "%([0-9A-Fa-f]{2})",
    "&#(\\d{1,7});",
    "&#[xX]([0-9A-Fa-f]{1,6});",
    "&#0*(1[01]\\d|12[0-7]|[1-9]?\\d)",
    "&#[xX]0*([0-7]?[0-9A-Fa-f])",
    `&(${ENTITY_NAMES});?`,
    "\\\\u([0-9A-Fa-f]{4})",
    '\\\\(["\\\\/bfnrt])',
    "\\\\x([0-9A-Fa-f]{2})",
    "\\\\u\\{([0-9A-Fa-f]{1,6})\\}",
    "\\0|…|\\.\\.\\.|:(?<=(?:^|[^0-9A-Za-z])[0-9A-Fa-f]{2}:)(?=[0-9A-Fa-f]{2}(?![0-9A-Za-z]))",
  ].join("|"),
  "g",
);
/** Escapes inside escapes (`%252B`: a percent-encoded `%2B`) are undone this many times over. */
const ESCAPE_LAYERS = 3;
/** Encoded words (base64, URL-safe or not, or base32) long enough to hold an echo are decoded and looked into, this many levels deep. */
const DECODE_DEPTH = 2;
/** A word that may be base64 or base32: as long as the encoding of SECRET_RUN characters at least. */
const ENCODED_WORD = new RegExp(`([A-Za-z0-9+/_-]{${Math.ceil((SECRET_RUN * 4) / 3)},})=*`, "g");

/**
 * The text as read with its escapes undone, one character per escape: what the key looks like however it was escaped
 * (a URL, a form, HTML, JSON). Character i of `text` came from `from[i]` up to `to[i]` of the original (null: the same
 * place, nothing was escaped).
 */
interface View {
  text: string;
  from: Int32Array | null;
  to: Int32Array | null;
}

/**
 * The character one escape stands for; "" for a joiner (read as nothing); undefined for what is not an escape after all
 * (`&nbsp;`, a code past U+FFFF).
 */
function unescaped(m: RegExpExecArray): string | undefined {
  const [, percent, decimal, hex, bareDecimal, bareHex, entity, unicode, json, byte, codePoint] = m;
  const hexCode = percent ?? unicode ?? hex ?? bareHex ?? byte ?? codePoint;
  const decimalCode = decimal ?? bareDecimal;
  const code = hexCode !== undefined ? parseInt(hexCode, 16) : decimalCode !== undefined ? Number(decimalCode) : undefined;
  if (code !== undefined) return code <= 0xffff ? String.fromCharCode(code) : undefined;
  if (entity) return HTML_ENTITIES[entity.toLowerCase()];
  return json ? JSON_ESCAPES[json] : "";
}

/** The text with its escapes undone, layer after layer (an escaped escape too), each character mapped to where it came from. */
function layeredViewOf(text: string): View {
  let view = viewOf(text);
  for (let layer = 1; layer < ESCAPE_LAYERS && view.from && view.to; layer++) {
    const inner = viewOf(view.text);
    if (!inner.from || !inner.to) break;
    const [outerFrom, outerTo, innerFrom, innerTo] = [view.from, view.to, inner.from, inner.to];
    const from = new Int32Array(inner.text.length);
    const to = new Int32Array(inner.text.length);
    for (let i = 0; i < inner.text.length; i++) {
      from[i] = outerFrom[innerFrom[i]];
      to[i] = outerTo[innerTo[i] - 1];
    }
    view = { text: inner.text, from, to };
  }
  return view;
}

function viewOf(text: string): View {
  ESCAPES.lastIndex = 0;
  let m = ESCAPES.exec(text);
  if (!m) return { text, from: null, to: null };
  const chunks: string[] = [];
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let n = 0;
  let done = 0;
  const copy = (upTo: number) => {
    chunks.push(text.slice(done, upTo));
    for (let i = done; i < upTo; i++, n++) {
      from[n] = i;
      to[n] = i + 1;
    }
    done = upTo;
  };
  for (; m; m = ESCAPES.exec(text)) {
    const ch = unescaped(m);
    if (ch === undefined) continue;
    copy(m.index);
    if (ch) {
      chunks.push(ch);
      from[n] = m.index;
      to[n] = m.index + m[0].length;
      n++;
    }
    done = m.index + m[0].length;
  }
  copy(text.length);
  return { text: chunks.join(""), from, to };
}

/** The key's secret part (what follows its environment prefix). */
function secretOf(key: string): string {
  const prefix = [LIVE_PREFIX, TEST_PREFIX].find((p) => key.startsWith(p)) ?? "";
  return key.slice(prefix.length);
}

/** Every `length`-character run of the text (the whole text when it is shorter). */
function runsOf(text: string, length: number): string[] {
  if (text.length <= length) return [text];
  return Array.from({ length: text.length - length + 1 }, (_, i) => text.slice(i, i + length));
}

const hexOf = (text: string) => [...text].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
/** Hex of the text's UTF-16 code units, big-endian (`0073…`) and little-endian (`7300…`). */
const utf16HexOf = (text: string) => [...text].map((c) => c.charCodeAt(0).toString(16).padStart(4, "0")).join("");
const utf16LeHexOf = (text: string) => utf16HexOf(text).replace(/(..)(..)/g, "$2$1");
function base64Of(text: string): string | null {
  try {
    return btoa(text);
  } catch {
    return null;
  }
}

/** Spans of `haystack` where any of `needles` is found. */
function found(haystack: string, needles: Iterable<string>): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const needle of needles)
    for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) spans.push([at, at + needle.length]);
  return spans;
}

/**
 * Spans (in the view) of the key's echoes. As text: the key or a SECRET_RUN-character run of its secret, in any case
 * (widened over the key's prefix when it precedes). In hex (either case): a run of the secret's bytes. In base64
 * (standard or URL-safe): whichever way the groups of three fall (the key at the start, `Bearer ` before it, a cut),
 * a run of SECRET_RUN characters holds three whole groups, so the base64 of every 9-character run of the secret is looked for.
 */
function echoSpans(view: View, key: Needles, depth = 0): Array<[number, number]> {
  const caseKept = lowerInPlace(view.text);
  const { prefix } = key;
  const asText = found(caseKept, key.runs).map(([start, end]): [number, number] =>
    caseKept.slice(Math.max(0, start - prefix.length), start) === prefix ? [start - prefix.length, end] : [start, end],
  );
  const asHex = found(caseKept, key.hex);
  // URL-safe base64 read as standard; a run of the secret ending a base64 text carries its padding with it.
  const standard = view.text.replace(/-/g, "+").replace(/_/g, "/");
  const asBase64 = key.base64 ? found(standard, key.base64) : [];
  const spans = [...asText, ...widened([...asHex, ...asBase64], view.text)];
  return depth < DECODE_DEPTH ? [...spans, ...encodedEchoes(view.text, key, depth)] : spans;
}

/**
 * The text lower-cased with every character in its place: where some character's lower case is longer (`İ`), only
 * A–Z are lowered (the key is ASCII), so an upper-cased echo is still found and masked exactly where it stands.
 */
function lowerInPlace(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (w) => w.toLowerCase());
}

/** What an echo of the key is looked for as, computed once per redaction. */
interface Needles {
  /** The key's environment prefix, lower-cased ("svc_live_"). */
  prefix: string;
  /** Every SECRET_RUN-character run of the secret, lower-cased. */
  runs: string[];
  /** Those runs in hex: of their bytes, and of their UTF-16 code units (big- and little-endian). */
  hex: Set<string>;
  /** The base64 of every 9-character run of the secret; null when one cannot be encoded (not Latin-1). */
  base64: Set<string> | null;
}

function needlesOf(key: string): Needles {
  const secret = secretOf(key);
  const groups = runsOf(secret, 9).map(base64Of);
  return {
    prefix: key.slice(0, key.length - secret.length).toLowerCase(),
    runs: runsOf(secret.toLowerCase(), SECRET_RUN),
    hex: new Set(runsOf(secret, SECRET_RUN).flatMap((run) => [hexOf(run), utf16HexOf(run), utf16LeHexOf(run)])),
    base64: groups.every((b) => b !== null) ? new Set(groups as string[]) : null,
  };
}

/**
 * Words of the text that decode (as base64, URL-safe or not, or as base32) to text holding an echo (the key base64-encoded
 * twice, base32, base64 of an escaped key…): the whole word is an echo (a word found already is masked whole either way).
 */
function encodedEchoes(text: string, key: Needles, depth: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const m of text.matchAll(ENCODED_WORD)) {
    const [start, end] = [m.index, m.index + m[0].length];
    const decoded = decodingsOf(m[1]).filter((d) => PRINTABLE.test(d));
    if (decoded.some((d) => echoSpans(layeredViewOf(d), key, depth + 1).length > 0)) spans.push([start, end]);
  }
  return spans;
}

/** An encoding of the key decodes to printable ASCII (the key is); a hash or an id read as base64 decodes to bytes that are not, and is not looked into. */
const PRINTABLE = /^[\x20-\x7e\t\r\n]*$/;

/**
 * What an encoded word (an ENCODED_WORD match without its padding: base64's alphabet) may stand for: its base64 (standard
 * or URL-safe; `atob` reads it without its padding, as browsers do) and its base32 (RFC 4648, either case) decodings, as
 * bytes read as Latin-1.
 */
function decodingsOf(bare: string): string[] {
  const out: string[] = [];
  try {
    out.push(atob(bare.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    // not base64 after all (a length of 4n + 1)
  }
  if (/^[A-Z2-7]+$/.test(bare) || /^[a-z2-7]+$/.test(bare)) out.push(base32Decoded(bare.toUpperCase()));
  return out;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32Decoded(word: string): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const c of word) {
    value = (value << 5) | BASE32.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 0xff);
    }
  }
  return out;
}

/** Spans of hex or base64 widened to the whole word they are in (the rest of an encoded key is the key's too; `0x` and padding with it). */
function widened(spans: Array<[number, number]>, text: string): Array<[number, number]> {
  return spans.map(([start, end]) => {
    while (start > 0 && ENCODED.test(text[start - 1])) start--;
    while (end < text.length && ENCODED.test(text[end])) end++;
    while (text[end] === "=") end++;
    return [start, end];
  });
}

/** Overlapping or touching spans as one, in order. */
function merged(spans: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/**
 * The text with every echo of the API key replaced by its masked form (`svc_test_…0001`). An echo is the key or any
 * SECRET_RUN-character run of its secret part, in any case, as it is or percent-, form-, HTML- or JSON-escaped (even
 * partly), or inside hex or base64 (standard or URL-safe, of the key or of `Bearer <key>`, whole or cut). Every text
 * that could carry an echo goes through here: the transport's answers and headers, the sender's error messages and the
 * pane's error views; the Hedge Log's Message cells and the `HEDGE.*` cells take their text from those.
 */
export function redactKey(text: string, key: string | null | undefined): string {
  if (!key || !text || secretOf(key).length < 4) return text;
  const view = layeredViewOf(text);
  const spans = merged(echoSpans(view, needlesOf(key)));
  const mask = maskKey(key);
  // An echo's place in the text runs from the end of the character before it to the start of the one after: the
  // joiners read as nothing around it (a UTF-16 echo's first or last NUL) are masked with it.
  const after = (i: number) => (i === 0 ? 0 : view.to ? view.to[i - 1] : i);
  const before = (i: number) => (i === view.text.length ? text.length : view.from ? view.from[i] : i);
  let out = "";
  let done = 0;
  for (const [start, end] of spans) {
    out += text.slice(done, after(start)) + mask;
    done = before(end);
  }
  return out + text.slice(done);
}
