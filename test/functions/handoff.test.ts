// The functions registered before their work has run (functions.ts → handoff.ts → engine.ts): a cell calculated early waits for the work, runs once it comes, and a cell canceled meanwhile is never opened.
import { provideWork, withWork, type WaitingCell } from "../../src/functions/handoff";

interface Work {
  price(cell: WaitingCell, market: string): void;
}

describe("handing cells to the functions' work", () => {
  test("calls made before the work has come run when it comes, in their order; later calls run at once; a canceled cell is dropped", () => {
    const opened: string[] = [];
    const work: Work = {
      price: (cell, market) => {
        opened.push(market);
        cell.onCanceled = () => opened.push(`closed ${market}`);
      },
    };
    const first: WaitingCell = {};
    const canceled: WaitingCell = {};
    const second: WaitingCell = {};
    withWork<Work>(first, (w) => w.price(first, "USDTNGN"));
    withWork<Work>(canceled, (w) => w.price(canceled, "USDTKES"));
    withWork<Work>(second, (w) => w.price(second, "USDTGHS"));
    canceled.onCanceled?.(); // Excel cancels the cell before the work has come
    expect(opened).toEqual([]);

    provideWork(work);
    expect(opened).toEqual(["USDTNGN", "USDTGHS"]);
    // The work's own onCanceled replaced the waiting one.
    first.onCanceled?.();
    expect(opened).toEqual(["USDTNGN", "USDTGHS", "closed USDTNGN"]);

    const late: WaitingCell = {};
    withWork<Work>(late, (w) => w.price(late, "USDTZAR"));
    expect(opened.at(-1)).toBe("USDTZAR");
  });
});
