// The layer rules of eslint.config.js still catch what they are for: Office.js outside src/excel and the entry files, imports across forbidden folders, and names that shadow the page's window.
import path from "path";
import { Linter } from "eslint";

const ROOT = path.resolve(__dirname, "../..");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(ROOT, "eslint.config.js")) as Linter.Config[];
const linter = new Linter({ cwd: ROOT });

/** The rule ids ESLint reports for `code` as if it were the file at `file` (relative to the repository). */
function rulesBroken(file: string, code: string): string[] {
  return linter.verify(code, config, { filename: path.join(ROOT, file) }).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe("Office.js only in src/excel and the four entry files", () => {
  test.each([
    ["src/trading/fixture.ts", "export const run = () => Excel.run(async (context) => context.sync());"],
    ["src/monthend/fixture.ts", "export const at = () => OfficeRuntime.storage.getItem('k');"],
    ["src/feeds/fixture.ts", "export const ok = () => Office.context.requirements.isSetSupported('ExcelApi', '1.12');"],
    ["src/api/fixture.ts", "export const fail = () => new CustomFunctions.Error(CustomFunctions.ErrorCode.invalidValue);"],
    ["src/taskpane/pane-fixture.ts", "export const ready = () => Office.onReady();"],
    ["src/sandbox/fixture.ts", "export const run = () => Excel.run(async () => undefined);"],
  ])("%s is refused", (file, code) => {
    expect(rulesBroken(file, code)).toContain("no-restricted-globals");
  });

  test.each([
    ["src/excel/fixture.ts", "export const run = () => Excel.run(async (context) => context.sync());"],
    ["src/taskpane/taskpane.ts", "Office.onReady(() => undefined);"],
    ["src/commands/commands.ts", "Office.actions.associate('x', () => undefined);"],
    ["src/functions/functions.ts", "export const fail = () => new CustomFunctions.Error(CustomFunctions.ErrorCode.invalidValue);"],
    ["src/functions/engine.ts", "export const fail = () => new CustomFunctions.Error(CustomFunctions.ErrorCode.invalidValue);"],
  ])("%s may use it", (file, code) => {
    expect(rulesBroken(file, code)).toEqual([]);
  });
});

describe("which src/ folder may import which", () => {
  test.each([
    ["src/api/fixture.ts", "../trading/desk"],
    ["src/api/fixture.ts", "../feeds/hub"],
    ["src/trading/fixture.ts", "../excel/office-workbook"],
    ["src/trading/fixture.ts", "../monthend/reconcile"],
    ["src/monthend/fixture.ts", "../excel/recon-sheet"],
    ["src/feeds/fixture.ts", "../taskpane/pane-app"],
    ["src/sandbox/fixture.ts", "../taskpane/pane-app"],
    ["src/sandbox/fixture.ts", "../trading/desk"],
    ["src/sandbox/fixture.ts", "../excel/memory-workbook"],
    ["src/functions/fixture.ts", "../trading/desk"],
    ["src/devtools/fixture.ts", "../sandbox/server"],
    ["src/policy/fixture.ts", "../excel/office-selection"],
    ["src/policy/fixture.ts", "../feeds/hub"],
    ["src/trading/fixture.ts", "../policy/target"],
    // A folder one level down (src/trading/desk/): "../../x" is another folder.
    ["src/trading/desk/fixture.ts", "../../excel/office-workbook"],
    ["src/trading/desk/fixture.ts", "../../taskpane/pane-app"],
    // The rooms inside src/trading: execution's shared files, desk/, log/ and approvals/.
    ["src/trading/fixture.ts", "./desk/runner"],
    ["src/trading/fixture.ts", "./approvals/judgment"],
    ["src/trading/log/fixture.ts", "../journal"],
    ["src/trading/log/fixture.ts", "../intent"],
    ["src/trading/log/fixture.ts", "../desk/rule"],
    ["src/trading/log/fixture.ts", "../../excel/office-workbook"],
    ["src/trading/desk/fixture.ts", "../approvals/approval-desk"],
    ["src/trading/approvals/fixture.ts", "../desk/runner"],
    ["src/trading/approvals/fixture.ts", "../desk"],
    ["src/trading/approvals/fixture.ts", "../../taskpane/pane-app"],
    // The page loads zod's small build only.
    ["src/api/fixture.ts", "zod"],
    ["src/taskpane/fixture.ts", "zod"],
    ["src/trading/desk/fixture.ts", "zod"],
  ])("%s importing %s is refused", (file, from) => {
    expect(rulesBroken(file, `import { x } from "${from}";\nexport const y = x;`)).toContain("no-restricted-imports");
  });

  test.each([
    ["src/api/fixture.ts", "./errors"],
    ["src/trading/fixture.ts", "../api/schemas"],
    ["src/monthend/fixture.ts", "../trading/cells"],
    ["src/excel/fixture.ts", "../monthend/recon-layout"],
    ["src/policy/fixture.ts", "../trading/sheet-content"],
    ["src/taskpane/fixture.ts", "../excel/memory-workbook"],
    ["src/sandbox/fixture.ts", "../api/schemas"],
    ["src/functions/fixture.ts", "../../package.json"],
    ["src/policy/fixture.ts", "../trading/rows"],
    ["src/functions/fixture.ts", "../policy/target"],
    ["src/taskpane/fixture.ts", "../policy/target"],
    ["src/trading/desk/fixture.ts", "../verdict"],
    ["src/trading/desk/fixture.ts", "../../api/errors"],
    ["src/trading/fixture.ts", "./log/hedge-log"],
    ["src/trading/log/fixture.ts", "../cells"],
    ["src/trading/log/fixture.ts", "./digest"],
    ["src/trading/log/fixture.ts", "../../api/time"],
    ["src/trading/desk/fixture.ts", "../log/hedge-log"],
    ["src/trading/approvals/fixture.ts", "../desk/contract"],
    ["src/trading/approvals/fixture.ts", "../log/digest"],
    ["src/trading/approvals/fixture.ts", "../rows"],
    ["src/api/fixture.ts", "zod/mini"],
    ["src/sandbox/fixture.ts", "zod"],
  ])("%s importing %s is allowed", (file, from) => {
    expect(rulesBroken(file, `import { x } from "${from}";\nexport const y = x;`)).toEqual([]);
  });
});

describe("no name shadows the page's window", () => {
  test.each([
    ["a variable", "export function f(m: string) {\n  const window = m;\n  return window;\n}"],
    ["a parameter", "export function f(window: { startMs: number }) {\n  return window.startMs;\n}"],
    ["a destructured field", "export function f(r: { window: number }) {\n  const { window } = r;\n  return window;\n}"],
  ])("%s named window is refused", (_what, code) => {
    expect(rulesBroken("src/monthend/fixture.ts", code)).toContain("no-restricted-syntax");
  });

  test("a field named window, read through its object, is fine", () => {
    expect(rulesBroken("src/monthend/fixture.ts", "export function f(r: { window: number }) {\n  return r.window;\n}")).toEqual([]);
  });
});
