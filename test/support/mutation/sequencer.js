// Jest's test order for mutation runs only (stryker.config.mjs): only the files with a test that reaches the mutant, cheapest first, and the slow suites only for the modules they are meant for.
"use strict";

const path = require("node:path");
const Sequencer = require("@jest/test-sequencer").default;
const { ACTIVE_MUTANT, readRecord } = require("./record");

/**
 * @typedef {{ suites: string, modules: string }} OnlyFor
 * Test files matching `suites` (a regular expression over the path from the project root) run only when a mutated file
 * matches `modules`: given in stryker.config.mjs as jest.config.testEnvironmentOptions.mutation.onlyFor.
 */

const relative = (rootDir, file) => path.relative(rootDir, file).split(path.sep).join("/");

class MutationSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.globalConfig = options.globalConfig;
  }

  sort(tests) {
    if (tests.length === 0) return tests;
    const { rootDir, testEnvironmentOptions } = tests[0].context.config;
    /** @type {OnlyFor[]} */
    const onlyFor = testEnvironmentOptions?.mutation?.onlyFor ?? [];
    // The files under test: the mutated ones (Stryker asks jest for the tests related to them).
    const mutated = (this.globalConfig.nonFlagArgs ?? []).map((file) => relative(rootDir, path.resolve(rootDir, file)));
    const meantFor = (test) => {
      const suite = relative(rootDir, test.path);
      return onlyFor.every((rule) => !new RegExp(rule.suites).test(suite) || mutated.some((m) => new RegExp(rule.modules).test(m)));
    };
    let kept = tests.filter(meantFor);

    // A mutant run names the tests that reached the mutant in the dry run (testNamePattern); a file with none of them
    // would only be loaded for nothing. Its estimated cost: its set-up time plus the times of those tests.
    const record = process.env[ACTIVE_MUTANT] === undefined ? {} : readRecord(rootDir);
    const pattern = this.globalConfig.testNamePattern ? new RegExp(this.globalConfig.testNamePattern, "i") : null;
    const cost = new Map();
    kept = kept.filter((test) => {
      const seen = record[test.path];
      if (!seen) return true; // never seen in the dry run: keep it, at the end
      const reaching = Object.entries(seen.tests).filter(([name]) => !pattern || pattern.test(name));
      cost.set(test, seen.setupMs + reaching.reduce((sum, [, ms]) => sum + ms, 0));
      return reaching.length > 0;
    });
    // Cheapest first: the mutant run stops at the first failing test (environment.js).
    return kept.sort((a, b) => (cost.get(a) ?? Infinity) - (cost.get(b) ?? Infinity) || a.path.localeCompare(b.path));
  }
}

module.exports = MutationSequencer;
