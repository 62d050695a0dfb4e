// What the smoke run's test server asserts of each observation the add-in posted, and the table it prints: one line per check, in the order.
import type { SmokeObservation } from "../../src/taskpane/smoke-script";

export interface SmokeCheck {
  step: string;
  /** What the line proves, for the IT team reading the table (test/README.md explains each). */
  what: string;
  ok: boolean;
  seen: string;
}

type Judge = (value: unknown) => boolean;
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const obj = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/** The eight checks of issue 33, by the observation's name. */
export function smokeChecks(version: string): Array<{ step: string; what: string; judge: Judge }> {
  return [
    { step: "VERSION", what: "=HEDGE.VERSION() shows the version being rolled out", judge: (v) => v === version },
    {
      step: "CONNECT",
      what: "the pane connects to the sandbox with the demo key",
      judge: (v) => obj(v).connected === true && /SANDBOX/i.test(String(obj(v).environment)),
    },
    { step: "PRICE", what: '=HEDGE.PRICE("USDTNGN") streams a rate', judge: (v) => num(v) && v > 0 },
    { step: "QUOTE", what: '=HEDGE.QUOTE(…, "pricing.execution_price") gives the field', judge: (v) => num(v) && v > 0 },
    { step: "OPEN", what: "one Open sent from the selected row, filled", judge: (v) => obj(v).status === "filled" && obj(v).rows === 1 },
    {
      step: "LOG",
      what: "its Hedge Log row filled (hedge id, struck rate, fill time)",
      judge: (v) => obj(v).status === "filled" && obj(v).hedgeId === true && num(obj(v).struckRate) && typeof obj(v).filledAt === "string",
    },
    {
      step: "POSITIONS",
      what: "=HEDGE.POSITIONS() spills the open hedge",
      judge: (v) => Array.isArray(v) && v.length >= 2 && v.some((r) => Array.isArray(r) && r.includes("USDTNGN")),
    },
    {
      step: "SNAPSHOT",
      what: "Snapshot to values replaces the four HEDGE.* formulas",
      judge: (v) => obj(v).replaced === 4 && obj(v).skipped === 0 && obj(v).hedgeFormulasLeft === 0,
    },
  ];
}

const shortly = (v: unknown) => {
  const text = JSON.stringify(v) ?? "(nothing posted)";
  return text.length > 70 ? `${text.slice(0, 67)}…` : text;
};

/** Each check against what the add-in posted; a step it never posted fails with "(nothing posted)". */
export function judgeSmoke(observations: readonly SmokeObservation[], version: string): SmokeCheck[] {
  const byName = new Map(observations.map((o) => [o.Name, o.Value]));
  return smokeChecks(version).map(({ step, what, judge }) => {
    const value = byName.get(step);
    return { step, what, ok: byName.has(step) && judge(value), seen: byName.has(step) ? shortly(value) : "(nothing posted)" };
  });
}

/** The table printed at the end: PASS/FAIL, the step, what it proves, what the add-in saw. */
export function smokeTable(checks: readonly SmokeCheck[], where: string): string {
  const w = Math.max(...checks.map((c) => c.step.length));
  const lines = checks.map((c) => `${c.ok ? "PASS" : "FAIL"}  ${c.step.padEnd(w)}  ${c.what}\n      ${" ".repeat(w)}  seen: ${c.seen}`);
  const passed = checks.filter((c) => c.ok).length;
  return [`Hedge for Excel smoke test in ${where}`, ...lines, `${passed} of ${checks.length} passed`].join("\n");
}
