// The page's dependency audit: high or critical advisories fail CI, lower ones pass with a summary, and a registry that cannot answer is reported without failing.
import { judgeAudit } from "../../src/devtools/audit";

const report = (counts: Record<string, number>, vulnerabilities: Record<string, { severity: string }> = {}) =>
  JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities,
    metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts } },
  });

test("no findings: clean", () => {
  expect(judgeAudit(report({}))).toEqual({ status: "clean", summary: "no known vulnerabilities" });
});

test("moderate findings only: clean, and said", () => {
  expect(judgeAudit(report({ moderate: 2 }))).toEqual({ status: "clean", summary: "2 moderate (none high or critical)" });
});

test("a high finding fails, naming the package", () => {
  const verdict = judgeAudit(report({ high: 1, low: 1 }, { zod: { severity: "high" }, tslib: { severity: "low" } }));
  expect(verdict).toEqual({ status: "vulnerable", summary: "1 low, 1 high; high or critical in: zod" });
});

test("the registry cannot answer (this machine's answers 405): reported, not failed", () => {
  const registryError = JSON.stringify({
    message: "405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
    statusCode: 405,
    error: { summary: "", detail: "" },
  });
  expect(judgeAudit(registryError)).toEqual({ status: "unavailable", summary: expect.stringContaining("405 Method Not Allowed") });
  expect(judgeAudit("")).toMatchObject({ status: "unavailable" });
  expect(judgeAudit(JSON.stringify({ error: { code: "ENOTFOUND", summary: "getaddrinfo ENOTFOUND registry.npmjs.org" } }))).toMatchObject({
    status: "unavailable",
    summary: expect.stringContaining("ENOTFOUND"),
  });
});
