// Fake Excel for custom-function tests: a CustomFunctions global, a ribbon event target, fake streaming invocations, and a hub on a manual clock.
import { ManualClock } from "../../src/feeds/clock";
import { FeedHub, type ClientSource, type HubOptions } from "../../src/feeds/hub";
import { setSharedHub } from "../../src/feeds/shared";
import { excelErrorFactory, useErrorFactory } from "../../src/functions/runtime";
import { FakeClient, FakeSource } from "../feeds/fake-client";

/** What `new CustomFunctions.Error(code, message)` makes in Excel. */
export class FakeExcelError {
  constructor(
    readonly code: string,
    readonly message?: string,
  ) {}
}

const g = globalThis as unknown as Record<string, unknown>;
g.CustomFunctions = {
  Error: FakeExcelError,
  ErrorCode: { invalidValue: "#VALUE!", notAvailable: "#N/A", divisionByZero: "#DIV/0!", invalidNumber: "#NUM!", nullReference: "#NULL!" },
  associate: () => undefined,
};
// What functions.ts does in Excel: cell errors become (fake) CustomFunctions.Error objects.
useErrorFactory(excelErrorFactory(g.CustomFunctions as never));
// The shared runtime page is a window: the ribbon dispatches its events on it.
const page = new EventTarget();
g.addEventListener = page.addEventListener.bind(page);
g.removeEventListener = page.removeEventListener.bind(page);
g.dispatchEvent = page.dispatchEvent.bind(page);

/** A cell's streaming invocation as Excel hands it to a function: records every setResult. */
export class FakeInvocation<R = unknown> {
  readonly results: unknown[] = [];
  onCanceled?: () => void;
  readonly setResult = (value: R | FakeExcelError): void => {
    this.results.push(value);
  };

  get last(): unknown {
    return this.results[this.results.length - 1];
  }

  /** The last result, which must be a value (fails the test with the error's message otherwise). */
  get value(): R {
    const last = this.last;
    if (last instanceof FakeExcelError) throw new Error(`cell shows ${last.code} ${last.message ?? ""}`);
    if (this.results.length === 0) throw new Error("cell has no result yet (#BUSY!)");
    return last as R;
  }

  /** The last result, which must be an error. */
  get error(): FakeExcelError {
    const last = this.last;
    if (!(last instanceof FakeExcelError)) throw new Error(`cell shows a value, not an error: ${JSON.stringify(last)}`);
    return last;
  }

  /** Excel removing the formula. */
  cancel(): void {
    this.onCanceled?.();
  }
}

export function cells<R>(n: number): FakeInvocation<R>[] {
  return Array.from({ length: n }, () => new FakeInvocation<R>());
}

/** A fresh shared hub over a fake client on a manual clock, installed where the functions look for it. */
export function installFeeds(options: Partial<HubOptions> = {}, client: FakeClient | null = new FakeClient()) {
  const clock = new ManualClock();
  const source = new FakeSource(client);
  const hub = setSharedHub(new FeedHub({ source: source as ClientSource, clock, ...options }));
  const advance = (ms = 0) => clock.advance(ms, () => hub.settled());
  return { clock, client: client as FakeClient, source, hub, advance };
}
