// Bench: the largest context.sync of each scenario of issue 10 (a 50,000-row log, a 10,000-row batch and resume, a 10,000 × 20 selection, a 100,000-cell snapshot) and of issue 25's long text, measured with Microsoft's own Excel request serializer.
import { OfficeMeter } from "../excel/wire/office-vm";
import { ISSUE_SCALE, MiB, allScenarios, kib } from "../excel/wire/scenarios";

export async function run(): Promise<void> {
  console.log("Each context.sync as Office.js serializes it (excel-web debug script in a Node vm, answered by an in-memory host).");
  console.log("Goal: every sync at most 1 MiB each way (Excel on the web refuses 5 MB).\n");
  const started = performance.now();
  const results = await allScenarios(ISSUE_SCALE);
  const rows = results.map((r) => {
    const m = OfficeMeter.largest(r.syncs);
    return {
      scenario: `${r.scenario} / ${r.step}`,
      syncs: String(m.syncs),
      request: kib(m.request),
      response: kib(m.response),
      total: kib(m.total),
      refs: String(r.maxRefs),
      refused: String(r.syncs.filter((s) => s.refusedBytes > 0).length),
      ok: m.request <= MiB && m.response <= MiB ? "yes" : "NO",
    };
  });
  const head = {
    scenario: "scenario / step",
    syncs: "syncs",
    request: "largest request",
    response: "largest response",
    total: "all syncs",
    refs: "refs held",
    refused: "refused (> 5 MB)",
    ok: "≤ 1 MiB",
  };
  const all = [head, ...rows];
  const width = (k: keyof typeof head) => Math.max(...all.map((r) => r[k].length));
  for (const r of all) {
    console.log(
      `${r.scenario.padEnd(width("scenario"))}  ${r.syncs.padStart(width("syncs"))}  ${r.request.padStart(width("request"))}  ${r.response.padStart(width("response"))}  ${r.total.padStart(width("total"))}  ${r.refs.padStart(width("refs"))}  ${r.refused.padStart(width("refused"))}  ${r.ok}`,
    );
  }
  console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (rows.some((r) => r.ok !== "yes")) process.exitCode = 1;
}
