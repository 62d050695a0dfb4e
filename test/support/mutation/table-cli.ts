// `npx tsx test/support/mutation/table-cli.ts [--survivors] <report dir or mutation.json>...`: the per-file markdown rows of test/README.md's mutation tables.
import fs from "node:fs";
import path from "node:path";
import { markdownTable, mergeReports, survivorLines, type MutationReport } from "./table";

function read(arg: string): MutationReport {
  const file = fs.statSync(arg).isDirectory() ? path.join(arg, "mutation.json") : arg;
  return JSON.parse(fs.readFileSync(file, "utf8")) as MutationReport;
}

const args = process.argv.slice(2);
const survivors = args.includes("--survivors");
const paths = args.filter((a) => a !== "--survivors");
if (paths.length === 0) {
  console.error("usage: npx tsx test/support/mutation/table-cli.ts [--survivors] <report dir or mutation.json>...");
  process.exitCode = 2;
} else {
  const reports = paths.map(read);
  const { rows, replaced } = mergeReports(reports);
  for (const file of replaced) console.error(`${file}: in more than one report; the later one's figures are shown`);
  console.log(markdownTable(rows));
  if (survivors) {
    console.log("");
    for (const report of reports) for (const line of survivorLines(report)) console.log(line);
  }
}
