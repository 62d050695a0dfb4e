// Tests of the offline manifest check: the real manifest passes, and each kind of breakage is reported.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkManifest, declaredCustomFunctionIds, type ManifestProblem, type ProblemCode } from "../../src/devtools/manifest-check";

const ROOT = join(__dirname, "..", "..");
const MANIFEST = readFileSync(join(ROOT, "manifest.xml"), "utf8").replace(/\r\n/g, "\n");
const FUNCTIONS_DIR = join(ROOT, "src", "functions");

// What the build emits (the manifest's URLs must all be among these).
const DIST_FILES = [
  "taskpane.html",
  "help.html",
  "taskpane.js",
  "runtime.js",
  "functions.js",
  "functions.json",
  "commands.js",
  "manifest.xml",
  "assets/icon-16.png",
  "assets/icon-32.png",
  "assets/icon-64.png",
  "assets/icon-80.png",
];

// The ids the real src/functions declare, and a functions.json the build would generate for them.
const DECLARED = readdirSync(FUNCTIONS_DIR)
  .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts") && !name.endsWith(".test.ts"))
  .flatMap((name) => declaredCustomFunctionIds(readFileSync(join(FUNCTIONS_DIR, name), "utf8")));
const functionsJson = (ids: readonly string[]) => ({
  functions: ids.map((id) => ({ id, name: id, description: `Does ${id}.`, parameters: [], result: { type: "string" } })),
});

function check(
  overrides: { xml?: string; dist?: readonly string[]; json?: unknown; declared?: readonly string[] } = {},
): ManifestProblem[] {
  return checkManifest(
    overrides.xml ?? MANIFEST,
    overrides.dist ?? DIST_FILES,
    overrides.json ?? functionsJson(DECLARED),
    overrides.declared ?? DECLARED,
  );
}

function codes(problems: readonly ManifestProblem[]): ProblemCode[] {
  return [...new Set(problems.map((p) => p.code))];
}

/** Replaces exactly one occurrence, so a test fails loudly if the manifest no longer contains what it breaks. */
function breakManifest(find: string, replace: string): string {
  expect(MANIFEST.split(find)).toHaveLength(2);
  return MANIFEST.replace(find, replace);
}

describe("the real manifest", () => {
  test("passes", () => {
    expect(check()).toEqual([]);
  });

  test("declares at least HEDGE.VERSION in src/functions", () => {
    expect(DECLARED).toContain("VERSION");
  });

  test("does not count the http:// XML namespace URIs as URLs", () => {
    expect(MANIFEST).toContain('xmlns="http://schemas.microsoft.com/office/appforoffice/1.1"');
    expect(check()).toEqual([]);
  });
});

describe("a broken manifest", () => {
  test("a dangling resid", () => {
    const problems = check({ xml: breakManifest('<Label resid="Group.Label" />', '<Label resid="Group.Lable" />') });
    expect(codes(problems)).toEqual(["dangling-resid"]);
    expect(problems[0].message).toContain('resid="Group.Lable"');
  });

  test("a resid naming the wrong kind of resource", () => {
    const problems = check({ xml: breakManifest('<Runtime resid="Taskpane.Url"', '<Runtime resid="Icon.32x32"') });
    expect(codes(problems)).toContain("resid-type");
  });

  test("an http URL", () => {
    const problems = check({
      xml: breakManifest(
        'DefaultValue="https://localhost:3000/assets/icon-16.png"',
        'DefaultValue="http://localhost:3000/assets/icon-16.png"',
      ),
    });
    expect(codes(problems)).toEqual(["not-https"]);
    expect(problems[0].message).toContain("http://localhost:3000/assets/icon-16.png");
  });

  test("an http URL outside the resources", () => {
    const problems = check({
      xml: breakManifest('<HighResolutionIconUrl DefaultValue="https://', '<HighResolutionIconUrl DefaultValue="http://'),
    });
    expect(codes(problems)).toEqual(["not-https"]);
  });

  test("a URL whose file the build does not emit", () => {
    const problems = check({ dist: DIST_FILES.filter((file) => file !== "assets/icon-80.png") });
    expect(codes(problems)).toEqual(["missing-file"]);
    expect(problems[0].message).toContain("dist/assets/icon-80.png");
  });

  test("a URL with a typo in its path", () => {
    const problems = check({ xml: breakManifest('"https://localhost:3000/functions.json"', '"https://localhost:3000/function.json"') });
    expect(codes(problems)).toEqual(["missing-file"]);
  });

  test("the wrong namespace", () => {
    const problems = check({
      xml: breakManifest(
        '<bt:String id="Functions.Namespace" DefaultValue="HEDGE" />',
        '<bt:String id="Functions.Namespace" DefaultValue="CONTOSO" />',
      ),
    });
    expect(codes(problems)).toEqual(["namespace"]);
    expect(problems[0].message).toContain('"CONTOSO"');
  });

  test("a function in functions.json that the code does not declare", () => {
    const problems = check({ json: functionsJson([...DECLARED, "STALE_LEFTOVER"]) });
    expect(codes(problems)).toEqual(["function-ids"]);
    expect(problems[0].message).toContain("STALE_LEFTOVER");
  });

  test("a declared function missing from functions.json", () => {
    const problems = check({ declared: [...DECLARED, "NOT_BUILT_YET"] });
    expect(codes(problems)).toEqual(["function-ids"]);
    expect(problems[0].message).toContain("NOT_BUILT_YET");
  });

  test("a function without a description", () => {
    const json = functionsJson(DECLARED);
    json.functions[0].description = "";
    expect(codes(check({ json }))).toEqual(["function-description"]);
  });

  test("a parameter described as a range that is not a matrix (Excel would call the function once per cell): the build's check fails, naming it", () => {
    const json = functionsJson(DECLARED);
    const target = json.functions.find((f) => f.id === "TARGET") as { parameters: unknown[] };
    target.parameters = [
      { name: "exposures", description: "Range with a header row.", dimensionality: "matrix", type: "any" },
      { name: "positions", description: "Optional range with Market, Side, Size.", type: "any" },
      { name: "as_of", description: "Optional instant.", type: "any" },
    ];
    const problems = check({ json });
    expect(codes(problems)).toEqual(["range-not-matrix"]);
    expect(problems[0].message).toMatch(
      /^custom function TARGET: parameter positions is described as a range but is scalar in functions\.json/,
    );
    target.parameters[1] = { ...(target.parameters[1] as object), dimensionality: "matrix" };
    expect(check({ json })).toEqual([]);
  });

  test("a functions.json without functions", () => {
    expect(codes(check({ json: {} }))).toEqual(["function-ids"]);
  });

  test("not well-formed XML", () => {
    const problems = check({ xml: breakManifest("</bt:Urls>", "</bt:Url>") });
    expect(codes(problems)).toEqual(["xml"]);
  });

  test("a duplicate resource id", () => {
    const xml = breakManifest(
      '<bt:String id="Group.Label" DefaultValue="Hedge" />',
      '<bt:String id="Group.Label" DefaultValue="Hedge" /><bt:String id="Group.Label" DefaultValue="Again" />',
    );
    expect(codes(check({ xml }))).toEqual(["resource"]);
  });

  test("a short string over the schema's 125 characters", () => {
    const xml = breakManifest('DefaultValue="Pause feeds"', `DefaultValue="${"x".repeat(126)}"`);
    expect(codes(check({ xml }))).toEqual(["resource"]);
  });

  test("a custom functions page that is not the shared runtime page", () => {
    const xml = breakManifest(
      '<Page>\n              <SourceLocation resid="Taskpane.Url" />',
      '<Page>\n              <SourceLocation resid="Functions.Script.Url" />',
    );
    const problems = check({ xml });
    expect(codes(problems)).toEqual(["structure"]);
    expect(problems[0].message).toContain("shared runtime");
  });

  test("a runtime that is not long-lived", () => {
    const xml = breakManifest('lifetime="long"', 'lifetime="short"');
    expect(codes(check({ xml }))).toEqual(["structure"]);
  });

  test("a missing SharedRuntime requirement set", () => {
    const xml = breakManifest('<Set Name="SharedRuntime" MinVersion="1.1" />', "");
    expect(codes(check({ xml }))).toEqual(["structure"]);
  });

  test("CustomFunctionsRuntime below 1.3 (error messages in cells need it)", () => {
    const xml = breakManifest(
      '<Set Name="CustomFunctionsRuntime" MinVersion="1.3" />',
      '<Set Name="CustomFunctionsRuntime" MinVersion="1.1" />',
    );
    expect(check({ xml })).toEqual([{ code: "structure", message: expect.stringMatching(/at least 1\.3/) }]);
  });
});

describe("declaredCustomFunctionIds", () => {
  test("reads explicit ids, falls back to the upper-cased function name, and ignores other JSDoc", () => {
    const source = `
/** Not a custom function. */
export function helper(): number { return 1; }

/**
 * Spot rate.
 * @customfunction Spot
 * @param pair Currency pair.
 */
export async function spotRate(pair: string): Promise<number> { return pair.length; }

/**
 * Bare tag.
 * @CustomFunction
 */
function quoteAge(): number { return 0; }

/** A constant. */
const x = 1;

/**
 * With id and display name.
 * @customfunction open_hedge OPEN
 */
export function openHedge(): string { return String(x); }
`;
    expect(declaredCustomFunctionIds(source)).toEqual(["SPOT", "QUOTEAGE", "OPEN_HEDGE"]);
  });
});
