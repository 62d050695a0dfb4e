// Jest's test runner for mutation runs only (stryker.config.mjs): once a mutant is killed, the test files after it are not even loaded (loading one costs seconds).
"use strict";

const TestRunner = require("jest-runner").default;
const { createEmptyTestResult } = require("@jest/test-result");
const { ACTIVE_MUTANT, KILLED } = require("./record");

/**
 * Jest's own runner, file after file (Stryker runs jest in band). In a mutant run, a file that comes after the mutant's
 * first failing test (environment.js marks it) is reported skipped without being loaded: its tests would all be skipped
 * anyway, but loading it (its imports, its environment) is most of the cost of a killed mutant.
 */
class MutationRunner extends TestRunner {
  /** Listeners of this runner's events (jest's own runner keeps its emitter private; the skipped files are told here). */
  #listeners = new Map();

  on(eventName, listener) {
    const list = this.#listeners.get(eventName) ?? [];
    list.push(listener);
    this.#listeners.set(eventName, list);
    const off = super.on(eventName, listener);
    return () => {
      this.#listeners.set(
        eventName,
        (this.#listeners.get(eventName) ?? []).filter((l) => l !== listener),
      );
      off();
    };
  }

  async #emit(eventName, payload) {
    for (const listener of this.#listeners.get(eventName) ?? []) await listener(payload);
  }

  async runTests(tests, watcher, options) {
    const mutant = process.env[ACTIVE_MUTANT];
    if (mutant === undefined || !options.serial) return super.runTests(tests, watcher, options);
    for (const test of tests) {
      if (process[KILLED] !== mutant) {
        await super.runTests([test], watcher, options);
        continue;
      }
      await this.#emit("test-file-start", [test]);
      await this.#emit("test-file-success", [test, skippedFile(test.path)]);
    }
  }
}

/** A file's result when it was not run: one skipped entry (jest refuses a file result without any test in it). */
function skippedFile(testFilePath) {
  const title = "(not run: the mutant was already killed)";
  return {
    ...createEmptyTestResult(),
    skipped: true,
    testFilePath,
    numPendingTests: 1,
    testResults: [
      {
        ancestorTitles: [],
        duration: 0,
        failureDetails: [],
        failureMessages: [],
        fullName: title,
        invocations: 0,
        location: null,
        numPassingAsserts: 0,
        retryReasons: [],
        status: "pending",
        title,
      },
    ],
  };
}

module.exports = MutationRunner;
