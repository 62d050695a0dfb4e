// ESLint flat config: @eslint/js and typescript-eslint recommended rules for the whole repository (types are checked by tsc).
const { defineConfig, globalIgnores } = require("eslint/config");
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");

// Globals of the CommonJS config files run by Node (webpack, jest, eslint configs and test stubs).
const nodeGlobals = Object.fromEntries(
  ["require", "module", "exports", "__dirname", "__filename", "process", "console", "Buffer", "URL", "setTimeout", "clearTimeout"].map((name) => [name, "readonly"]),
);

module.exports = defineConfig(
  globalIgnores(["dist/", "node_modules/", "coverage/", "test/artifacts/"]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: nodeGlobals },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    rules: {
      // Unused names are errors unless they start with "_" (a deliberate placeholder).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
    },
  },
);
