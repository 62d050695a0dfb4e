// The smoke run's checks: every observation as the add-in posts it passes, each wrong or missing one fails its line, and the table says so.
import { judgeSmoke, smokeTable } from "./checks";
import type { SmokeObservation } from "../../src/taskpane/smoke-script";

const GOOD: SmokeObservation[] = [
  { Name: "UserAgent", Value: "Mozilla/5.0" },
  { Name: "VERSION", Value: "1.2.3" },
  { Name: "CONNECT", Value: { connected: true, environment: "SANDBOX" } },
  { Name: "PRICE", Value: 1520.5 },
  { Name: "QUOTE", Value: 1521.1 },
  { Name: "OPEN", Value: { status: "filled", rows: 1 } },
  { Name: "LOG", Value: { status: "filled", hedgeId: true, struckRate: 1521, filledAt: "2026-11-26T10:00:00.000Z" } },
  {
    Name: "POSITIONS",
    Value: [
      ["Market", "Side", "Size (USD)"],
      ["USDTNGN", "buy", 100000],
    ],
  },
  { Name: "SNAPSHOT", Value: { replaced: 4, skipped: 0, cells: 12, hedgeFormulasLeft: 0 } },
];

test("the observations of a good run pass all eight checks", () => {
  const checks = judgeSmoke(GOOD, "1.2.3");
  expect(checks.map((c) => [c.step, c.ok])).toEqual(
    ["VERSION", "CONNECT", "PRICE", "QUOTE", "OPEN", "LOG", "POSITIONS", "SNAPSHOT"].map((s) => [s, true]),
  );
  expect(smokeTable(checks, "Excel")).toMatch(/8 of 8 passed$/);
});

test.each([
  ["VERSION", "1.2.2"],
  ["CONNECT", { error: "Waited 60 s for the pane to connect" }],
  ["PRICE", "#N/A"],
  ["QUOTE", 0],
  ["OPEN", { status: "failed", rows: 1 }],
  ["LOG", { status: "submitted", hedgeId: true, struckRate: null, filledAt: null }],
  ["POSITIONS", [["Market", "Side", "Size (USD)"]]],
  ["SNAPSHOT", { replaced: 3, skipped: 1, cells: 9, hedgeFormulasLeft: 1 }],
])("a wrong %s fails its line only", (step, value) => {
  const checks = judgeSmoke(
    GOOD.map((o) => (o.Name === step ? { ...o, Value: value } : o)),
    "1.2.3",
  );
  expect(checks.filter((c) => !c.ok).map((c) => c.step)).toEqual([step]);
  expect(smokeTable(checks, "Excel")).toContain(`FAIL  ${step}`);
});

test("a step the add-in never posted fails with (nothing posted)", () => {
  const checks = judgeSmoke(GOOD.slice(0, 6), "1.2.3");
  expect(checks.filter((c) => !c.ok).map((c) => [c.step, c.seen])).toEqual([
    ["LOG", "(nothing posted)"],
    ["POSITIONS", "(nothing posted)"],
    ["SNAPSHOT", "(nothing posted)"],
  ]);
});
