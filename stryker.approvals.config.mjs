// StrykerJS for the approvals rules alone (src/trading/approvals/): the project's configuration with the approvals suites and a checker of src/trading/approvals only (npx stryker run stryker.approvals.config.mjs --mutate 'src/trading/approvals/*.ts' --concurrency 2).
import base from "./stryker.config.mjs";

export default {
  ...base,
  tsconfigFile: "test/support/mutation/tsconfig.approvals.json",
  // test/excel/wire/office-vm.ts reads Microsoft's Excel serializer at ../../../node_modules: in a git worktree whose
  // node_modules is a symlink Stryker does not link it into its sandbox (it looks for directories), so the build step does.
  buildCommand: "ln -sfn ../../node_modules node_modules",
  jest: {
    ...base.jest,
    // The memory workbook imports the approvals files, so every suite using it is "related": the approvals' own suites
    // (and the Office.js sheet's, the pane's view models') judge them.
    config: {
      ...base.jest.config,
      // MUTATION_SUITES (as in stryker.config.mjs) narrows a run to those suites (a new module judged by its own).
      testMatch: process.env.MUTATION_SUITES
        ? process.env.MUTATION_SUITES.split(",").map((g) => `<rootDir>/${g.trim()}`)
        : [
            "<rootDir>/test/trading/approvals/**/*.test.ts",
            "<rootDir>/test/excel/approvals-sheet.test.ts",
            "<rootDir>/test/taskpane/approvals-model.test.ts",
          ],
    },
  },
};
