// Jest's node environment for mutation runs only (stryker.config.mjs): the dry run records each file's tests and times; a mutant run stops at its first failing test.
"use strict";

const { TestEnvironment } = require("jest-environment-node");
const { ACTIVE_MUTANT, KILLED, writeFileRecord } = require("./record");

function fullName(test) {
  const names = [test.name];
  for (let block = test.parent; block && block.parent; block = block.parent) names.unshift(block.name);
  return names.join(" ");
}

function skipAll(block) {
  for (const child of block.children) {
    if (child.type === "describeBlock") skipAll(child);
    else child.mode = "skip";
  }
}

class MutationEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.rootDir = config.projectConfig.rootDir;
    this.testPath = context.testPath;
    this.startedAt = Date.now();
    /** @type {Record<string, number>} */
    this.tests = {};
    // Environment variables for mutation runs only (jest.config.testEnvironmentOptions.mutation.env in stryker.config.mjs),
    // e.g. fewer simulation seeds; one set by hand (SIM_SEEDS=1000 npm run mutate) wins. The test's process.env is its own copy.
    const env = config.projectConfig.testEnvironmentOptions?.mutation?.env ?? {};
    for (const [name, value] of Object.entries(env)) this.global.process.env[name] ??= String(value);
  }

  async handleTestEvent(event) {
    const mutant = process.env[ACTIVE_MUTANT];
    if (mutant === undefined) {
      // The dry run: every test runs once; note its name and time for the mutant runs (see sequencer.js).
      if (event.name === "test_done") this.tests[fullName(event.test)] = event.test.duration ?? 0;
      return;
    }
    // A mutant run: one failing test kills the mutant, so the tests after it (and their beforeAll) need not run.
    // Jest's own bail is not available to Stryker (it runs jest in-process), hence this.
    if (process[KILLED] === mutant) {
      if (event.name === "run_describe_start" && !event.describeBlock.parent) skipAll(event.describeBlock);
      if (event.name === "test_start") event.test.mode = "skip";
    }
    if (event.name === "test_done" && event.test.errors.length > 0) process[KILLED] = mutant;
  }

  async teardown() {
    await super.teardown();
    if (process.env.MUTATION_DEBUG)
      require("node:fs").appendFileSync(
        process.env.MUTATION_DEBUG,
        `${process.pid} ${process.env[ACTIVE_MUTANT]} ${this.testPath.split("/test/")[1]} ${Date.now() - this.startedAt}ms\n`,
      );
    if (process.env[ACTIVE_MUTANT] !== undefined) return;
    const inTests = Object.values(this.tests).reduce((sum, ms) => sum + ms, 0);
    writeFileRecord(this.rootDir, this.testPath, { tests: this.tests, setupMs: Math.max(0, Date.now() - this.startedAt - inTests) });
  }
}

module.exports = MutationEnvironment;
