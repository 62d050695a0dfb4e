// Stryker's mutation.json reports (mutation-testing-report-schema) as test/README.md mutation rows: per file, each status counted and Stryker's score.

/** A mutant as the report schema gives it (the fields read here). */
export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

/** The report's top level (the fields read here): source files by path, each with its mutants. */
export interface MutationReport {
  projectRoot?: string;
  files: Record<string, { mutants: ReportMutant[] }>;
}

/** One file's counts. `mutants` is every mutant of the file in the report, whatever its status. */
export interface FileCounts {
  file: string;
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  compileErrors: number;
  runtimeErrors: number;
  ignored: number;
}

const COUNTED: Record<string, keyof Omit<FileCounts, "file" | "mutants">> = {
  Killed: "killed",
  Timeout: "timeout",
  Survived: "survived",
  NoCoverage: "noCoverage",
  CompileError: "compileErrors",
  RuntimeError: "runtimeErrors",
  Ignored: "ignored",
};

/** The report's path for a file, relative to the project when the report names it absolutely. */
function fileName(report: MutationReport, file: string): string {
  const root = report.projectRoot?.replace(/\/+$/, "");
  return root && file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

/** Each file's counts, in path order. A status the schema may add later ("Pending") counts in `mutants` only. */
export function countsOf(report: MutationReport): FileCounts[] {
  return Object.entries(report.files)
    .map(([file, { mutants }]) => {
      const c: FileCounts = {
        file: fileName(report, file),
        mutants: mutants.length,
        killed: 0,
        timeout: 0,
        survived: 0,
        noCoverage: 0,
        compileErrors: 0,
        runtimeErrors: 0,
        ignored: 0,
      };
      for (const m of mutants) {
        const key = COUNTED[m.status];
        if (key) c[key]++;
      }
      return c;
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Stryker's mutation score: detected (killed, timed out) over detected and undetected (survived, no coverage); null with none. */
export function scoreOf(c: Omit<FileCounts, "file">): number | null {
  const detected = c.killed + c.timeout;
  const valid = detected + c.survived + c.noCoverage;
  return valid === 0 ? null : (100 * detected) / valid;
}

/** The score as Stryker prints it (two decimals), or why there is none. */
export function scoreText(c: Omit<FileCounts, "file">): string {
  const s = scoreOf(c);
  if (s !== null) return `${s.toFixed(2)} %`;
  return c.mutants === 0 ? "no mutants" : "n/a (none scored)";
}

/** The counts of several files together (the total row). */
export function totalOf(rows: FileCounts[]): FileCounts {
  const sum = (k: keyof Omit<FileCounts, "file">) => rows.reduce((n, r) => n + r[k], 0);
  return {
    file: "all",
    mutants: sum("mutants"),
    killed: sum("killed"),
    timeout: sum("timeout"),
    survived: sum("survived"),
    noCoverage: sum("noCoverage"),
    compileErrors: sum("compileErrors"),
    runtimeErrors: sum("runtimeErrors"),
    ignored: sum("ignored"),
  };
}

/** The markdown table: one row per file, and a total row when there are several. Runtime errors and ignored only when any. */
export function markdownTable(rows: FileCounts[]): string {
  const extra = (["runtimeErrors", "ignored"] as const).filter((k) => rows.some((r) => r[k] > 0));
  const titles = ["File", "Mutants", "Killed", "Timed out", "Survived", "No coverage", "Compile errors"];
  const head = [...titles, ...extra.map((k) => (k === "ignored" ? "Ignored" : "Runtime errors")), "Score"];
  const line = (r: FileCounts, name: string) =>
    `| ${[name, r.mutants, r.killed, r.timeout, r.survived, r.noCoverage, r.compileErrors, ...extra.map((k) => r[k]), scoreText(r)].join(" | ")} |`;
  const body = rows.map((r) => line(r, `\`${r.file}\``));
  if (rows.length > 1) body.push(line(totalOf(rows), "all"));
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...body].join("\n");
}

/** The mutants no test noticed (survived, not covered), one line each: file:line:column, status, mutator, replacement. */
export function survivorLines(report: MutationReport): string[] {
  return Object.entries(report.files)
    .flatMap(([file, { mutants }]) =>
      mutants.filter((m) => m.status === "Survived" || m.status === "NoCoverage").map((m) => ({ file: fileName(report, file), m })),
    )
    .sort((a, b) => (a.file === b.file ? a.m.location.start.line - b.m.location.start.line : a.file < b.file ? -1 : 1))
    .map(({ file, m }) => {
      const at = `${file}:${m.location.start.line}:${m.location.start.column}`;
      const replacement = (m.replacement ?? "").replace(/\s+/g, " ").slice(0, 120);
      return `${at} ${m.status} ${m.mutatorName}${replacement ? ` → ${replacement}` : ""}`;
    });
}

/** Several reports as one: a file measured in more than one keeps the later report's figures (`replaced` names it). */
export function mergeReports(reports: MutationReport[]): { rows: FileCounts[]; replaced: string[] } {
  const byFile = new Map<string, FileCounts>();
  const replaced: string[] = [];
  for (const report of reports)
    for (const row of countsOf(report)) {
      if (byFile.has(row.file)) replaced.push(row.file);
      byFile.set(row.file, row);
    }
  const rows = [...byFile.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { rows, replaced };
}
