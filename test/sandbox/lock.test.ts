// The state file's lock under contention: sandboxes in separate processes start at the same moment on a dead sandbox's lock, and exactly one of them takes it, every time.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");
const CONTENDERS = 4;
const TAKEOVERS = 300;
/** Above Linux's largest pid (2^22): no process has it, so its lock is a dead sandbox's. */
const DEAD_PID = 4_194_305;

type Answer = { ready: true } | { won: boolean; message?: string };

interface Contender {
  child: ChildProcess;
  next(): Promise<Answer>;
}

function contender(): Contender {
  const child = spawn(process.execPath, ["--import", "tsx", join(__dirname, "lock-contender.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const queue: Answer[] = [];
  const waiting: Array<(a: Answer) => void> = [];
  child.on("message", (m: Answer) => {
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  });
  return { child, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((r) => waiting.push(r))) };
}

let dir: string;
let contenders: Contender[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-lock-"));
  contenders = Array.from({ length: CONTENDERS }, contender);
  await Promise.all(contenders.map((c) => c.next()));
}, 60_000);

afterAll(() => {
  for (const c of contenders) if (c.child.connected) c.child.send("exit");
  rmSync(dir, { recursive: true, force: true });
});

test(`${TAKEOVERS} takeovers of a dead sandbox's lock by ${CONTENDERS} sandboxes starting at once: exactly one wins each time, and the lock names it`, async () => {
  const file = join(dir, "state.json");
  const lock = `${file}.lock`;
  const failures: string[] = [];
  for (let round = 0; round < TAKEOVERS; round++) {
    rmSync(lock, { force: true });
    writeFileSync(lock, JSON.stringify({ pid: DEAD_PID, host: hostname(), started_at: `round ${round}` }));
    const at = Date.now() + 15;
    const answers = contenders.map((c) => c.next());
    for (const c of contenders) c.child.send({ file, at });
    const results = await Promise.all(answers);
    const winners = contenders.filter((_, i) => (results[i] as { won: boolean }).won);
    const owner = (JSON.parse(readFileSync(lock, "utf8")) as { pid: number }).pid;
    if (winners.length !== 1 || owner !== winners[0].child.pid) {
      failures.push(`round ${round}: ${winners.length} winners, lock names pid ${owner}; ${JSON.stringify(results)}`);
    }
    for (const [i, r] of results.entries()) {
      const message = (r as { message?: string }).message;
      if (!(r as { won: boolean }).won && !/is in use by/.test(message ?? "")) failures.push(`round ${round}, contender ${i}: ${message}`);
    }
  }
  expect(failures.slice(0, 5)).toEqual([]);
  // Nothing but the state's lock is left beside it: no temp lock, no claim.
  expect(readdirSync(dir)).toEqual(["state.json.lock"]);
}, 120_000);
