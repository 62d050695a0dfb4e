// The handover between the functions Excel calls (functions.ts, registered as the page starts) and their work (engine.ts, an entry evaluated after it): a call made before the work has come waits for it.

/** A cell as Excel hands it to a streaming function: Excel calls its onCanceled when the cell stops asking. */
export interface WaitingCell {
  onCanceled?: () => void;
}

let arrived: object | null = null;
let waiting: Array<(work: object) => void> = [];

/** The engine hands its work over once its code has run; the calls that waited for it run now, in the order Excel made them. */
export function provideWork(work: object): void {
  arrived = work;
  const calls = waiting;
  waiting = [];
  for (const call of calls) call(work);
}

/**
 * Runs `call` with the work at once when it has come, else when it comes. A cell Excel cancels meanwhile is dropped
 * (the work never opens its stream); once the work runs the call, it sets the cell's own onCanceled.
 */
export function withWork<W extends object>(cell: WaitingCell, call: (work: W) => void): void {
  if (arrived) {
    call(arrived as W);
    return;
  }
  let canceled = false;
  cell.onCanceled = () => {
    canceled = true;
  };
  waiting.push((work) => {
    if (!canceled) call(work as W);
  });
}
