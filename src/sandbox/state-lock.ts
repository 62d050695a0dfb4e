// `FILE.lock`: one sandbox per state file, taken atomically (a complete lock file linked into place; a dead owner's lock replaced only by the one contender that claims it).
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";

/** How long an unreadable lock file is taken for one being written by a sandbox that is starting, not a dead one's. */
const LOCK_WRITE_GRACE_MS = 2_000;

/** Rounds of create-or-take-over before giving up (each round loses only to another sandbox that won meanwhile). */
const MAX_ROUNDS = 5;

/** Lock files held by sandboxes of this process (a second one in the same process is refused too). */
const heldHere = new Set<string>();

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** Tells this sandbox's lock from a later one of the same pid. */
  nonce?: string;
}

export interface StateLock {
  /** The lock file, `<state file>.lock`. */
  path: string;
  release(): void;
}

/** The lock file as found: its text, inode and age; null when there is none. */
interface Found {
  text: string;
  ino: number;
  mtimeMs: number;
}

function readLock(lock: string): Found | null {
  let fd: number;
  try {
    fd = openSync(lock, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    const { ino, mtimeMs } = fstatSync(fd);
    return { text: readFileSync(fd, "utf8"), ino, mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function ownerOf(text: string): LockOwner | null {
  try {
    const owner = JSON.parse(text) as LockOwner;
    return typeof owner?.pid === "number" ? owner : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, but another user's
  }
}

/** Writes `text` to a new file and fsyncs it; `flag: "wx"` fails with EEXIST when the file exists. */
function writeNew(path: string, text: string): void {
  const fd = openSync(path, "wx");
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes `<file>.lock` for this process, so that two sandboxes never share one state file (each would overwrite the
 * other's changes). The lock is created complete (a written temp file hard-linked into place, which fails if one
 * exists). A lock left by a process that is gone (kill -9) is taken over: each contender that judges it dead must first
 * create a claim file named after that very lock (its inode and content), which only one can, and the claimant then
 * renames its own lock over it only if the lock is still the one judged. So of any number of sandboxes starting at once
 * on a dead one's lock, exactly one wins; one of a live process is refused.
 */
export function lockStateFile(file: string): StateLock {
  const lock = `${resolve(file)}.lock`;
  const inUse = (by: string) =>
    new Error(`state file ${file} is in use by ${by} (lock file ${lock}); stop that sandbox, or give this one another --state file`);
  if (heldHere.has(lock)) throw inUse(`another sandbox in this process (pid ${process.pid})`);
  mkdirSync(dirname(lock), { recursive: true });
  const nonce = randomBytes(8).toString("hex");
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString(), nonce } satisfies LockOwner);
  const temp = `${lock}.${process.pid}.${nonce}.tmp`;
  try {
    writeNew(temp, mine);
  } catch (e) {
    throw new Error(`cannot create the lock file ${lock}: ${(e as Error).message}`, { cause: e });
  }
  const held = (): StateLock => {
    heldHere.add(lock);
    return { path: lock, release: () => release(lock, mine) };
  };
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (createExclusive(temp, lock)) return held();
      const found = readLock(lock);
      if (!found) continue; // released meanwhile
      refuseLive(found, inUse);
      if (takeOver(found, temp, lock, inUse)) return held();
    }
    throw inUse("other sandboxes that started at the same moment");
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Links the complete temp lock into place; false when a lock exists. */
function createExclusive(temp: string, lock: string): boolean {
  try {
    linkSync(temp, lock);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new Error(`cannot create the lock file ${lock}: ${(e as Error).message}`, { cause: e });
  }
}

/** Throws when the lock belongs to a live sandbox (or one on another host, or one still writing it). */
function refuseLive(found: Found, inUse: (by: string) => Error): void {
  const owner = ownerOf(found.text);
  if (owner && owner.host !== hostname())
    throw inUse(`a sandbox on ${owner.host} (pid ${owner.pid}); if it is not running, delete the lock file`);
  if (owner && owner.pid !== process.pid && alive(owner.pid))
    throw inUse(`another sandbox (pid ${owner.pid}); if no sandbox runs as pid ${owner.pid} now, delete the lock file`);
  // Unreadable and fresh: an older sandbox has just created it and is writing its pid.
  if (!owner && Date.now() - found.mtimeMs < LOCK_WRITE_GRACE_MS) throw inUse("another sandbox that is starting");
}

/** Replaces the dead owner's lock `found` by ours, if this contender is the one that claims it; false when it changed meanwhile. */
function takeOver(found: Found, temp: string, lock: string, inUse: (by: string) => Error): boolean {
  const id = createHash("sha256").update(`${found.ino}\n${found.text}`).digest("hex").slice(0, 16);
  const claim = `${lock}.takeover-${id}`;
  try {
    writeNew(claim, String(process.pid));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST")
      throw new Error(`cannot claim the lock file ${lock}: ${(e as Error).message}`, { cause: e });
    throw inUse(`another sandbox taking over the same dead sandbox's lock (if none is starting, delete ${claim})`);
  }
  try {
    const now = readLock(lock);
    if (!now || now.ino !== found.ino || now.text !== found.text) return false;
    renameSync(temp, lock); // atomic: the dead owner's lock is ours now
    return true;
  } finally {
    rmSync(claim, { force: true });
  }
}

function release(lock: string, mine: string): void {
  if (!heldHere.delete(lock)) return;
  try {
    if (readLock(lock)?.text === mine) unlinkSync(lock);
  } catch {
    // Already gone.
  }
}
