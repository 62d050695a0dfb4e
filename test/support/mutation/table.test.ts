// The mutation table script: each status counted per file, Stryker's score, the markdown rows and the survivors' lines.
import { countsOf, markdownTable, mergeReports, scoreText, survivorLines, type MutationReport, type ReportMutant } from "./table";

let id = 0;
const mutants = (status: string, n: number, line = 1): ReportMutant[] =>
  Array.from({ length: n }, () => ({
    id: String(++id),
    mutatorName: "ConditionalExpression",
    replacement: "true",
    status,
    location: { start: { line, column: 5 } },
  }));

const report = (files: Record<string, ReportMutant[]>, projectRoot?: string): MutationReport => ({
  projectRoot,
  files: Object.fromEntries(Object.entries(files).map(([f, m]) => [f, { mutants: m }])),
});

describe("the mutation table script", () => {
  test("counts each status per file, in path order, and scores as Stryker does (errors and ignored left out)", () => {
    const rows = countsOf(
      report({
        "src/b.ts": [...mutants("Killed", 3), ...mutants("Timeout", 1), ...mutants("Survived", 1), ...mutants("NoCoverage", 1)],
        "src/a.ts": [...mutants("CompileError", 2), ...mutants("RuntimeError", 1), ...mutants("Ignored", 1), ...mutants("Killed", 1)],
      }),
    );
    expect(rows.map((r) => r.file)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(rows[1]).toEqual({
      file: "src/b.ts",
      mutants: 6,
      killed: 3,
      timeout: 1,
      survived: 1,
      noCoverage: 1,
      compileErrors: 0,
      runtimeErrors: 0,
      ignored: 0,
    });
    expect(scoreText(rows[1])).toBe("66.67 %");
    expect(rows[0]).toMatchObject({ mutants: 5, killed: 1, compileErrors: 2, runtimeErrors: 1, ignored: 1 });
    expect(scoreText(rows[0])).toBe("100.00 %");
  });

  test("gives the scores test/README.md records from Stryker's own tables", () => {
    // validity.ts at 7739957: 69 killed, 8 survived; judgment+batch-hash+decision+record at 7a44a3c: 301, 2, 3, 1.
    const [validity] = countsOf(report({ "v.ts": [...mutants("Killed", 69), ...mutants("Survived", 8), ...mutants("CompileError", 20)] }));
    expect(scoreText(validity)).toBe("89.61 %");
    const [four] = countsOf(
      report({ "j.ts": [...mutants("Killed", 301), ...mutants("Timeout", 2), ...mutants("Survived", 3), ...mutants("NoCoverage", 1)] }),
    );
    expect(scoreText(four)).toBe("98.70 %");
  });

  test("a file with no mutants, or none scored, says so instead of a score", () => {
    const rows = countsOf(report({ "src/types.ts": [], "src/x.ts": mutants("CompileError", 2) }));
    expect(rows.map(scoreText)).toEqual(["no mutants", "n/a (none scored)"]);
  });

  test("a file the report names absolutely is named from the project's root", () => {
    const rows = countsOf(report({ "/work/main/src/api/time.ts": mutants("Killed", 1) }, "/work/main/"));
    expect(rows[0].file).toBe("src/api/time.ts");
  });

  test("prints one markdown row per file and the total of several", () => {
    const rows = countsOf(
      report({
        "src/a.ts": [...mutants("Killed", 9), ...mutants("Survived", 1)],
        "src/b.ts": [...mutants("Killed", 1), ...mutants("NoCoverage", 1), ...mutants("CompileError", 3)],
      }),
    );
    expect(markdownTable(rows)).toBe(
      [
        "| File | Mutants | Killed | Timed out | Survived | No coverage | Compile errors | Score |",
        "|---|---|---|---|---|---|---|---|",
        "| `src/a.ts` | 10 | 9 | 0 | 1 | 0 | 0 | 90.00 % |",
        "| `src/b.ts` | 5 | 1 | 0 | 0 | 1 | 3 | 50.00 % |",
        "| all | 15 | 10 | 0 | 1 | 1 | 3 | 83.33 % |",
      ].join("\n"),
    );
    expect(markdownTable(rows.slice(0, 1)).split("\n")).toHaveLength(3);
  });

  test("adds the runtime errors' column only when a file has one", () => {
    const table = markdownTable(countsOf(report({ "a.ts": [...mutants("Killed", 1), ...mutants("RuntimeError", 1)] })));
    expect(table.split("\n")[0]).toContain("| Compile errors | Runtime errors | Score |");
    expect(table.split("\n")[2]).toBe("| `a.ts` | 2 | 1 | 0 | 0 | 0 | 0 | 1 | 100.00 % |");
  });

  test("lists the mutants no test noticed, by file and line", () => {
    const r = report({
      "src/b.ts": [...mutants("Survived", 1, 7), ...mutants("Killed", 1, 2)],
      "src/a.ts": [...mutants("NoCoverage", 1, 30), ...mutants("Survived", 1, 4)],
    });
    expect(survivorLines(r)).toEqual([
      "src/a.ts:4:5 Survived ConditionalExpression → true",
      "src/a.ts:30:5 NoCoverage ConditionalExpression → true",
      "src/b.ts:7:5 Survived ConditionalExpression → true",
    ]);
  });

  test("of a file in two reports, the later report's figures are kept and the file is named", () => {
    const first = report({ "src/a.ts": mutants("Survived", 2), "src/c.ts": mutants("Killed", 1) });
    const second = report({ "src/a.ts": mutants("Killed", 2) });
    const { rows, replaced } = mergeReports([first, second]);
    expect(rows.map((r) => [r.file, r.killed, r.survived])).toEqual([
      ["src/a.ts", 2, 0],
      ["src/c.ts", 1, 0],
    ]);
    expect(replaced).toEqual(["src/a.ts"]);
  });
});
