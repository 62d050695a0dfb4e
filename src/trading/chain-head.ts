// The chain head: the newest Row hash this computer's journal wrote into a workbook's Hedge Log, which month end checks the log still holds (a log cut off at its end shows no other sign).
import type { IntentStore } from "./intent-store";

/**
 * The newest Row hash this computer appended to the Hedge Log of the workbook with this id (WorkbookIdentity.id), or null
 * when it appended none (or kept no head: a journal older than the chain). It says only what this computer wrote: a row
 * another computer (or another user's journal) appended to the same workbook later is not its head, and rows cut off
 * after the newest row this computer wrote are seen only by the computer that wrote them.
 */
export async function chainHeadOf(store: IntentStore, workbookId: string): Promise<string | null> {
  return (await store.loadHead(workbookId))?.rowHash ?? null;
}
