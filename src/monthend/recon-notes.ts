// Reconciliation phase 4: what the reader must know before the figures: a history read cut short, positions as of generation, rows left out.
import type { MonthData } from "./recon-model";

/** The warning to show first when the history was read only in part; null when it was read whole. */
export function historyWarning(data: Pick<MonthData, "historyComplete" | "historyIncompleteReason">, recordsRead: number): string | null {
  if (data.historyComplete) return null;
  return (
    `The hedge history was read only in part (${data.historyIncompleteReason ?? "it was cut short"}): ` +
    `the ${recordsRead} records read are the newest ones, older records of the month are missing, so the realized section, its totals and the differences may be incomplete or wrong.`
  );
}

/** Notes under the figures: what "as of" means for this sheet, and the log rows left out. */
export function reconNotes(data: Pick<MonthData, "generatedAtMs" | "window">, otherLogRows: number): string[] {
  const notes: string[] = [];
  if (data.generatedAtMs >= data.window.endMs) {
    notes.push(
      "Open positions, hedge states and notionals are as of the time generated: the service does not give them as of a past date.",
    );
  } else {
    notes.push("The month is not over: the realized section covers it up to the time generated.");
  }
  if (otherLogRows > 0) notes.push(`${otherLogRows} log rows of another environment or account were left out.`);
  return notes;
}
