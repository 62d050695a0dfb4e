// StrykerJS for src/policy alone: the project's configuration with a TypeScript checker that compiles only src/policy and what it imports (npx stryker run stryker.policy.config.mjs --mutate src/policy/target.ts --concurrency 2).
import base from "./stryker.config.mjs";

export default { ...base, tsconfigFile: "test/support/mutation/tsconfig.policy.json" };
