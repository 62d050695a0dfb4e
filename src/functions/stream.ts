// The bridge from hub updates to streaming cells: cells asking the same thing share one view, computed once per update and set only when it changed.
import { ArgumentError, type FeedError } from "../feeds/feed-error";
import type { FeedStatus } from "../feeds/feed-status";
import type { FeedHub } from "../feeds/hub";
import type { Snapshot, TopicSpec } from "../feeds/topic";

/** What Excel shows instead of a value: #VALUE! for a bad argument, #N/A for everything else. */
export interface CellError {
  code: "#VALUE!" | "#N/A";
  message: string;
}

type Outcome<R> = { value: R } | { error: CellError };

/** The part of CustomFunctions.StreamingInvocation a cell stream uses. */
export interface Sink<R> {
  setResult(value: R): void;
  onCanceled?: () => void;
}

/** Thrown by a selector when the answer has no value for this cell (shown as #N/A). */
export class Unavailable extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "Unavailable";
  }
}

/** Codes that are about the question asked rather than the service: shown as #VALUE!. */
const ARGUMENT_CODES = new Set(["validation_error", "market_not_allowed"]);
const MAX_MESSAGE = 250;

function cellErrorOf(error: FeedError): CellError {
  if (error.kind === "no_key") return { code: "#N/A", message: error.message };
  if (error.kind === "argument") return { code: "#VALUE!", message: clip(error.message) };
  const advice = error.advice && !error.message.includes(error.advice) ? ` ${error.advice}` : "";
  return { code: ARGUMENT_CODES.has(error.code) ? "#VALUE!" : "#N/A", message: clip(`${error.code}: ${error.message}${advice}`) };
}

/** What a thrown value inside a function or selector shows as. */
export function cellErrorOfThrown(e: unknown): CellError {
  if (e instanceof ArgumentError) return { code: "#VALUE!", message: clip(e.message) };
  if (e instanceof Unavailable) return { code: "#N/A", message: clip(`${e.code}: ${e.message}`) };
  return { code: "#N/A", message: clip(`unexpected_error: ${e instanceof Error ? e.message : String(e)}`) };
}

/** The cell outcome of a snapshot: its error, or `pick` of its value (a throwing pick becomes an error). */
export function outcomeOf<T, R>(snapshot: Snapshot<T>, pick: (value: T, snapshot: Snapshot<T>) => R): Outcome<R> {
  if (snapshot.error) return { error: cellErrorOf(snapshot.error) };
  if (snapshot.value === undefined) return { error: { code: "#N/A", message: "No answer from the service yet." } };
  try {
    return { value: pick(snapshot.value, snapshot) };
  } catch (e) {
    return { error: cellErrorOfThrown(e) };
  }
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message;
}

class View<R> {
  readonly sinks = new Set<Sink<R>>();
  /** What every sink shows now (the Excel value or error object) and its fingerprint. */
  current: { result: unknown; fingerprint: string } | null = null;
  unsubscribe: () => void = () => undefined;

  constructor(private readonly toError: (error: CellError) => unknown) {}

  update(outcome: Outcome<R>): void {
    const fingerprint = JSON.stringify(outcome);
    if (this.current?.fingerprint === fingerprint) return;
    const result = "error" in outcome ? this.toError(outcome.error) : outcome.value;
    this.current = { result, fingerprint };
    for (const sink of this.sinks) setSafely(sink, result);
  }
}

function setSafely<R>(sink: Sink<R>, result: unknown): void {
  try {
    sink.setResult(result as R);
  } catch {
    // A sink that fails (a cell already gone) must not stop the others.
  }
}

export class CellStreams {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly views = new Map<string, View<any>>();

  constructor(
    readonly hub: FeedHub,
    /** Turns a CellError into what setResult takes (a CustomFunctions.Error in Excel). */
    private readonly toError: (error: CellError) => unknown,
  ) {}

  /**
   * Streams into `sink` what `select` makes of the topic. Cells with the same `viewKey` (same question, same
   * selection) share one view: the cell value is computed once per update and set only when it changed; a cell
   * joining a live view gets the current value at once. The sink's onCanceled leaves the view; the last one out
   * unsubscribes from the hub.
   */
  open<T, R>(sink: Sink<R>, viewKey: string, topic: TopicSpec<T>, select: (snapshot: Snapshot<T>) => Outcome<R>): void {
    this.join(sink, `${topic.key}#${viewKey}`, (view) => this.hub.subscribe(topic, (snapshot) => view.update(select(snapshot))));
  }

  /**
   * Streams what `select` makes of several topics together (HEDGE.ROLLCOST's quotes): each topic is the hub's own, shared
   * with any cell asking the same question; the view is computed once every topic has answered, and again on each update; the first topic in error shows its error.
   */
  openAll<T, R>(
    sink: Sink<R>,
    viewKey: string,
    topics: readonly TopicSpec<T>[],
    select: (snapshots: readonly Snapshot<T>[]) => Outcome<R>,
  ): void {
    this.join(sink, `${topics.map((t) => t.key).join(",")}#${viewKey}`, (view) => {
      const latest: Array<Snapshot<T> | undefined> = topics.map(() => undefined);
      const update = () => {
        const failed = latest.find((s) => s?.error);
        if (failed?.error) view.update({ error: cellErrorOf(failed.error) });
        else if (latest.every((s) => s !== undefined)) view.update(select(latest as Snapshot<T>[]));
      };
      const stops = topics.map((topic, i) =>
        this.hub.subscribe(topic, (snapshot) => {
          latest[i] = snapshot;
          update();
        }),
      );
      return () => stops.forEach((stop) => stop());
    });
  }

  /** Streams the hub's status (HEDGE.STATUS). */
  openStatus<R>(sink: Sink<R>, render: (status: FeedStatus) => R): void {
    this.join(sink, "status", (view) => this.hub.onStatus((status) => view.update({ value: render(status) })));
  }

  /** Shows an error that needs no subscription (a bad argument); the cell stays as it is until re-entered. */
  fail<R>(sink: Sink<R>, error: CellError): void {
    sink.onCanceled = () => undefined;
    setSafely(sink, this.toError(error));
  }

  /** Cells currently streaming, and distinct views they share (for tests and diagnostics). */
  counts(): { views: number; cells: number } {
    let cells = 0;
    for (const view of this.views.values()) cells += view.sinks.size;
    return { views: this.views.size, cells };
  }

  private join<R>(sink: Sink<R>, key: string, subscribe: (view: View<R>) => () => void): void {
    let view = this.views.get(key) as View<R> | undefined;
    let created = false;
    if (!view) {
      view = new View<R>(this.toError);
      this.views.set(key, view);
      created = true;
    }
    const v = view;
    v.sinks.add(sink);
    let live = true;
    sink.onCanceled = () => {
      if (!live) return;
      live = false;
      v.sinks.delete(sink);
      if (v.sinks.size > 0) return;
      v.unsubscribe();
      if (this.views.get(key) === v) this.views.delete(key);
    };
    if (created) v.unsubscribe = subscribe(v);
    else if (v.current) setSafely(sink, v.current.result);
  }
}
