// A contender for a state file's lock in its own process (test/sandbox/lock.test.ts): at the time it is sent, it tries to take the lock and says whether it won.
import { lockStateFile, type StateLock } from "../../src/sandbox/state-lock";

let held: StateLock | null = null;

process.on("message", (m: { file: string; at: number } | "exit") => {
  if (m === "exit") process.exit(0);
  held?.release(); // the test has put a dead sandbox's lock in place since: nothing of ours is removed
  held = null;
  while (Date.now() < m.at) {
    // Spin: every contender starts at the same millisecond.
  }
  try {
    held = lockStateFile(m.file);
    process.send!({ won: true });
  } catch (e) {
    process.send!({ won: false, message: (e as Error).message });
  }
});
process.send!({ ready: true });
