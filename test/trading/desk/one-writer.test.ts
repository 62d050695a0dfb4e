// One writer of a row's status (issue 38): an architecture test over the sources of src/trading/ (the desk, the approvals room, execution's shared files, the log) that fails when a second place changes a row's status beside the executor (RowRunner.judge's settle in desk/runner.ts), with planted sources proving each check fires.
import fs from "fs";
import path from "path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "../../..");
const TRADING = path.join(ROOT, "src/trading");

/** Where a row's status may change: the executor's one method, the desk state's own declaration, the journal's move. */
const EXECUTOR = { file: "src/trading/desk/runner.ts", method: "settle" };
const STATE = "src/trading/desk/state.ts";
const JOURNAL = "src/trading/journal.ts";
const INTENT = "src/trading/intent.ts";

/** The enclosing method or function of a node (its name), or null at the top of the file. */
function enclosing(node: ts.Node): string | null {
  for (let n = node.parent; n; n = n.parent)
    if ((ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n)) && n.name) return n.name.getText();
  return null;
}

/**
 * Every place in `files` (path relative to the repository → source) that changes a row's status other than the executor:
 * - the desk state's status entry (`changeStatus`) named anywhere but in the executor's one method (and its declaration);
 * - the journal's move (`<…journal>.update(`) called anywhere but in the desk state;
 * - the state machine's patch (`applyPatch`) applied anywhere but in the journal;
 * - a `status` assigned to anything (`intent.status = …`);
 * - a note (`.note(row, { status, … })`) that carries a status (the desk state refuses it at run time too).
 */
function secondWriters(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node, what: string) => {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${file}:${line} ${what}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node)) {
        const name = node.name.text;
        if (name === "changeStatus" && !(file === EXECUTOR.file && enclosing(node) === EXECUTOR.method))
          at(node, "changes a status outside the executor");
        if (name === "update" && /journal$/i.test(node.expression.getText()) && file !== STATE)
          at(node, "moves a row in the journal outside the desk state");
      }
      if (ts.isIdentifier(node) && node.text === "applyPatch" && file !== JOURNAL && file !== INTENT)
        at(node, "applies a patch outside the journal");
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(node.left) &&
        node.left.name.text === "status"
      )
        at(node, "assigns a status");
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "note")
        for (const arg of node.arguments)
          if (ts.isObjectLiteralExpression(arg) && arg.properties.some((p) => p.name?.getText() === "status"))
            at(node, "a note carries a status");
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The sources of src/trading/, every folder, by their path relative to the repository. */
function tradingSources(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".ts")) out[path.relative(ROOT, full).split(path.sep).join("/")] = fs.readFileSync(full, "utf8");
    }
  };
  walk(TRADING);
  return out;
}

describe("one writer of a row's status", () => {
  const sources = tradingSources();

  it("reads the desk, the approvals room, execution's shared files and the log", () => {
    const files = Object.keys(sources);
    for (const f of [
      EXECUTOR.file,
      STATE,
      JOURNAL,
      "src/trading/desk/decisions.ts",
      "src/trading/desk/index.ts",
      "src/trading/approvals/approval-desk.ts",
      "src/trading/desk/roll-arming.ts",
      "src/trading/rolls.ts",
    ])
      expect(files).toContain(f);
  });

  it("no place of src/trading/ but the executor changes a status", () => {
    expect(secondWriters(sources)).toEqual([]);
  });

  it("the executor changes it from its one method, and the desk state moves the journal in one place", () => {
    const runner = sources[EXECUTOR.file];
    expect(runner.match(/\.changeStatus\(/g)?.length).toBeGreaterThan(0);
    expect(sources[STATE].match(/journal\.update\(/g)).toHaveLength(1);
  });

  describe("a second writer is caught", () => {
    test.each([
      [
        "the desk state's status entry from another part",
        "src/trading/desk/decisions.ts",
        "ctx.state.changeStatus(intent, { status: 'needs_decision' });",
        "changes a status outside the executor",
      ],
      [
        "the same entry taken by another name",
        "src/trading/desk/index.ts",
        "const write = this.state.changeStatus; write(i, p);",
        "changes a status outside the executor",
      ],
      [
        "the runner outside its executor's method",
        EXECUTOR.file,
        "class R { attempt() { this.ctx.state.changeStatus(i, { status: 'rejected' }); } }",
        "changes a status outside the executor",
      ],
      [
        "the journal moved by the facade",
        "src/trading/desk/index.ts",
        "class D { move(i, p) { this.journal.update(i, p); } }",
        "moves a row in the journal outside the desk state",
      ],
      [
        "the journal moved by the approvals room",
        "src/trading/approvals/approval-desk.ts",
        "ctx.journal.update(intent, { status: 'filled' });",
        "moves a row in the journal outside the desk state",
      ],
      [
        "the state machine's patch applied elsewhere",
        "src/trading/desk/approved-done.ts",
        "applyPatch(intent, { status: 'closed' });",
        "applies a patch outside the journal",
      ],
      ["a status assigned", "src/trading/desk/approved-done.ts", "intent.status = 'filled';", "assigns a status"],
      [
        "the armed rolls marking the maturing row rolled",
        "src/trading/desk/roll-arming.ts",
        "class A { private async send(armed) { this.o.desk.state.changeStatus(row, { status: 'filled' }); } }",
        "changes a status outside the executor",
      ],
      [
        "the armed rolls moving a row in the journal",
        "src/trading/desk/roll-arming.ts",
        "class A { private async send(armed) { await this.journal.update(row, { status: 'submitted' }); } }",
        "moves a row in the journal outside the desk state",
      ],
      [
        "a note that carries a status",
        "src/trading/desk/runner.ts",
        "this.ctx.state.note(intent, { status: 'rejected', message: 'x' });",
        "a note carries a status",
      ],
    ])("%s", (_, file, code, what) => {
      expect(secondWriters({ [file]: code })).toEqual([`${file}:1 ${what}`]);
    });

    it("while the executor's own method, the desk state and the journal pass", () => {
      expect(
        secondWriters({
          [EXECUTOR.file]: "class R { private settle(t, step) { this.ctx.state.changeStatus(t.intent, step.patch); } }",
          [STATE]: "class S { private change(i, p) { this.journal.update(i, p); } }",
          [JOURNAL]: "class J { update(i, p) { return applyPatch(i, p); } }",
        }),
      ).toEqual([]);
    });
  });
});
