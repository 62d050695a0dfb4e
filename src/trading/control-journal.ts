// A control row journalled (the journal's appendControl): this computer's journal first, then the Hedge Log as the next link of its chain, sealed at once.
import type { ChainWriter } from "./log/chain-writer";
import { isControlRecord } from "./log/control-row";
import type { LogRecord } from "./log/hedge-log";
import { finalHashOf } from "./log/log-chain";
import type { IntentStore } from "./intent-store";
import type { WorkbookIdentity } from "./workbook";

/** Where a control row goes: this computer's store (none: the log alone) and the log's chain; the row it follows and when. */
export interface ControlJournalPorts {
  store: { store: IntentStore; scope: string } | null;
  chain: ChainWriter;
  me: WorkbookIdentity;
  /** The newest idempotency key known to be in this log (the entry's anchor). */
  anchor: string | null;
  now: Date;
}

/**
 * Writes a control row (log/control-row.ts) as final: into this computer's journal (an entry final at once, pruned with
 * the final rows), then into the log as the next link of its chain with its seal; `record` gets its chain cells. It is
 * never an intent: the desk's lists, the merge and the duplicate check do not see it.
 */
export async function journalControl(record: LogRecord, ports: ControlJournalPorts): Promise<void> {
  if (!isControlRecord(record)) throw new Error(`Row ${record.idempotencyKey} is not a control row.`);
  const { me } = ports;
  const entry = { record, keyId: null, anchor: ports.anchor, finalAt: ports.now.toISOString(), workbookId: me.id, workbookName: me.name };
  if (ports.store) await ports.store.store.put(ports.store.scope, [entry]);
  const row = { ...record, prevHash: null, rowHash: null, finalHash: null };
  await ports.chain.append({ rows: [row], record: (r) => r, seal: (r) => finalHashOf(r.rowHash!, r) });
  Object.assign(record, { prevHash: row.prevHash, rowHash: row.rowHash, finalHash: row.finalHash });
}
