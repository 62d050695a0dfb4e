// A market side judged as a chain: each row's notional after is the next row's Notional before, the last row's is the hedge now; each unfinished row took effect, did not, or stays unclear for the user's decision.
import { chainGaps, type Evidence } from "../../src/trading/verdict";
import { final, hedge, judged, now, results, row } from "../support/side-chain";

/** Hedge h-1 at `notional` now (a closed one with its records read: none). */
const hedgeAt = (notional: number, status = "filled"): Evidence => now(hedge(notional, status), status === "closed" ? [] : null);

describe("a market side is judged as a chain of its unfinished rows and its last final row", () => {
  it("the crash window: an Add submitted and the Reduce after it (sent, found the hedge at 150,000), hedge now 50,000: both took effect, no decision", () => {
    const side = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 50_000, "submitted", 100_000, "10:01:00"),
      row("reduce", 100_000, "submitting", 150_000, "10:02:00"),
    ];
    const chain = judged(side, hedgeAt(50_000));
    expect(chain.links.map((l) => l.result)).toEqual(["took_effect", "took_effect"]);
    expect(chain.gap).toBeNull();
    // The evidence the pane shows names the next row and what it found.
    expect(chain.links[0].verdict).toMatchObject({ kind: "effect", patch: { status: "filled" } });
    expect((chain.links[0].verdict as { says: string }).says).toContain("found it at 150,000.00 USD");
  });

  it("a Reduce then a Close, the hedge now closed: the Reduce took effect (the Close found 50,000) and so did the Close", () => {
    const side = [
      row("open", 150_000, "filled", null, "10:00:00"),
      row("reduce", 100_000, "submitted", 150_000, "10:01:00"),
      row("close", null, "submitting", 50_000, "10:02:00"),
    ];
    expect(results(side, hedgeAt(50_000, "closed"))).toEqual(["took_effect", "took_effect"]);
  });

  it("two Adds, both executed: the second found 150,000 and the hedge is at 170,000", () => {
    const side = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 50_000, "submitted", 100_000, "10:01:00"),
      row("add", 20_000, "submitting", 150_000, "10:02:00"),
    ];
    expect(results(side, hedgeAt(170_000))).toEqual(["took_effect", "took_effect"]);
  });

  it("two Adds, the first executed and the second not: the hedge is at what the second found", () => {
    const side = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 50_000, "submitted", 100_000, "10:01:00"),
      row("add", 20_000, "submitting", 150_000, "10:02:00"),
    ];
    expect(results(side, hedgeAt(150_000))).toEqual(["took_effect", "did_not"]);
  });

  it("a change no row of this log explains stays unclear (the user's decision), and the gap is named", () => {
    const side = [row("open", 100_000, "filled", null, "10:00:00"), row("add", 50_000, "submitted", 120_000, "10:01:00")];
    const chain = judged(side, hedgeAt(185_000));
    expect(chain.links.map((l) => l.result)).toEqual(["unclear"]);
    expect(chain.gap).toContain("a change no row of this log explains");
    // In the middle of the chain too: the next row found neither before nor before + amount.
    const middle = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 50_000, "submitted", 100_000, "10:01:00"),
      row("reduce", 10_000, "submitting", 175_000, "10:02:00"),
    ];
    expect(results(middle, hedgeAt(165_000))).toEqual(["unclear", "took_effect"]);
  });

  it("a row that never left (no Sent at) speaks for nothing: the row before it is judged by the hedge now", () => {
    const side = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 50_000, "submitted", 100_000, "10:01:00"),
      row("close", null, "submitting", null, "10:02:00", { sentAt: null }),
    ];
    expect(results(side, hedgeAt(150_000))[0]).toBe("took_effect");
    expect(results(side, hedgeAt(100_000))[0]).toBe("did_not");
  });

  it("the last final row starts the chain: only rows after it are judged", () => {
    const side = [
      row("open", 100_000, "filled", null, "10:00:00"),
      row("add", 50_000, "filled", 100_000, "10:01:00"),
      row("reduce", 30_000, "submitted", 150_000, "10:02:00"),
    ];
    const chain = judged(side, hedgeAt(120_000));
    expect(chain.start?.action).toBe("add");
    expect(chain.links.map((l) => [l.intent.action, l.result])).toEqual([["reduce", "took_effect"]]);
  });

  it("the gap before a side's first unfinished row is found for every side in one pass, and only where there is one", () => {
    const side = [row("open", 100_000, "filled", null, "10:00:00"), row("add", 50_000, "submitted", 120_000, "10:01:00")];
    const other = [
      Object.assign(row("open", 10_000, "filled", null, "10:00:00"), { side: "buy" as const, hedgeId: "h-2" }),
      Object.assign(row("add", 5_000, "submitting", 10_000, "10:01:00"), { side: "buy" as const, hedgeId: "h-2" }),
    ];
    const gaps = chainGaps([...side, ...other], final);
    expect([...gaps.keys()]).toEqual([side[1].idempotencyKey]);
    expect(gaps.get(side[1].idempotencyKey)).toBe(
      "The open before it left the hedge at 100,000.00 USD, but this add found it at 120,000.00 USD: a change no row of this log explains (another workbook or person).",
    );
  });
});
