// Month end's list of the control rows of a period (controlLines) and the summary's note (controlNote): which rows are listed, in log order with their cells, every unticking of "LIVE trades need approval" flagged with when it was ticked again, and nothing else flagged.
import { controlLines, controlNote } from "../../src/monthend/control-lines";
import { CONTROLS, controlRecord, type ControlChange } from "../../src/trading/log/control-row";
import type { LogRecord } from "../../src/trading/log/hedge-log";
import { NOV, logRow } from "../support/builders";

const ANN = "fp-00000000000000a1";
const BOB = "fp-00000000000000b2";
let n = 0;
/** A control row logged at `at`. */
function change(at: string, control: string, from: string, to: string, by = ANN, over: Partial<ControlChange> = {}): LogRecord {
  return controlRecord(
    { control, from, to, by, at, environment: "sandbox", account: "0xACCOUNT", hash: null, preparedBy: null, message: "", ...over },
    `ctl-${++n}`,
  );
}
const live = (at: string, from: "on" | "off", to: "on" | "off", by = ANN) => change(at, CONTROLS.liveApproval, from, to, by);

describe("controlLines", () => {
  it("lists the control rows logged in the period, in log order, with their cells; trades and rows outside the period are not listed", () => {
    const instruction = change("2026-11-03T10:00:00.000Z", CONTROLS.rollInstruction, "pending", "approved", BOB, {
      hash: "abc123",
      preparedBy: ANN,
      environment: "production",
      account: "0xOTHER",
    });
    const log = [
      live("2026-10-31T23:59:59.999Z", "on", "off"), // October
      instruction,
      logRow({ loggedAt: "2026-11-04T00:00:00.000Z" }), // a trade
      live("2026-11-01T00:00:00.000Z", "off", "on"), // the period's first instant, listed after the row before it in the log
      live("2026-12-01T00:00:00.000Z", "on", "off"), // December's first instant
    ];
    expect(controlLines(log, NOV)).toEqual([
      {
        loggedAt: "2026-11-03T10:00:00.000Z",
        environment: "production",
        account: "0xOTHER",
        control: CONTROLS.rollInstruction,
        from: "pending",
        to: "approved",
        by: BOB,
        hash: "abc123",
        flag: null,
      },
      {
        loggedAt: "2026-11-01T00:00:00.000Z",
        environment: "sandbox",
        account: "0xACCOUNT",
        control: CONTROLS.liveApproval,
        from: "off",
        to: "on",
        by: ANN,
        hash: null,
        flag: null,
      },
    ]);
  });

  it("flags each unticking of LIVE approval, with the first ticking again after it (not before it, not of another control)", () => {
    const lines = controlLines(
      [
        live("2026-11-02T08:00:00.000Z", "off", "on", BOB), // a ticking before: not the one that ends the next
        live("2026-11-10T08:00:00.000Z", "on", "off"),
        change("2026-11-10T09:00:00.000Z", CONTROLS.rollInstruction, "approved", "on"), // another control set to "on"
        live("2026-11-10T09:30:00.000Z", "off", "on", BOB),
        live("2026-11-12T09:30:00.000Z", "off", "on", ANN),
        live("2026-11-20T08:00:00.000Z", "on", "off"),
        live("2026-11-21T08:00:00.000Z", "on", "on"), // set on (whatever it said before): the unticking ends
      ],
      NOV,
    );
    expect(lines.map((l) => l.flag)).toEqual([
      null,
      `LIVE approval unticked: LIVE trades could be sent without a second key until 2026-11-10T09:30:00.000Z (ticked again by ${BOB}).`,
      null,
      null,
      null,
      `LIVE approval unticked: LIVE trades could be sent without a second key until 2026-11-21T08:00:00.000Z (ticked again by ${ANN}).`,
      null,
    ]);
    // Unticked and never ticked again in the period.
    expect(controlLines([live("2026-11-30T23:00:00.000Z", "on", "off")], NOV)[0].flag).toBe(
      "LIVE approval unticked: LIVE trades could be sent without a second key for the rest of the period.",
    );
    // Unticked again while off: the flag runs to the row that set it on, not to the next row of the control.
    const again = controlLines(
      [
        live("2026-11-20T08:00:00.000Z", "on", "off"),
        live("2026-11-22T08:00:00.000Z", "off", "off"),
        live("2026-11-25T08:00:00.000Z", "off", "on", BOB),
      ],
      NOV,
    );
    expect(again[0].flag).toBe(
      `LIVE approval unticked: LIVE trades could be sent without a second key until 2026-11-25T08:00:00.000Z (ticked again by ${BOB}).`,
    );
    // Only on → off of LIVE approval is an unticking: another control turned off is not flagged.
    expect(controlLines([change("2026-11-05T00:00:00.000Z", CONTROLS.rollInstruction, "on", "off")], NOV)[0].flag).toBeNull();
    expect(controlLines([live("2026-11-05T00:00:00.000Z", "off", "off")], NOV)[0].flag).toBeNull();
  });
});

describe("controlNote", () => {
  it("says how often and when LIVE approval was unticked, and by whom; nothing when it was not", () => {
    expect(controlNote([])).toBeNull();
    expect(controlNote(controlLines([live("2026-11-05T00:00:00.000Z", "off", "on")], NOV))).toBeNull();
    expect(controlNote(controlLines([live("2026-11-05T00:00:00.000Z", "on", "off")], NOV))).toBe(
      `“LIVE trades need approval” was unticked once in the period (2026-11-05T00:00:00.000Z by ${ANN}): see Controls changed in the period.`,
    );
    const twice = controlLines([live("2026-11-05T00:00:00.000Z", "on", "off"), live("2026-11-06T00:00:00.000Z", "on", "off", BOB)], NOV);
    expect(controlNote(twice)).toBe(
      `“LIVE trades need approval” was unticked 2 times in the period (2026-11-05T00:00:00.000Z by ${ANN}; 2026-11-06T00:00:00.000Z by ${BOB}): see Controls changed in the period.`,
    );
  });
});
