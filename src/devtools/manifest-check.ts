// Offline manifest checks (pure, unit-tested): resids resolve, URLs are https and built, namespace HEDGE, function ids match the code, range parameters are matrices.
import { XMLParser, XMLValidator } from "fast-xml-parser";

export type ProblemCode =
  | "xml" // not well-formed XML
  | "structure" // a required element is missing or the shared runtime is wired wrongly
  | "resource" // a duplicate, too long or malformed entry in <Resources>
  | "dangling-resid" // a resid that names no resource
  | "resid-type" // a resid that names a resource of the wrong kind (e.g. an image where a URL is needed)
  | "not-https" // a URL that is not https://
  | "missing-file" // a dev-server URL whose file the build does not emit
  | "namespace" // the custom functions namespace is not HEDGE
  | "function-ids" // functions.json and the @customfunction tags disagree
  | "function-description" // a custom function without a description
  | "range-not-matrix"; // a parameter described as a range that functions.json does not declare a matrix

export interface ManifestProblem {
  code: ProblemCode;
  message: string;
}

export interface ManifestCheckOptions {
  /** The URL whose files are dist/'s (default: the address the manifest is written for, see manifestTemplateUrl). */
  devUrl?: string;
  /** The custom functions namespace the add-in must use. */
  namespace?: string;
}

export const NAMESPACE = "HEDGE";

/**
 * The address manifest.xml is written for: the folder of its task pane page. The build rewrites it to where the add-in
 * is served (webpack.config.js), so URLs under it must be files the build emits.
 */
export function manifestTemplateUrl(manifestXml: string): string | undefined {
  const page = /<SourceLocation DefaultValue="([^"]+)"/.exec(manifestXml)?.[1];
  try {
    return page ? new URL(".", page).href : undefined;
  } catch {
    return undefined;
  }
}

/** One element of the manifest, flattened: its qualified name, attributes, own text and path from the root. */
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  text: string;
  path: string[];
  children: XmlElement[];
}

type ResourceKind = "image" | "url" | "short" | "long";

const RESOURCE_GROUPS: Record<string, ResourceKind> = {
  "bt:Images": "image",
  "bt:Urls": "url",
  "bt:ShortStrings": "short",
  "bt:LongStrings": "long",
};

/** Which kinds of resource a resid on an element of this name may name; elements not listed may name any. */
const RESID_KINDS: Record<string, readonly ResourceKind[]> = {
  "bt:Image": ["image"],
  SourceLocation: ["url"],
  Runtime: ["url"],
  FunctionFile: ["url"],
  LearnMoreUrl: ["url"],
  Label: ["short"],
  Title: ["short"],
  Namespace: ["short"],
  Description: ["short", "long"],
};

// Limits of the add-in only manifest schema.
const MAX_RESOURCE_ID = 32;
const MAX_SHORT_STRING = 125;
const MAX_LONG_STRING = 250;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

type OrderedNode = Record<string, unknown>;

function toElements(nodes: unknown, path: string[]): XmlElement[] {
  if (!Array.isArray(nodes)) return [];
  const out: XmlElement[] = [];
  for (const node of nodes as OrderedNode[]) {
    const name = Object.keys(node).find((key) => key !== ":@" && key !== "#text");
    if (!name) continue;
    const rawChildren = node[name];
    const attrs = (node[":@"] ?? {}) as Record<string, string>;
    const text = Array.isArray(rawChildren)
      ? (rawChildren as OrderedNode[])
          .filter((child) => "#text" in child)
          .map((child) => String(child["#text"]))
          .join("")
          .trim()
      : "";
    const element: XmlElement = { name, attrs, text, path: [...path, name], children: [] };
    element.children = toElements(rawChildren, element.path);
    out.push(element);
  }
  return out;
}

function* walk(elements: readonly XmlElement[]): Generator<XmlElement> {
  for (const element of elements) {
    yield element;
    yield* walk(element.children);
  }
}

function where(element: XmlElement): string {
  return element.path.join("/");
}

/** Parses the manifest; returns the root elements, or a problem when it is not well-formed XML. */
function parse(manifestXml: string): XmlElement[] | ManifestProblem {
  const valid = XMLValidator.validate(manifestXml);
  if (valid !== true) {
    return { code: "xml", message: `manifest.xml is not well-formed XML (line ${valid.err.line}): ${valid.err.msg}` };
  }
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
  });
  return toElements(parser.parse(manifestXml), []);
}

/**
 * The custom function ids declared by `@customfunction` JSDoc tags in one TypeScript source, as
 * custom-functions-metadata derives them: the tag's first word, else the function's name, upper-cased.
 */
export function declaredCustomFunctionIds(source: string): string[] {
  const ids: string[] = [];
  const docThenFunction = /\/\*\*([\s\S]*?)\*\/\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/g;
  for (const match of source.matchAll(docThenFunction)) {
    // A JSDoc block may swallow earlier blocks if one of them is not followed by a function; use the last one.
    const doc = match[1].split("/**").pop() ?? "";
    const tag = /@customfunction\b[ \t]*([^\s*]*)/i.exec(doc);
    if (tag) ids.push((tag[1] || match[2]).toUpperCase());
  }
  return ids;
}

/** Reports one problem. */
type Report = (code: ProblemCode, message: string) => void;
type Resources = Map<string, { kind: ResourceKind; value: string; element: XmlElement }>;

/**
 * Checks manifest.xml against the build and the code. Returns every problem found (empty when fine).
 * @param manifestXml the text of manifest.xml
 * @param distFiles the files the build emitted, relative to dist/ with "/" separators (e.g. "assets/icon-16.png")
 * @param functionsJson the parsed dist/functions.json
 * @param declaredIds the ids declared by @customfunction tags in src/functions/*.ts
 */
export function checkManifest(
  manifestXml: string,
  distFiles: readonly string[],
  functionsJson: unknown,
  declaredIds: readonly string[],
  options: ManifestCheckOptions = {},
): ManifestProblem[] {
  const devUrl = options.devUrl ?? manifestTemplateUrl(manifestXml);
  const problems: ManifestProblem[] = [];
  const problem: Report = (code, message) => problems.push({ code, message });

  const parsed = parse(manifestXml);
  if (!Array.isArray(parsed)) return [parsed];
  const all = [...walk(parsed)];
  const root = parsed.find((element) => element.name === "OfficeApp");
  if (!root) {
    problem("structure", "the root element is not <OfficeApp>");
    return problems;
  }
  checkStructure(root, all, problem);
  const resources = collectResources(all, problem);
  checkResids(all, resources, problem);
  checkUrls(all, distFiles, devUrl, problem);
  const functionsPoint = all.find((element) => element.name === "ExtensionPoint" && element.attrs["xsi:type"] === "CustomFunctions");
  checkSharedRuntime(all, functionsPoint, resources, problem);
  checkNamespace(functionsPoint, resources, options.namespace ?? NAMESPACE, problem);
  checkFunctions(functionsJson, declaredIds, problem);
  return problems;
}

/** An Excel task pane add-in: its root, required elements, host and requirement sets. */
function checkStructure(root: XmlElement, all: readonly XmlElement[], problem: Report): void {
  if (root.attrs["xsi:type"] !== "TaskPaneApp")
    problem("structure", `<OfficeApp xsi:type="${root.attrs["xsi:type"] ?? ""}"> must be "TaskPaneApp"`);
  const child = (name: string) => root.children.find((element) => element.name === name);
  const id = child("Id")?.text ?? "";
  if (!GUID.test(id)) problem("structure", `<Id> must be a GUID, got "${id}"`);
  for (const required of [
    "Version",
    "ProviderName",
    "DefaultLocale",
    "DisplayName",
    "Description",
    "IconUrl",
    "HighResolutionIconUrl",
    "SupportUrl",
    "DefaultSettings",
    "Permissions",
    "VersionOverrides",
  ]) {
    if (!child(required)) problem("structure", `<OfficeApp> has no <${required}>`);
  }
  const hosts = child("Hosts")?.children.map((host) => host.attrs.Name) ?? [];
  if (!hosts.includes("Workbook"))
    problem("structure", `<Hosts> must contain <Host Name="Workbook"/> (Excel), found: ${hosts.join(", ") || "none"}`);
  const setElements = all.filter((element) => element.name === "Set" && element.path.includes("Requirements"));
  const sets = setElements.map((set) => set.attrs.Name);
  for (const required of ["SharedRuntime", "CustomFunctionsRuntime"]) {
    if (!sets.includes(required)) problem("structure", `<Requirements> must declare the ${required} requirement set`);
  }
  // CustomFunctions.Error with a message (how every HEDGE.* error explains itself) needs CustomFunctionsRuntime 1.3.
  const cfr = setElements.find((set) => set.attrs.Name === "CustomFunctionsRuntime");
  const [major, minor] = (cfr?.attrs.MinVersion ?? "0").split(".").map(Number);
  if (cfr && (major < 1 || (major === 1 && (minor || 0) < 3)))
    problem(
      "structure",
      `CustomFunctionsRuntime MinVersion="${cfr.attrs.MinVersion ?? ""}" must be at least 1.3 (error messages in cells need it)`,
    );
}

/** The <Resources> entries by id: unique, short enough, with a value, https where a URL. */
function collectResources(all: readonly XmlElement[], problem: Report): Resources {
  const resources: Resources = new Map();
  for (const element of all) {
    const parent = element.path[element.path.length - 2];
    const kind = RESOURCE_GROUPS[parent];
    if (!kind || !element.path.includes("Resources")) continue;
    const resId = element.attrs.id;
    const value = element.attrs.DefaultValue;
    if (!resId) {
      problem("resource", `${where(element)} has no id`);
      continue;
    }
    if (resources.has(resId)) problem("resource", `resource id "${resId}" is defined twice`);
    if (resId.length > MAX_RESOURCE_ID) problem("resource", `resource id "${resId}" is longer than ${MAX_RESOURCE_ID} characters`);
    if (value === undefined) problem("resource", `resource "${resId}" has no DefaultValue`);
    const limit = kind === "short" ? MAX_SHORT_STRING : kind === "long" ? MAX_LONG_STRING : undefined;
    if (limit !== undefined && (value ?? "").length > limit) {
      problem(
        "resource",
        `resource "${resId}" is ${(value ?? "").length} characters long; ${kind === "short" ? "short" : "long"} strings allow ${limit}`,
      );
    }
    if ((kind === "url" || kind === "image") && value !== undefined && !value.startsWith("https://")) {
      problem("not-https", `resource "${resId}" must be an https:// URL, got "${value}"`);
    }
    resources.set(resId, { kind, value: value ?? "", element });
  }
  return resources;
}

/** Every resid resolves, to the right kind of resource. */
function checkResids(all: readonly XmlElement[], resources: Resources, problem: Report): void {
  for (const element of all) {
    const resid = element.attrs.resid;
    if (resid === undefined) continue;
    const resource = resources.get(resid);
    if (!resource) {
      problem("dangling-resid", `<${element.name} resid="${resid}"> at ${where(element)} names no resource in <Resources>`);
      continue;
    }
    const allowed = RESID_KINDS[element.name];
    if (allowed && !allowed.includes(resource.kind)) {
      problem(
        "resid-type",
        `<${element.name} resid="${resid}"> needs a ${allowed.join(" or ")} resource, but "${resid}" is a ${resource.kind} resource`,
      );
    }
  }
}

/** Every URL is https, and every dev-server URL is a file the build emits. */
function checkUrls(all: readonly XmlElement[], distFiles: readonly string[], devUrl: string | undefined, problem: Report): void {
  const built = new Set(distFiles.map((file) => file.replace(/\\/g, "/").replace(/^\.?\//, "")));
  const reported = new Set<string>();
  for (const element of all) {
    const values = [
      ...Object.entries(element.attrs)
        .filter(([name]) => name !== "xmlns" && !name.startsWith("xmlns:"))
        .map(([, value]) => value),
      element.text,
    ];
    for (const value of values) {
      if (!ANY_URL.test(value) || reported.has(value)) continue;
      reported.add(value);
      if (!value.startsWith("https://")) {
        problem("not-https", `${where(element)}: "${value}" is not an https:// URL`);
      } else if (devUrl && value.startsWith(devUrl)) {
        const file = decodeURIComponent(value.slice(devUrl.length).replace(/[?#].*$/, ""));
        if (!built.has(file))
          problem("missing-file", `${value} (${where(element)}) is served from dist/${file}, which the build does not emit`);
      }
    }
  }
}

/** Shared runtime wiring: one long-lived runtime page used by the functions, the pane and the commands. */
function checkSharedRuntime(
  all: readonly XmlElement[],
  functionsPoint: XmlElement | undefined,
  resources: Resources,
  problem: Report,
): void {
  const runtime = all.find((element) => element.name === "Runtime" && element.path.includes("Runtimes"));
  if (!runtime) {
    problem("structure", 'no <Runtimes><Runtime resid=... lifetime="long"/></Runtimes>: the add-in needs the shared runtime');
  } else {
    if (runtime.attrs.lifetime !== "long") problem("structure", `<Runtime resid="${runtime.attrs.resid}"> must have lifetime="long"`);
    const runtimeUrl = resources.get(runtime.attrs.resid ?? "")?.value;
    const samePage = (element: XmlElement | undefined, what: string) => {
      const url = element ? resources.get(element.attrs.resid ?? "")?.value : undefined;
      if (element && runtimeUrl !== undefined && url !== undefined && url !== runtimeUrl) {
        problem("structure", `${what} loads ${url}, not the shared runtime page ${runtimeUrl}`);
      }
    };
    const page = functionsPoint?.children
      .find((element) => element.name === "Page")
      ?.children.find((element) => element.name === "SourceLocation");
    if (functionsPoint && !page) problem("structure", "the CustomFunctions extension point has no <Page><SourceLocation/></Page>");
    samePage(page, "the custom functions <Page>");
    samePage(
      all.find((element) => element.name === "FunctionFile"),
      "<FunctionFile>",
    );
    for (const action of all.filter((element) => element.name === "Action" && element.attrs["xsi:type"] === "ShowTaskpane")) {
      samePage(
        action.children.find((element) => element.name === "SourceLocation"),
        "a ShowTaskpane action",
      );
    }
  }
}

/** The custom functions namespace. */
function checkNamespace(functionsPoint: XmlElement | undefined, resources: Resources, namespace: string, problem: Report): void {
  const namespaceElement = functionsPoint?.children.find((element) => element.name === "Namespace");
  if (!namespaceElement) {
    problem(
      "namespace",
      `no <ExtensionPoint xsi:type="CustomFunctions"> with a <Namespace resid=.../>: the functions need the ${namespace} namespace`,
    );
  } else {
    const value = resources.get(namespaceElement.attrs.resid ?? "")?.value;
    if (value !== undefined && value !== namespace) {
      problem(
        "namespace",
        `the custom functions namespace is "${value}" (resource "${namespaceElement.attrs.resid}"), it must be "${namespace}"`,
      );
    }
  }
}

/**
 * A parameter whose description calls it a range must be `"dimensionality": "matrix"`: Excel passes a range to a scalar
 * parameter by calling the function once per cell. (custom-functions-metadata reads `any[][]` as a matrix, but not a
 * union such as `any[][] | undefined`: declare an optional range `any[][]` and mark it optional in the JSDoc.)
 */
export function checkRangeParameters(functions: readonly unknown[], problem: Report): void {
  for (const fn of functions as { id?: unknown; parameters?: unknown }[]) {
    if (!Array.isArray(fn.parameters)) continue;
    for (const p of fn.parameters as { name?: unknown; description?: unknown; dimensionality?: unknown }[]) {
      if (typeof p.description !== "string" || !/\brange\b/i.test(p.description) || p.dimensionality === "matrix") continue;
      problem(
        "range-not-matrix",
        `custom function ${String(fn.id)}: parameter ${String(p.name)} is described as a range but is ${String(p.dimensionality ?? "scalar")} in functions.json (Excel would call the function once per cell): declare it any[][] in functions.ts, not a union such as any[][] | undefined`,
      );
    }
  }
}

/** functions.json against the @customfunction tags: the same ids, each with a description, range parameters as matrices. */
function checkFunctions(functionsJson: unknown, declaredIds: readonly string[], problem: Report): void {
  const functions = (functionsJson as { functions?: unknown } | null)?.functions;
  if (!Array.isArray(functions)) {
    problem("function-ids", 'functions.json has no "functions" array');
  } else {
    const builtIds = functions.map((fn) => String((fn as { id?: unknown }).id ?? ""));
    const declared = new Set(declaredIds);
    const inJson = new Set(builtIds);
    const missing = [...declared].filter((fnId) => !inJson.has(fnId));
    const extra = [...inJson].filter((fnId) => !declared.has(fnId));
    if (missing.length > 0)
      problem("function-ids", `declared with @customfunction but not in functions.json (rebuild?): ${missing.join(", ")}`);
    if (extra.length > 0)
      problem("function-ids", `in functions.json but declared by no @customfunction in src/functions/*.ts: ${extra.join(", ")}`);
    for (const fn of functions as { id?: unknown; description?: unknown }[]) {
      if (typeof fn.description !== "string" || fn.description.trim() === "") {
        problem("function-description", `custom function ${String(fn.id)} has no description: write one in its JSDoc comment`);
      }
    }
    checkRangeParameters(functions, problem);
  }
}
