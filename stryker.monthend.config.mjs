// StrykerJS for src/monthend alone: the project's configuration with a TypeScript checker that compiles only src/monthend and what it imports (MUTATION_SUITES="test/monthend/month-data.test.ts" npx stryker run stryker.monthend.config.mjs --mutate src/monthend/month-data.ts --concurrency 2).
import base from "./stryker.config.mjs";

export default { ...base, tsconfigFile: "test/support/mutation/tsconfig.monthend.json" };
