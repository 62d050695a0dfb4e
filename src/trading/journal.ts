// The journal: the "Hedge Log" table plus the per-user intent store as the durable record of every intent. Appends before sending; reads only unfinished, today's and known rows; merges the two on opening (journal-merge.ts); writes status updates behind (write-behind.ts); appends as links of the log's chain (log/chain-writer.ts).
import { type Workbook, type WorkbookIdentity } from "./workbook";
import { LOG_SHEET_NAME, byLoggedAt, utcDayStart, type LogRecord } from "./log/hedge-log";
import { WriteBehind } from "./write-behind";
import { applyPatch, intentFromLogRecord, intentToLogRecord, isFinal, unusableReason, type Intent, type IntentPatch } from "./intent";
import { prunable, type IntentStore, type StoredIntent } from "./intent-store";
import { ChainWriter } from "./log/chain-writer";
import { LOG_FINAL_STATUSES } from "./types";
import { isControlRecord } from "./log/control-row";
import { journalControl } from "./control-journal";
import { copyMark, mayBeMine, mergeRow, ownerOf, ownLogOf, sealOf, writtenBack } from "./journal-merge";

export interface JournalOptions {
  /** Status updates arriving within this window go to the workbook in one call. Default 100 ms. */
  flushDelayMs?: number;
  /**
   * Called when a write failed (the update is kept and retried on the next flush), and once per log row that could not be
   * found (deleted, or its key edited): that row is written again at the end of the log.
   */
  onError?: (error: Error) => void;
  /** Per-user store of intents (beside the key); none: the log alone. */
  store?: IntentStore;
  /** The store's scope (environment and account); required with `store`. */
  scope?: string;
  now?: () => Date;
}

/** What load() found beyond the log: rows brought back from the per-user journal, and log rows edited since they were written. */
export interface LoadReport {
  /** Intents the log had lost (deleted, or the workbook closed without saving) and that were written back to it. */
  restored: Intent[];
  /**
   * Final rows this computer's journal holds that this log does not, and that cannot be tied to it: another workbook's,
   * or this one's when its whole log was lost (closed without saving). Only the user can tell: restore() adds them.
   */
  orphans: Intent[];
  /** Rows whose body in the log differs from what was journalled (and sent): the journalled one is kept. */
  edited: Array<{ intent: Intent; fields: string[] }>;
  /**
   * Unfinished rows this computer journalled in another workbook (another id) that its log may be missing: never written
   * here; listed (with that workbook's name where known) until the user dismisses them in this workbook.
   */
  otherWorkbooks: Intent[];
}

export class Journal {
  private readonly intents = new Map<string, Intent>();
  /** Log rows that are not intents the add-in can act on (kept for the duplicate check and the pane's list). */
  private foreign: LogRecord[] = [];
  /** Final intents the per-user journal knows that are not in this log (another workbook's): for the duplicate check only. */
  private elsewhere: LogRecord[] = [];
  private readonly orphans = new Map<string, Intent>();
  /** Idempotency keys this computer's journal holds (loaded, or appended here): the rest are known from the log alone. */
  private readonly here = new Set<string>();
  /** Unfinished rows of other workbooks (see LoadReport.otherWorkbooks). */
  private readonly others = new Map<string, Intent>();
  /** This workbook id's rows journalled under another file name (a copy): written here only on the user's word (restore). */
  private readonly copies = new Map<string, Intent>();
  private identityRead: Promise<WorkbookIdentity> | null = null;
  private readonly finalAt = new Map<string, string | null>();
  /** Status updates written behind (write-behind.ts): this computer's journal, then the log. */
  private readonly queue: WriteBehind;
  /** load(), append() and restore() one at a time: each reads or changes which rows the log and this computer's journal hold. */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  /** The newest idempotency key known to be in this log: the anchor of the next append. */
  private lastKey: string | null = null;
  /** Appends to the log as links of its chain (append, write-back, a lost row written again), one at a time. */
  private readonly chain: ChainWriter;

  constructor(
    private readonly workbook: Workbook,
    private readonly options: JournalOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    if (options.store && options.scope === undefined) throw new Error("A journal with a store needs its scope.");
    const store = options.store;
    this.chain = new ChainWriter({
      readLastRow: () => this.workbook.readLastLogRecord(),
      append: (records) => this.workbook.appendLog(records),
      loadHead: async () => (store ? store.loadHead((await this.identity()).id) : null),
      keepHead: (link) => this.keepHead(link),
    });
    this.queue = new WriteBehind({
      workbook,
      store: store && { put: (scope, entries) => store.put(scope, entries), scope: options.scope! },
      intent: (key) => this.intents.get(key),
      appendAgain: (intents) => this.appendLinked(intents),
      report: (e) => this.report(e),
      delayMs: options.flushDelayMs ?? 100,
    });
  }

  /**
   * Reads what the desk needs, never the whole log: the unfinished rows, today's rows (UTC, for the duplicate check), and
   * the rows the per-user journal knows. Merges the two: a row's request is what was journalled (a later edit of the log is
   * reported, not sent); its state is the more advanced of the two; a row the log lost is written back (unfinished ones
   * always; final ones when the row they were appended after is in this log, i.e. the workbook was closed without saving).
   * `live`: the intents this session is working on (the desk's own objects). They stay in the journal as they are, never
   * replaced by what was read — a status change or a first send made meanwhile is written from them, not from an older
   * copy of the row (which could tell this computer's journal that a row already sent was never sent).
   */
  load(live: (idempotencyKey: string) => Intent | undefined = () => undefined): Promise<LoadReport> {
    return this.inTurn(() => this.loadNow(live));
  }

  /**
   * Runs `work` after the load, append or restore under way has ended (failed or not). A load that read this computer's
   * journal while an append had written it but not yet the log would find the row missing and write it back: twice in
   * the log, and the row's later updates reach only one of the two.
   */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.catch(() => undefined).then(work);
    this.turn = run;
    return run;
  }

  private async loadNow(live: (idempotencyKey: string) => Intent | undefined): Promise<LoadReport> {
    const edited: LoadReport["edited"] = [];
    const me = await this.identity();
    const stored = this.options.store ? await this.options.store.load(this.options.scope!) : [];
    for (const e of stored) this.here.add(e.record.idempotencyKey);
    const keys = new Set<string>();
    for (const e of stored) {
      keys.add(e.record.idempotencyKey);
      if (e.anchor) keys.add(e.anchor);
    }
    const records = await this.workbook.readLog({
      statusNotIn: LOG_FINAL_STATUSES,
      loggedSince: utcDayStart(this.now()),
      keys: [...keys],
    });
    this.intents.clear();
    this.foreign = [];
    this.elsewhere = [];
    this.orphans.clear();
    this.others.clear();
    this.copies.clear();
    const present = new Set<string>();
    const byKey = new Map(stored.map((e) => [e.record.idempotencyKey, e]));
    for (const record of records) {
      present.add(record.idempotencyKey);
      this.lastKey = record.idempotencyKey || this.lastKey;
      if (isControlRecord(record)) continue; // a change of a control: never a trade to resume, merge or count
      const entry = byKey.get(record.idempotencyKey);
      if (this.intents.has(record.idempotencyKey)) {
        // A second row with the same key (copied by hand): only the first is the journal's.
        this.foreign.push(record);
        continue;
      }
      const mine = live(record.idempotencyKey);
      if (mine) {
        this.intents.set(mine.idempotencyKey, mine);
        continue;
      }
      const fromLog = intentFromLogRecord(record);
      if (!fromLog && !entry) {
        this.foreign.push(record);
        continue;
      }
      const intent = entry ? this.merge(fromLog, record, entry, edited) : fromLog!;
      this.intents.set(intent.idempotencyKey, intent);
    }
    const restored = this.placeMissing(stored, present, me, live);
    if (restored.length > 0) await this.writeBack(restored);
    // Final rows old enough to forget (none without a store: nothing was loaded), unless this session still works on them.
    const drop = prunable(stored, this.now().getTime()).filter((k) => !this.intents.has(k) || isFinal(this.intents.get(k)!.status));
    if (drop.length > 0) {
      await this.options.store!.remove(this.options.scope!, drop);
      const dropped = new Set(drop);
      this.elsewhere = this.elsewhere.filter((r) => !dropped.has(r.idempotencyKey));
      for (const k of drop) [this.orphans, this.copies].forEach((m) => m.delete(k));
    }
    // After pruning: a row listed can be restored.
    const report: LoadReport = { restored, orphans: [...this.orphans.values()], edited, otherWorkbooks: [...this.others.values()] };
    // Queued entries as the journal holds their rows now (a row it no longer holds is not written).
    this.queue.retake((key) => (this.intents.has(key) ? this.entry(this.intents.get(key)!) : undefined));
    await this.flush(); // what the merge queued (nothing: no call)
    return report;
  }

  /** Entries the log lacks, by the workbook each is from: those to write back here; the rest listed (orphans, a copy's, others'). */
  private placeMissing(stored: StoredIntent[], present: Set<string>, me: WorkbookIdentity, live: (key: string) => Intent | undefined) {
    const missing = stored.filter((e) => !present.has(e.record.idempotencyKey)).sort((a, b) => byLoggedAt(a.record, b.record));
    const ownLog = ownLogOf(stored, present, me, live);
    const back = writtenBack(missing, present, me, live, ownLog);
    const restored: Intent[] = [];
    for (const e of missing) {
      const intent = live(e.record.idempotencyKey) ?? this.fromStore(e);
      if (!intent) continue;
      const owner = ownerOf(e, me, ownLog);
      if (back.has(e.record.idempotencyKey)) {
        intent.workbookId = me.id;
        intent.workbookName = me.name;
        restored.push(intent);
        continue;
      }
      this.elsewhere.push(intentToLogRecord(intent));
      // Restorable on the user's word: rows that may be this workbook's (see mayBeMine); other workbooks' unfinished rows are listed.
      if (owner === "copy") {
        if (!e.dismissedIn?.includes(copyMark(me))) this.copies.set(intent.idempotencyKey, intent);
      } else if (owner !== "other" || mayBeMine(e, me)) this.orphans.set(intent.idempotencyKey, intent);
      else if (!isFinal(intent.status) && !e.dismissedIn?.includes(me.id)) this.others.set(intent.idempotencyKey, intent);
    }
    return restored;
  }

  /** Appends intents the log lost, marked as restored from this computer's journal. */
  private async writeBack(intents: Intent[]): Promise<void> {
    for (const intent of intents) {
      const note = `Restored from this computer's journal: the row was missing from the ${LOG_SHEET_NAME} (deleted, or the workbook was closed without saving).`;
      if (!intent.message?.startsWith(note)) intent.message = `${note} ${intent.message ?? ""}`.trim();
    }
    await this.appendLinked(intents);
    for (const intent of intents) {
      this.intents.set(intent.idempotencyKey, intent);
      this.orphans.delete(intent.idempotencyKey);
      this.copies.delete(intent.idempotencyKey);
      this.lastKey = intent.idempotencyKey;
      this.queue.store(this.entry(intent));
    }
    const back = new Set(intents.map((i) => i.idempotencyKey));
    this.elsewhere = this.elsewhere.filter((r) => !back.has(r.idempotencyKey));
  }

  /** Final rows of this computer's journal that this log does not hold (see LoadReport.orphans). */
  orphaned(): Intent[] {
    return [...this.orphans.values()];
  }

  /** Adds orphaned rows to this log, on the user's word that they are this workbook's. */
  restore(keys: readonly string[]): Promise<Intent[]> {
    return this.inTurn(() => this.restoreNow(keys));
  }

  private async restoreNow(keys: readonly string[]): Promise<Intent[]> {
    const me = await this.identity();
    const wanted = keys.map((k) => this.orphans.get(k) ?? this.copies.get(k)).filter((i): i is Intent => i !== undefined);
    wanted.sort(byLoggedAt);
    for (const intent of wanted) [intent.workbookId, intent.workbookName] = [me.id, me.name];
    if (wanted.length > 0) await this.writeBack(wanted);
    await this.flush();
    return wanted;
  }

  /**
   * Whether this computer's journal holds the row (it was journalled here before it was sent): false for a row known from
   * the Hedge Log alone (another computer, an older version, or typed in). Without a store, every row is the log's alone.
   */
  journalledHere(idempotencyKey: string): boolean {
    return this.here.has(idempotencyKey);
  }

  /** Unfinished rows journalled in other workbooks (see LoadReport.otherWorkbooks). */
  otherWorkbookRows(): Intent[] {
    return [...this.others.values()];
  }

  /**
   * This workbook id's rows journalled under another file name (a copy, see ownerOf), listed until the user says whether
   * they belong in this file: restore() writes them here, dismiss() remembers that they do not.
   */
  copiedRows(): Intent[] {
    return [...this.copies.values()];
  }

  /**
   * The user's word that these rows of other workbooks, or of a copy under another file name, need not be listed in this
   * file again (they stay in their own): remembered in this computer's journal, by workbook id (a copy: id and file name).
   */
  async dismiss(keys: readonly string[]): Promise<Intent[]> {
    const me = await this.identity();
    const gone = keys.map((k) => this.others.get(k) ?? this.copies.get(k)).filter((i): i is Intent => i !== undefined);
    if (gone.length === 0) return [];
    const mark = (i: Intent) => (this.copies.has(i.idempotencyKey) ? copyMark(me) : me.id);
    if (this.options.store)
      await this.options.store.put(
        this.options.scope!,
        gone.map((i) => ({ ...this.entry(i), dismissedIn: [mark(i)] })),
      );
    for (const i of gone) [this.others, this.copies].forEach((m) => m.delete(i.idempotencyKey));
    return gone;
  }

  /** This workbook's identity, read once (see WorkbookIdentity). */
  identity(): Promise<WorkbookIdentity> {
    this.identityRead ??= this.workbook.identity().catch((e: unknown) => {
      this.identityRead = null;
      throw e;
    });
    return this.identityRead;
  }

  private fromStore(e: StoredIntent): Intent | null {
    const intent = intentFromLogRecord(e.record);
    if (!intent) return null;
    intent.keyId = e.keyId;
    intent.anchor = e.anchor;
    intent.workbookId = e.workbookId ?? null;
    intent.workbookName = e.workbookName ?? null;
    intent.parkedFor = e.parkedFor ?? null;
    this.finalAt.set(intent.idempotencyKey, e.finalAt);
    return intent;
  }

  /** One row known to both, merged (journal-merge.ts): what the log and this computer's journal get again, and what was edited. */
  private merge(fromLog: Intent | null, record: LogRecord, entry: StoredIntent, edited: LoadReport["edited"]): Intent {
    const stored = this.fromStore(entry);
    if (!stored) return fromLog!;
    const merged = mergeRow(fromLog, record, stored);
    if (merged.storeAgain) this.queue.store(this.entry(merged.intent));
    if (Object.keys(merged.logFix).length > 0) this.queue.log(merged.intent, merged.logFix);
    if (merged.edited.length > 0) edited.push({ intent: merged.intent, fields: merged.edited });
    return merged.intent;
  }

  get(idempotencyKey: string): Intent | undefined {
    return this.intents.get(idempotencyKey);
  }

  all(): Intent[] {
    return [...this.intents.values()];
  }

  /** Rows loaded that are not intents the add-in can act on. */
  unusable(): Array<{ record: LogRecord; reason: string }> {
    return this.foreign.map((record) => ({ record, reason: unusableReason(record) ?? "it cannot be read" }));
  }

  /** Every row known (log rows read, this session's rows, and this computer's recent rows of other logs), as last written or queued. */
  records(): LogRecord[] {
    return [...this.elsewhere, ...this.foreign, ...[...this.intents.values()].map(intentToLogRecord)];
  }

  /**
   * Writes new intents (status submitting): first to the per-user store, then to the log. Resolves only once both hold
   * them: send after this, never before.
   */
  append(intents: Intent[]): Promise<void> {
    return this.inTurn(() => this.appendNow(intents));
  }

  private async appendNow(intents: Intent[]): Promise<void> {
    const me = await this.identity();
    for (const intent of intents) {
      if (intent.status !== "submitting")
        throw new Error(`Intent ${intent.idempotencyKey} must be journalled as submitting, not ${intent.status}.`);
      if (this.intents.has(intent.idempotencyKey)) throw new Error(`Intent ${intent.idempotencyKey} is already in the log.`);
      intent.anchor ??= this.lastKey;
      intent.workbookId ??= me.id;
      intent.workbookName ??= me.name;
    }
    if (this.options.store)
      await this.options.store.put(
        this.options.scope!,
        intents.map((i) => this.entry(i)),
      );
    await this.appendLinked(intents);
    for (const intent of intents) {
      this.intents.set(intent.idempotencyKey, intent);
      if (this.options.store) this.here.add(intent.idempotencyKey);
    }
    if (intents.length > 0) this.lastKey = intents[intents.length - 1].idempotencyKey;
  }

  /** Appends a control row, journalled here first like any row, as the next link of the log's chain (control-journal.ts). */
  appendControl(record: LogRecord): Promise<void> {
    return this.inTurn(async () => {
      const store = this.options.store ? { store: this.options.store, scope: this.options.scope! } : null;
      await journalControl(record, { store, chain: this.chain, me: await this.identity(), anchor: this.lastKey, now: this.now() });
      this.lastKey = record.idempotencyKey;
    });
  }

  /** Appends rows to the log as the next links of its chain (log/chain-writer.ts), sealed when appended final. */
  private appendLinked(intents: Intent[]): Promise<void> {
    return this.chain.append({ rows: intents, record: intentToLogRecord, seal: sealOf });
  }

  /** Keeps `link` as this computer's head for this workbook; a failure is reported, not thrown (the rows are in the log). */
  private async keepHead(link: string): Promise<void> {
    if (!this.options.store) return;
    try {
      await this.options.store.putHead({ workbookId: (await this.identity()).id, rowHash: link, writtenAt: this.now().toISOString() });
    } catch (e) {
      this.report(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Takes an intent the log does not hold (e.g. restored by the desk) into memory. */
  adopt(intent: Intent): void {
    this.intents.set(intent.idempotencyKey, intent);
  }

  private entry(intent: Intent): StoredIntent {
    let finalAt = this.finalAt.get(intent.idempotencyKey) ?? null;
    if (isFinal(intent.status) && finalAt === null) {
      finalAt = this.now().toISOString();
      this.finalAt.set(intent.idempotencyKey, finalAt);
    }
    return {
      record: intentToLogRecord(intent),
      keyId: intent.keyId,
      anchor: intent.anchor,
      finalAt,
      workbookId: intent.workbookId,
      workbookName: intent.workbookName,
      parkedFor: intent.parkedFor,
    };
  }

  /**
   * Moves an intent (state machine enforced at once, in memory) and queues the writes. Returns the changed fields; the
   * writes happen within flushDelayMs (await flush() to be sure).
   */
  update(intent: Intent, patch: IntentPatch): IntentPatch {
    const changed = applyPatch(intent, patch);
    if (Object.keys(changed).length === 0) return changed;
    // The seal goes in the same log update as the final state it covers.
    const seal = sealOf(intent);
    if (seal !== intent.finalHash) intent.finalHash = changed.finalHash = seal;
    // Why a row was parked is this computer's (its Message says it in the log).
    const { parkedFor: _mine, ...logged } = changed;
    if (Object.keys(logged).length > 0) this.queue.log(intent, logged);
    this.queue.store(this.entry(intent));
    this.queue.soon();
    return changed;
  }

  /** Writes every queued update now: the store first, then the log (one call each). */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  private report(error: Error): void {
    try {
      this.options.onError?.(error);
    } catch {
      // a failing listener must not stop the journal
    }
  }

  /** Updates queued but not yet written. */
  unflushed(): number {
    return this.queue.unflushed();
  }
}
