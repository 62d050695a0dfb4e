// Reconciliation phase 4 on its own: the warning for a history read cut short, and the notes under the figures.
import { historyWarning, reconNotes } from "../../src/monthend/recon-notes";
import { NOV } from "../support/builders";

describe("recon notes", () => {
  it("warns first when the history was read in part, with the reason and the count read; nothing when read whole", () => {
    expect(historyWarning({ historyComplete: true }, 12)).toBeNull();
    const warning = historyWarning({ historyComplete: false, historyIncompleteReason: "page limit reached" }, 5000);
    expect(warning).toMatch(/^The hedge history was read only in part \(page limit reached\): the 5000 records read are the newest/);
    // Without a reason given, it still says the read was cut short.
    expect(historyWarning({ historyComplete: false }, 3)).toMatch(
      /^The hedge history was read only in part \(it was cut short\): the 3 records read/,
    );
  });

  it("says positions are as of generation once the month is over, that it is not over otherwise, and how many rows were left out", () => {
    expect(reconNotes({ window: NOV, generatedAtMs: NOV.endMs + 1 }, 0)).toEqual([expect.stringMatching(/as of the time generated/)]);
    // Made at the month's very end (the next month's first instant): the month is over.
    expect(reconNotes({ window: NOV, generatedAtMs: NOV.endMs }, 0)).toEqual([
      expect.stringMatching(/^Open positions, hedge states and notionals are as of the time generated/),
    ]);
    const during = reconNotes({ window: NOV, generatedAtMs: NOV.endMs - 1 }, 1);
    expect(during).toEqual([
      expect.stringMatching(/^The month is not over/),
      "1 log rows of another environment or account were left out.",
    ]);
  });
});
