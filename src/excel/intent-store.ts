// The per-user journal over OfficeRuntime.storage (beside the API key, never in the workbook): one item per intent and per approval decision, and an in-memory one for tests and the harness.
import {
  decodeChainHead,
  decodeStoredIntent,
  storedText,
  type ChainHead,
  type IntentStore,
  type StoredIntent,
} from "../trading/intent-store";
import type { JournalledDecision } from "../trading/approvals/record";
import type { ApprovalJournal } from "../trading/approvals/port";

/** Item names: `hedge.intent.<environment>:<account>.<idempotency key>`. */
const PREFIX = "hedge.intent.";
const itemName = (scope: string, key: string) => `${PREFIX}${scope}.${key}`;
/** The chain head of a workbook's log: `hedge.chainhead.<workbook id>` (outside every intent scope). */
const headName = (workbookId: string) => `hedge.chainhead.${workbookId}`;

/**
 * OfficeRuntime.storage: per user and device, shared by the pane and the functions, limited to about 10 MB in all. One item
 * per intent (~300 bytes) so a status change writes one small item; final entries are pruned by the desk (a week, 2,000).
 */
export function officeIntentStore(storage: OfficeRuntime.Storage = OfficeRuntime.storage): IntentStore {
  return {
    async load(scope) {
      const names = (await storage.getKeys()).filter((k) => k.startsWith(`${PREFIX}${scope}.`));
      if (names.length === 0) return [];
      const items = await storage.getItems(names);
      return names.map((n) => decodeStoredIntent(items[n] ?? "")).filter((e): e is StoredIntent => e !== null);
    },
    async put(scope, intents) {
      if (intents.length === 0) return;
      // Read what is there first: another pane (a second workbook) may have taken a row further meanwhile.
      const names = intents.map((e) => itemName(scope, e.record.idempotencyKey));
      const stored = await storage.getItems(names);
      await storage.setItems(Object.fromEntries(intents.map((e, i) => [names[i], storedText(stored[names[i]], e)])));
    },
    async remove(scope, keys) {
      if (keys.length > 0) await storage.removeItems(keys.map((k) => itemName(scope, k)));
    },
    async loadHead(workbookId) {
      return decodeChainHead((await storage.getItems([headName(workbookId)]))[headName(workbookId)]);
    },
    async putHead(head) {
      await storage.setItems({ [headName(head.workbookId)]: JSON.stringify(head) });
    },
  };
}

/** The same in memory (tests, benches, the browser harness). `bytes()` is what OfficeRuntime.storage would hold. */
export class MemoryIntentStore implements IntentStore {
  readonly items = new Map<string, string>();
  /** Writes made (for tests that count them). */
  writes = 0;

  async load(scope: string): Promise<StoredIntent[]> {
    const out: StoredIntent[] = [];
    for (const [name, text] of this.items) {
      if (!name.startsWith(`${PREFIX}${scope}.`)) continue;
      const entry = decodeStoredIntent(text);
      if (entry) out.push(entry);
    }
    return out;
  }

  async put(scope: string, intents: readonly StoredIntent[]): Promise<void> {
    this.writes++;
    for (const e of intents) {
      const name = itemName(scope, e.record.idempotencyKey);
      this.items.set(name, storedText(this.items.get(name), e));
    }
  }

  async remove(scope: string, keys: readonly string[]): Promise<void> {
    this.writes++;
    for (const k of keys) this.items.delete(itemName(scope, k));
  }

  async loadHead(workbookId: string): Promise<ChainHead | null> {
    return decodeChainHead(this.items.get(headName(workbookId)));
  }

  async putHead(head: ChainHead): Promise<void> {
    this.writes++;
    this.items.set(headName(head.workbookId), JSON.stringify(head));
  }

  bytes(): number {
    let n = 0;
    for (const [k, v] of this.items) n += k.length + v.length;
    return n;
  }
}

/** A decision's item: `hedge.approval.<batch id>`; a key that approved here: `hedge.approver.<fingerprint>`. */
const decisionName = (batchId: string) => `hedge.approval.${batchId}`;
const approverName = (fingerprint: string) => `hedge.approver.${fingerprint}`;

/** This computer's approval decisions over the same per-user storage as the intents (OfficeRuntime.storage, or a map). */
export function storageApprovalJournal(
  storage: Pick<OfficeRuntime.Storage, "getItems" | "setItems"> = OfficeRuntime.storage,
): ApprovalJournal {
  return {
    async loadDecision(batchId) {
      return decodeDecision((await storage.getItems([decisionName(batchId)]))[decisionName(batchId)]);
    },
    async putDecision(decision) {
      const stored = decodeDecision((await storage.getItems([decisionName(decision.batchId)]))[decisionName(decision.batchId)]);
      if (stored && (stored.status === "rejected" || stored.status === "executed")) return; // a final decision stays
      const items: Record<string, string> = { [decisionName(decision.batchId)]: JSON.stringify(decision) };
      if (decision.status !== "rejected") items[approverName(decision.by)] = decision.at;
      await storage.setItems(items);
    },
    async hasApproved(fingerprint) {
      return Boolean((await storage.getItems([approverName(fingerprint)]))[approverName(fingerprint)]);
    },
  };
}

/** A stored decision back from its JSON; null for anything else. */
function decodeDecision(text: string | null | undefined): JournalledDecision | null {
  try {
    const d = JSON.parse(text ?? "") as Partial<JournalledDecision> | null;
    const fields = [d?.batchId, d?.hash, d?.status, d?.by, d?.at];
    return fields.every((f) => typeof f === "string") ? (d as JournalledDecision) : null;
  } catch {
    return null;
  }
}

/** The journal of a MemoryIntentStore (tests, the browser harness): its items map as the storage. */
export function memoryApprovalJournal(store: MemoryIntentStore): ApprovalJournal {
  return storageApprovalJournal({
    getItems: async (names: string[]) => Object.fromEntries(names.map((n) => [n, store.items.get(n) ?? null])) as Record<string, string>,
    setItems: async (items: Record<string, string>) => {
      store.writes++;
      for (const [k, v] of Object.entries(items)) store.items.set(k, v);
    },
  });
}
