// Jest configuration: TypeScript tests under test/, run with ts-jest (type-checked).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: { module: "commonjs", moduleResolution: "node" } }],
  },
  // office-addin-mock imports office-addin-manifest, whose ESM-only dependencies jest 30 cannot load; the mock never needs it.
  moduleNameMapper: {
    "^office-addin-manifest$": "<rootDir>/test/support/office-addin-manifest-stub.js",
  },
  testTimeout: 30000,
};
