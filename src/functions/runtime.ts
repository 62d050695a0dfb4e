// The functions' side of the shared runtime: cell streams over the shared hub, Excel error objects, and the ribbon's pause toggle.
import { sharedHub } from "../feeds/shared";
import { CellStreams, type CellError } from "./stream";

/** Dispatched by the ribbon's "Pause feeds" button (src/commands/commands.ts). */
const TOGGLE_PAUSE_EVENT = "hedge:toggle-pause";

let streams: CellStreams | null = null;

/** Turns a CellError into what setResult takes: in Excel a CustomFunctions.Error, built by the entry file functions.ts. */
type ErrorFactory = (error: CellError) => unknown;

let makeError: ErrorFactory = (error) => error;

/** The factory for Excel: `namespace` is the CustomFunctions global, passed in by the entry file functions.ts. */
export function excelErrorFactory(namespace: Pick<typeof CustomFunctions, "Error" | "ErrorCode">): ErrorFactory {
  return (error) => {
    const code = error.code === "#VALUE!" ? namespace.ErrorCode.invalidValue : namespace.ErrorCode.notAvailable;
    return new namespace.Error(code, error.message);
  };
}

/** Sets how cell errors are handed to Excel (functions.ts passes CustomFunctions.Error; tests keep plain CellErrors). */
export function useErrorFactory(factory: ErrorFactory): void {
  makeError = factory;
  streams = null;
}

/** The cell streams of the shared hub (rebuilt when the hub is replaced, as tests and benchmarks do). */
export function cellStreams(): CellStreams {
  const hub = sharedHub();
  if (!streams || streams.hub !== hub) streams = new CellStreams(hub, (error) => makeError(error));
  return streams;
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
