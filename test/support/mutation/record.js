// What the mutation runs share between Stryker's dry run and its mutant runs: each test file's tests, their times and its set-up time.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** Set by Stryker in a mutant run (the id of the active mutant); absent in its dry run. */
const ACTIVE_MUTANT = "__STRYKER_ACTIVE_MUTANT__";

/** The mutant whose run has already seen a failing test (a process-wide mark: every test file of one run shares it). */
const KILLED = Symbol.for("hedge-for-excel.mutation.killed");

/** Where the dry run writes what it saw, inside the directory the tests run in (Stryker's sandbox, removed after the run). */
function recordFile(rootDir) {
  return path.join(rootDir, "reports", "mutation", "tests-by-file.json");
}

/**
 * @typedef {{ tests: Record<string, number>, setupMs: number }} FileRecord
 * Full test name (describe names and test name, as Stryker names a test) → duration in ms; setupMs: the file's time
 * outside its tests (loading, beforeAll/afterAll).
 */

/** @returns {Record<string, FileRecord>} */
function readRecord(rootDir) {
  try {
    return JSON.parse(fs.readFileSync(recordFile(rootDir), "utf8"));
  } catch {
    return {};
  }
}

/** Replaces one test file's entry (the dry run runs in one process, file after file). */
function writeFileRecord(rootDir, testPath, entry) {
  const record = readRecord(rootDir);
  record[testPath] = entry;
  fs.mkdirSync(path.dirname(recordFile(rootDir)), { recursive: true });
  fs.writeFileSync(recordFile(rootDir), JSON.stringify(record));
}

module.exports = { ACTIVE_MUTANT, KILLED, readRecord, writeFileRecord };
