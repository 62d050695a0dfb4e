// Month end's list of the Hedge Log's control rows logged in the period (a change of "LIVE trades need approval", a standing roll instruction approved or revoked), each flagged where it weakened a control, and the sheet's columns for them.
import { CONTROLS, readControl } from "../trading/log/control-row";
import type { LogRecord } from "../trading/log/hedge-log";
import { utcMs } from "../api/time";
import type { MonthWindow } from "./month";

/** One control row of the period, as the recon sheet lists it. */
export interface ControlLine {
  loggedAt: string;
  environment: string;
  account: string | null;
  /** Which control (the row's Market cell). */
  control: string;
  from: string;
  to: string;
  /** The key fingerprint that made the change. */
  by: string;
  /** What it is about (a roll instruction's hash); null for a setting. */
  hash: string | null;
  /** Why the reader should look at it; null when nothing weakened. */
  flag: string | null;
}

/** The flag on "LIVE trades need approval" unticked: LIVE trades could go out without a second key until it was ticked again. */
export const LIVE_APPROVAL_OFF_FLAG = "LIVE approval unticked: LIVE trades could be sent without a second key";

/** Whether a change unticked "LIVE trades need approval". */
const unticksLiveApproval = (l: Pick<ControlLine, "control" | "from" | "to">): boolean =>
  l.control === CONTROLS.liveApproval && l.from === "on" && l.to === "off";

/**
 * The control rows logged in the period, in log order (every environment and account: a workbook's setting is the
 * workbook's). A change that unticked LIVE approval is flagged, with when it was ticked again in the period (or not).
 */
export function controlLines(log: readonly LogRecord[], month: MonthWindow): ControlLine[] {
  const lines: ControlLine[] = [];
  for (const record of log) {
    const c = readControl(record);
    const at = utcMs(record.loggedAt);
    if (!c || !(at >= month.startMs && at < month.endMs)) continue;
    lines.push({
      loggedAt: c.at,
      environment: c.environment,
      account: c.account,
      control: c.control,
      from: c.from,
      to: c.to,
      by: c.by,
      hash: c.hash,
      flag: null,
    });
  }
  lines.forEach((l, i) => {
    if (!unticksLiveApproval(l)) return;
    const back = lines.slice(i + 1).find((n) => n.control === CONTROLS.liveApproval && n.to === "on");
    l.flag = `${LIVE_APPROVAL_OFF_FLAG} ${back ? `until ${back.loggedAt} (ticked again by ${back.by})` : "for the rest of the period"}.`;
  });
  return lines;
}

/** The note the summary carries when LIVE approval was unticked in the period; null when it was not. */
export function controlNote(lines: readonly ControlLine[]): string | null {
  const off = lines.filter(unticksLiveApproval);
  if (off.length === 0) return null;
  return `“${CONTROLS.liveApproval}” was unticked ${off.length === 1 ? "once" : `${off.length} times`} in the period (${off.map((l) => `${l.loggedAt} by ${l.by}`).join("; ")}): see Controls changed in the period.`;
}
