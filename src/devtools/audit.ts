// `npm run audit:page` (and .ci/run): `npm audit --omit=dev --audit-level=high` over the packages that end up in the page; fails on high or critical advisories, reports (and passes) when the registry cannot answer.
import { spawnSync } from "node:child_process";

export type AuditVerdict =
  { status: "clean"; summary: string } | { status: "vulnerable"; summary: string } | { status: "unavailable"; summary: string };

const SEVERITIES = ["info", "low", "moderate", "high", "critical"] as const;

/** Judges `npm audit --json` output: high or critical findings fail; an answer without findings (a registry error) is "unavailable". */
export function judgeAudit(stdout: string): AuditVerdict {
  let report: {
    metadata?: { vulnerabilities?: Partial<Record<(typeof SEVERITIES)[number] | "total", number>>; dependencies?: unknown };
    vulnerabilities?: Record<string, { severity?: string }>;
    message?: string;
    error?: { summary?: string; code?: string } | string;
  };
  try {
    report = JSON.parse(stdout);
  } catch {
    return { status: "unavailable", summary: `npm audit gave no report (${stdout.trim().slice(0, 160) || "no output"})` };
  }
  const counts = report.metadata?.vulnerabilities;
  if (!counts) {
    const why =
      report.message ?? (typeof report.error === "string" ? report.error : (report.error?.summary ?? report.error?.code)) ?? "no report";
    return { status: "unavailable", summary: `the registry did not answer the audit: ${why}` };
  }
  const found = SEVERITIES.filter((s) => (counts[s] ?? 0) > 0).map((s) => `${counts[s]} ${s}`);
  const serious = (counts.high ?? 0) + (counts.critical ?? 0);
  const names = Object.entries(report.vulnerabilities ?? {})
    .filter(([, v]) => v.severity === "high" || v.severity === "critical")
    .map(([name]) => name);
  if (serious > 0)
    return { status: "vulnerable", summary: `${found.join(", ")}; high or critical in: ${names.join(", ") || "(see npm audit)"}` };
  return { status: "clean", summary: found.length > 0 ? `${found.join(", ")} (none high or critical)` : "no known vulnerabilities" };
}

function main(): number {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const run = spawnSync(npm, ["audit", "--omit=dev", "--audit-level=high", "--json"], { encoding: "utf8", timeout: 120_000 });
  const verdict = judgeAudit(run.stdout ?? "");
  if (verdict.status === "unavailable") {
    console.warn(
      `⚠ npm audit (packages in the page) not checked: ${verdict.summary}. Run npm run audit:page where the registry answers audits.`,
    );
    return 0;
  }
  if (verdict.status === "vulnerable") {
    console.error(`✖ npm audit (packages in the page): ${verdict.summary}. Run npm audit --omit=dev for the advice.`);
    return 1;
  }
  console.log(`✔ npm audit (packages in the page): ${verdict.summary}`);
  return 0;
}

if (require.main === module) process.exitCode = main();
