// ESLint flat config: @eslint/js and typescript-eslint recommended rules, plus the layer rules (which src/ folder may import which, and where Office.js may be used).
const { defineConfig, globalIgnores } = require("eslint/config");
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");

// Globals of the CommonJS config files run by Node (webpack, jest, eslint configs and test stubs).
const nodeGlobals = Object.fromEntries(
  ["require", "module", "exports", "__dirname", "__filename", "process", "console", "Buffer", "URL", "setTimeout", "clearTimeout"].map(
    (name) => [name, "readonly"],
  ),
);

/**
 * The layers: each src/ folder and the other src/ folders it may import (src/README.md draws the same arrows).
 * Plain-TS logic (api, feeds, trading, monthend) never imports what Excel loads or the adapters; src/excel implements
 * the ports its consumers declare (trading/workbook.ts, trading/sheet-content.ts, feeds/settings-store.ts).
 */
const LAYERS = {
  api: [],
  feeds: ["api"],
  trading: ["api"],
  policy: ["api", "trading"],
  monthend: ["api", "trading", "policy"],
  excel: ["api", "feeds", "trading", "monthend"],
  functions: ["api", "feeds", "monthend", "policy"],
  commands: [],
  taskpane: ["api", "feeds", "trading", "monthend", "excel", "policy"],
  sandbox: ["api", "devtools"],
  devtools: [],
};

/** The folders whose code runs in the page: they use zod's small build (src/sandbox, a Node program, may use the full one). */
const PAGE_FOLDERS = ["api", "feeds", "trading", "policy", "monthend", "excel", "functions", "taskpane", "commands"];
const FULL_ZOD = {
  regex: "^zod$",
  message: 'The page loads zod\'s small build: import * as z from "zod/mini" (README "Packages in the page").',
};

/**
 * Office.js globals: only src/excel (the adapters) and the four entry files Excel loads may touch them (the pane's
 * entry runs its start, pane-start.ts, once the first answers are in: the same entry's code, evaluated later).
 */
const OFFICE_GLOBALS = ["Office", "Excel", "OfficeRuntime", "CustomFunctions"];
const OFFICE_ENTRY_FILES = [
  "src/taskpane/taskpane.ts",
  "src/taskpane/pane-start.ts",
  "src/commands/commands.ts",
  "src/functions/functions.ts",
  "src/functions/engine.ts",
];

/**
 * The rooms inside src/trading (README "Folders and the allowed arrows"): its own files are execution's shared part
 * (rows, intents, the journal, fills, verdicts, the workbook port); desk/ runs rows; log/ is the Hedge Log's schema and
 * hash chain; approvals/ is four-eyes approval. Each room's extra refusals, as import paths seen from its files.
 */
const TRADING_ROOMS = {
  // Execution's shared files never reach into the desk, the approvals or past the log's public files.
  "src/trading/*.ts": [
    {
      regex: "^\\./(?:desk|approvals)/",
      message: "src/trading's own files may import log/ only: desk/ and approvals/ build on them, not the reverse.",
    },
  ],
  // The log's schema and chain stand alone: of trading they use only the cell values.
  "src/trading/log/*.ts": [
    {
      regex: "^\\.\\./(?!cells$|\\.\\./)",
      message:
        "src/trading/log may import only ../cells of trading (and src/api): the Hedge Log's schema and chain know nothing of execution.",
    },
  ],
  "src/trading/desk/*.ts": [
    {
      regex: "^\\.\\./approvals/",
      message: "src/trading/desk may not import approvals/: the approvals workflow calls the desk, not the reverse.",
    },
  ],
  // Approvals send through the desk's facade only.
  "src/trading/approvals/*.ts": [
    {
      regex: "^\\.\\./desk(?!/contract$)(?:/|$)",
      message: "src/trading/approvals may import only desk/contract of the desk (the TradingDesk facade).",
    },
  ],
};

// A layer's files sit in src/<folder>/ or one folder below (src/trading/desk/): there "../" is the layer itself and
// "../../x/" another folder. ESLint keeps the last options given for a rule, so a room's rule repeats its layer's pattern.
const layerRules = Object.entries(LAYERS).flatMap(([folder, allowed]) => [
  layerRule(folder, allowed, `src/${folder}/**/*.ts`, "\\.\\./"),
  layerRule(folder, allowed, `src/${folder}/*/*.ts`, "\\.\\./\\.\\./"),
]);
const roomRules = Object.entries(TRADING_ROOMS).map(([files, patterns]) => {
  const up = files.split("/").length === 3 ? "\\.\\./" : "\\.\\./\\.\\./";
  return layerRule("trading", LAYERS.trading, files, up, patterns);
});

function layerRule(folder, allowed, files, up, extra = []) {
  // "../x/…" where x is not an allowed folder; functions.ts also reads ../../package.json (the version).
  const allowedFolders = allowed.length > 0 ? `(?:${allowed.join("|")})/` : "(?!)";
  return {
    files: [files],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^${up}(?!${allowedFolders})(?!\\.\\./package\\.json$)`,
              message: `src/${folder} may import only ${allowed.length > 0 ? allowed.map((f) => `src/${f}`).join(", ") : "its own files"} (layers in eslint.config.js).`,
            },
            ...(PAGE_FOLDERS.includes(folder) ? [FULL_ZOD] : []),
            ...extra,
          ],
        },
      ],
    },
  };
}

/** Declarations named `window` (variables, parameters, destructured names): they shadow the page's global. */
const WINDOW_SHADOWS = [
  "VariableDeclarator > Identifier.id[name='window']",
  ":function > Identifier.params[name='window']",
  ":function > AssignmentPattern.params > Identifier.left[name='window']",
  "ObjectPattern > Property > Identifier.value[name='window']",
  "ObjectPattern > Property > AssignmentPattern.value > Identifier.left[name='window']",
  "CatchClause > Identifier.param[name='window']",
].map((selector) => ({
  selector,
  message: "A name `window` shadows the browser's global window: name it for what it holds (e.g. `month` for a MonthWindow).",
}));

module.exports = defineConfig(
  globalIgnores(["dist/", "dist-sourcemaps/", "node_modules/", "coverage/", "test/artifacts/", "reports/", ".stryker-tmp*/"]),
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
  ...layerRules,
  ...roomRules,
  {
    files: ["src/**/*.ts"],
    rules: { "no-restricted-syntax": ["error", ...WINDOW_SHADOWS] },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/excel/**", ...OFFICE_ENTRY_FILES],
    rules: {
      "no-restricted-globals": [
        "error",
        ...OFFICE_GLOBALS.map((name) => ({
          name,
          message: `${name} (Office.js) is used only in src/excel and the entry files ${OFFICE_ENTRY_FILES.join(", ")}: put it behind an adapter.`,
        })),
      ],
    },
  },
);
