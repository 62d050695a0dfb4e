// The functions' side of the shared runtime: cell streams over the shared hub, Excel error objects, and the ribbon's pause toggle.
import { sharedHub } from "../feeds/shared";
import { CellStreams, type CellError } from "./stream";

/** Dispatched by the ribbon's "Pause feeds" button (src/commands/commands.ts). */
export const TOGGLE_PAUSE_EVENT = "hedge:toggle-pause";

let streams: CellStreams | null = null;

/** The cell streams of the shared hub (rebuilt when the hub is replaced, as tests and benchmarks do). */
export function cellStreams(): CellStreams {
  const hub = sharedHub();
  if (!streams || streams.hub !== hub) streams = new CellStreams(hub, excelError);
  return streams;
}

/** A CellError as the CustomFunctions.Error that setResult takes. */
export function excelError(error: CellError): CustomFunctions.Error {
  const code = error.code === "#VALUE!" ? CustomFunctions.ErrorCode.invalidValue : CustomFunctions.ErrorCode.notAvailable;
  return new CustomFunctions.Error(code, error.message);
}

interface EventSource {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

/** Toggles the shared hub's pause when the ribbon asks; returns the function that stops listening. */
export function listenForPauseToggle(target: EventSource | undefined = eventTargetOfGlobal()): () => void {
  if (!target) return () => undefined;
  const toggle = () => {
    sharedHub().togglePause();
  };
  target.addEventListener(TOGGLE_PAUSE_EVENT, toggle);
  return () => target.removeEventListener(TOGGLE_PAUSE_EVENT, toggle);
}

function eventTargetOfGlobal(): EventSource | undefined {
  const g = globalThis as Partial<EventSource>;
  return typeof g.addEventListener === "function" && typeof g.removeEventListener === "function" ? (g as EventSource) : undefined;
}
