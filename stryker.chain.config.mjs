// StrykerJS for the log's hash chain alone (src/trading/log/): the project's configuration with the chain's own suites and a checker of src/trading/log only (npx stryker run stryker.chain.config.mjs --mutate src/trading/log/log-chain.ts --concurrency 2).
import base from "./stryker.config.mjs";

export default {
  ...base,
  tsconfigFile: "test/support/mutation/tsconfig.chain.json",
  jest: {
    ...base.jest,
    // Every suite that imports the journal reaches the chain (the desk's, the chaos and simulation runs): the chain's own
    // suites judge it, so a dry run takes a minute, not the whole trading room's.
    config: {
      ...base.jest.config,
      testMatch: ["<rootDir>/test/trading/log/**/*.test.ts", "<rootDir>/test/monthend/log-chain-tamper.test.ts"],
    },
  },
};
