// StrykerJS configuration: mutation testing of the money code (npm run mutate; one module: npm run mutate -- --mutate src/api/sender.ts; not part of npm test).
import os from "node:os";
import process from "node:process";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "jest",
  jest: {
    projectType: "custom",
    configFile: "jest.config.js",
    // Only the test files that import the mutated file are considered for it.
    enableFindRelatedTests: true,
    config: {
      // End-to-end (browser) and benchmark suites are left out: too slow per mutant, and covered by the unit and sandbox tests.
      testPathIgnorePatterns: ["/node_modules/", "/test/e2e/", "/test/bench/"],
      // MUTATION_SUITES="test/api/redact.test.ts,test/monthend/*.test.ts": only those suites judge the run (a module whose
      // own suites judge it, where every suite importing it would otherwise be "related"; the score is then a lower bound).
      ...(process.env.MUTATION_SUITES ? { testMatch: process.env.MUTATION_SUITES.split(",").map((g) => `<rootDir>/${g.trim()}`) } : {}),
      // Of those, a mutant runs only the files holding a test that reached it in the dry run, cheapest first, and stops at
      // its first failing test (jest's own bail is not available to Stryker). See test/support/mutation/.
      testSequencer: "./test/support/mutation/sequencer.js",
      testEnvironment: "./test/support/mutation/environment.js",
      // Once a mutant is killed, the files after it are reported skipped without being loaded.
      runner: "./test/support/mutation/runner.js",
      testEnvironmentOptions: {
        mutation: {
          // The trading suites (the chaos and simulation runs take minutes) judge the trading code: they run only when a
          // src/trading module is mutated. The sender, the sandbox and the month-end sums are judged by their own tests.
          onlyFor: [{ suites: "^test/trading/", modules: "^src/trading/" }],
          // The simulation runs 100 seeded worlds per mutant instead of npm test's 1,000 (test/trading/simulation.test.ts):
          // every desk and verdict mutant it kills at 1,000 seeds it kills within the first 100 (see test/README.md).
          env: { SIM_SEEDS: 100 },
        },
      },
    },
  },
  // Per-test coverage: each mutant runs only the tests that reach it.
  coverageAnalysis: "perTest",
  // Mutants that do not type-check are dropped rather than counted.
  checkers: ["typescript"],
  // The checker compiles the mutated modules' folders only (not the tests): per batch of mutants that is what limits a run.
  tsconfigFile: "test/support/mutation/tsconfig.check.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [
    "src/api/sender.ts",
    "src/api/throttle.ts",
    "src/trading/intent.ts",
    "src/trading/journal.ts",
    "src/trading/journal-merge.ts",
    "src/trading/write-behind.ts",
    "src/trading/log/chain-writer.ts",
    "src/trading/fills.ts",
    "src/trading/rows.ts",
    "src/trading/duplicates.ts",
    "src/trading/verdict.ts",
    "src/trading/preview.ts",
    "src/trading/preview-rolls.ts",
    "src/trading/desk/*.ts",
    "src/trading/approvals/block.ts",
    "src/trading/approvals/block-read.ts",
    "src/trading/approvals/decision.ts",
    "src/trading/approvals/judgment.ts",
    "src/trading/approvals/record.ts",
    "src/trading/approvals/batch-hash.ts",
    "src/trading/approvals/approval-desk.ts",
    "src/trading/intent-store.ts",
    "src/trading/log/log-chain.ts",
    "src/monthend/exact-sum.ts",
    "src/monthend/side-time.ts",
    "src/monthend/log-vs-service.ts",
    "src/monthend/log-chain-check.ts",
    "src/api/time.ts",
    "src/api/redact.ts",
    "src/sandbox/idempotency.ts",
    "src/policy/*.ts",
  ],
  // Three test processes a core: a surviving mutant of the trading code runs the sandbox and chaos suites, which mostly
  // wait on real time (a 60 s chaos run uses a few seconds of CPU). On 2 cores, 6 ran the desk's 1,087 mutants in about
  // 40 minutes where 2 took over 2 hours for 964, and every timeout was Stryker's infinite-loop guard, none the load's.
  concurrency: os.availableParallelism() * 3,
  timeoutMS: 20000,
  reporters: ["clear-text", "progress", "html", "json"],
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // MUTATION_REPORT=reports/mutation/redact: a run's own report folder, so that runs one after another keep theirs.
  htmlReporter: { fileName: `${process.env.MUTATION_REPORT ?? "reports/mutation"}/index.html` },
  jsonReporter: { fileName: `${process.env.MUTATION_REPORT ?? "reports/mutation"}/mutation.json` },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  ignorePatterns: ["dist", "coverage", "test/artifacts", "reports", ".stryker-tmp"],
};
