// StrykerJS configuration: mutation testing of the money code (npm run mutate; not part of npm test).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "jest",
  jest: {
    projectType: "custom",
    configFile: "jest.config.js",
    // Only the tests that import the mutated file are run for it.
    enableFindRelatedTests: true,
    // End-to-end (browser) and benchmark suites are left out: too slow per mutant, and covered by the unit and sandbox tests.
    config: { testPathIgnorePatterns: ["/node_modules/", "/test/e2e/", "/test/bench/"] },
  },
  // Per-test coverage: each mutant runs only the tests that reach it, and stops at the first that kills it.
  coverageAnalysis: "perTest",
  // Mutants that do not type-check are dropped rather than counted.
  checkers: ["typescript"],
  tsconfigFile: "tsconfig.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: [
    "src/api/sender.ts",
    "src/trading/intent.ts",
    "src/trading/journal.ts",
    "src/trading/fills.ts",
    "src/trading/rows.ts",
    "src/trading/duplicates.ts",
    "src/monthend/exact-sum.ts",
    "src/sandbox/idempotency.ts",
  ],
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ["clear-text", "progress", "html", "json"],
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  ignorePatterns: ["dist", "coverage", "test/artifacts", "reports", ".stryker-tmp"],
};
