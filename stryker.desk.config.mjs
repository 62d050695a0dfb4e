// StrykerJS for the trading room's execution code without its long runs: the project's configuration with the unit, sandbox and approval suites of test/trading and the suites around them, not the chaos, simulation or scale runs (a score from it is a lower bound; npx stryker run stryker.desk.config.mjs --mutate src/trading/desk/admission.ts --concurrency 3).
import base from "./stryker.config.mjs";

export default {
  ...base,
  // The dry run of every related suite takes minutes on two cores: Stryker's 5-minute default stopped it before.
  dryRunTimeoutMinutes: 40,
  jest: {
    ...base.jest,
    config: {
      ...base.jest.config,
      testMatch: [
        "<rootDir>/test/trading/**/*.test.ts",
        "<rootDir>/test/api/errors.test.ts",
        "<rootDir>/test/api/client.test.ts",
        "<rootDir>/test/monthend/log-chain-tamper.test.ts",
        "<rootDir>/test/excel/intent-store.test.ts",
      ],
      testPathIgnorePatterns: [
        ...base.jest.config.testPathIgnorePatterns,
        "/test/trading/chaos",
        "/test/trading/simulation",
        "/test/trading/scale",
      ],
    },
  },
};
