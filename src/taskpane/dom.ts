// A tiny element builder for the pane's views (text is always set as text, never parsed as HTML).

type Attrs = Record<string, string | number | boolean | null | undefined>;
type Child = Node | string | null | undefined | false;

function assign(el: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
}

/** An HTML element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  assign(el, attrs);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and children. */
export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  assign(el, attrs);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** The element with this id; a missing one is a programming error. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The pane is missing #${id}.`);
  return el as T;
}

/**
 * Focuses an element once it can take focus, trying again on the next frames: an element just un-hidden, or inside
 * a Fluent dialog that opens on a later update, cannot take focus at once, and a plain focus() would be lost.
 */
export function focusWhenReady(el: HTMLElement, frames = 10): void {
  el.focus();
  if (document.activeElement === el || frames <= 0) return;
  requestAnimationFrame(() => focusWhenReady(el, frames - 1));
}

/** A panel's message in its element (hidden when there is none): an error as an alert, anything else as a status, its details under it. */
export function showMessage(
  el: HTMLElement,
  message: { kind: string; text: string; details: readonly string[] } | null,
  className: string,
): void {
  el.replaceChildren();
  el.hidden = message === null;
  if (!message) return;
  el.className = `${className} ${message.kind}`;
  el.setAttribute("role", message.kind === "error" ? "alert" : "status");
  el.append(h("p", {}, message.text), ...message.details.map((d) => h("p", { class: "detail" }, d)));
}
