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
/** One escape: percent (URL, form), HTML entity, JSON. */
const ESCAPES = /%([0-9A-Fa-f]{2})|&#(\d{1,7});|&#[xX]([0-9A-Fa-f]{1,6});|&([a-zA-Z]+);|\\u([0-9A-Fa-f]{4})|\\(["\\/bfnrt])/g;

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

/** The character one escape stands for; undefined for what is not an escape after all (`&nbsp;`, a code past U+FFFF). */
function unescaped(m: RegExpExecArray): string | undefined {
  const [, percent, decimal, hex, entity, unicode, json] = m;
  const code = percent
    ? parseInt(percent, 16)
    : unicode
      ? parseInt(unicode, 16)
      : decimal
        ? Number(decimal)
        : hex
          ? parseInt(hex, 16)
          : undefined;
  if (code !== undefined) return code <= 0xffff ? String.fromCharCode(code) : undefined;
  return entity ? HTML_ENTITIES[entity.toLowerCase()] : JSON_ESCAPES[json];
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
    chunks.push(ch);
    from[n] = m.index;
    to[n] = m.index + m[0].length;
    n++;
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
function echoSpans(view: View, key: string): Array<[number, number]> {
  const secret = secretOf(key);
  const runs = runsOf(secret.toLowerCase(), SECRET_RUN);
  const lower = view.text.toLowerCase();
  const caseKept = lower.length === view.text.length ? lower : view.text;
  const prefix = key.slice(0, key.length - secret.length).toLowerCase();
  const asText = found(caseKept, runs).map(([start, end]): [number, number] =>
    prefix && caseKept.slice(Math.max(0, start - prefix.length), start) === prefix ? [start - prefix.length, end] : [start, end],
  );
  const asHex = found(caseKept, new Set(runsOf(secret, SECRET_RUN).map(hexOf)));
  const groups = runsOf(secret, 9)
    .map(base64Of)
    .filter((b): b is string => b !== null);
  // URL-safe base64 read as standard; a run of the secret ending a base64 text carries its padding with it.
  const standard = view.text.replace(/-/g, "+").replace(/_/g, "/");
  const asBase64 = groups.length === runsOf(secret, 9).length ? found(standard, new Set(groups)) : [];
  return [...asText, ...widened([...asHex, ...asBase64], view.text)];
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
  if (!key || key.length < 4 || !text || secretOf(key).length < 4) return text;
  const view = viewOf(text);
  const spans = merged(echoSpans(view, key));
  if (spans.length === 0) return text;
  const mask = maskKey(key);
  const from = (i: number) => (view.from ? view.from[i] : i);
  const to = (i: number) => (view.to ? view.to[i] : i + 1);
  let out = "";
  let done = 0;
  for (const [start, end] of spans) {
    out += text.slice(done, from(start)) + mask;
    done = to(end - 1);
  }
  return out + text.slice(done);
}
