// The overview's maturities list (MaturityWatch): sides maturing within 24 hours with time left and notional, and sides flat since a maturity that the last proposal wanted hedged.
import { MaturityWatch } from "../../src/taskpane/maturities-model";
import { position } from "../support/builders";

const NOW = Date.parse("2026-11-30T08:00:00.000Z");
const H = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

describe("sides maturing within 24 hours", () => {
  it.each([
    ["9 h 00 min left", at(NOW + 9 * H), ["USDTNGN sell 50,000.00 USD matures in 9 h 00 min (2026-11-30 17:00 UTC)"]],
    ["23 h 59 min left", at(NOW + 24 * H - 60_000), ["USDTNGN sell 50,000.00 USD matures in 23 h 59 min (2026-12-01 07:59 UTC)"]],
    ["exactly 24 h left", at(NOW + 24 * H), ["USDTNGN sell 50,000.00 USD matures in 24 h 00 min (2026-12-01 08:00 UTC)"]],
    ["24 h and a minute left: not listed", at(NOW + 24 * H + 60_000), []],
    ["12 minutes left", at(NOW + 12 * 60_000 + 30_000), ["USDTNGN sell 50,000.00 USD matures in 12 min (2026-11-30 08:12 UTC)"]],
    [
      "maturity passed, still listed by the service",
      at(NOW - 1000),
      ["USDTNGN sell 50,000.00 USD matured, settling (2026-11-30 07:59 UTC)"],
    ],
    ["an unreadable maturity: not listed", "soon", []],
  ])("%s", (_name, maturity, expected) => {
    const watch = new MaturityWatch();
    expect(watch.items([position({ maturity_at: maturity })], NOW).map((i) => i.text)).toEqual(expected);
  });

  it("the soonest first; a side of size 0 is not listed", () => {
    const watch = new MaturityWatch();
    const items = watch.items(
      [
        position({ side: "buy", size_usd: 600_000, maturity_at: at(NOW + 20 * H) }),
        position({ side: "sell", maturity_at: at(NOW + 2 * H) }),
        position({ market: "USDTKES", side: "buy", size_usd: 0, maturity_at: at(NOW + H) }),
      ],
      NOW,
    );
    expect(items.map((i) => `${i.kind} ${i.side}`)).toEqual(["maturing sell", "maturing buy"]);
    expect(items[1].text).toBe("USDTNGN buy 600,000.00 USD matures in 20 h 00 min (2026-12-01 04:00 UTC)");
  });
});

describe("sides left flat since a maturity", () => {
  const maturity = Date.parse("2026-11-30T06:02:00.000Z");
  const held = position({ side: "buy", size_usd: 600_000, maturity_at: at(maturity) });

  it("the last proposal wanted it hedged (its target was above 0): unhedged since the maturity, first in the list", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([{ market: "USDTNGN", side: "buy", targetUsd: 600_000 }], [held]);
    const other = position({ side: "sell", maturity_at: at(NOW + H) });
    expect(watch.items([other], NOW).map((i) => `${i.kind}: ${i.text}`)).toEqual([
      "unhedged: USDTNGN buy unhedged since 06:02",
      "maturing: USDTNGN sell 50,000.00 USD matures in 1 h 00 min (2026-11-30 09:00 UTC)",
    ]);
  });

  it("held at its target when proposed (no row): wanted hedged too; a day later the time says its date", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [held]);
    expect(watch.items([], NOW + 24 * H).map((i) => i.text)).toEqual(["USDTNGN buy unhedged since 2026-11-30 06:02 UTC"]);
  });

  it.each([
    ["the last proposal's target was 0", () => [{ market: "USDTNGN", side: "buy", targetUsd: 0 }], [held], []],
    ["no proposal was made", null, [held], []],
    [
      "the side was closed before its maturity (it is flat, but no maturity passed)",
      () => [],
      [position({ side: "buy", maturity_at: at(NOW + 5 * H) })],
      [],
    ],
  ])("not listed when %s", (_name, rows, seen, expected) => {
    const watch = new MaturityWatch();
    if (rows) watch.observeProposal(rows(), seen);
    else watch.observePositions(seen);
    expect(watch.items([], NOW).map((i) => i.text)).toEqual(expected);
  });

  it("a side reopened since is hedged again: listed only when it nears its new maturity", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [held]);
    expect(watch.items([], NOW)).toHaveLength(1);
    const reopened = position({ side: "buy", size_usd: 600_000, maturity_at: at(NOW + 7 * 24 * H) });
    expect(watch.items([reopened], NOW)).toEqual([]);
    // Flat again after the new maturity: unhedged since that one.
    expect(watch.items([], NOW + 7 * 24 * H + H).map((i) => i.text)).toEqual(["USDTNGN buy unhedged since 08:00"]);
  });
});

describe("a proposal of one side (Propose beside it)", () => {
  const maturity = Date.parse("2026-11-30T06:02:00.000Z");
  const buy = position({ side: "buy", size_usd: 600_000, maturity_at: at(maturity) });
  const sell = position({ side: "sell", size_usd: 50_000, maturity_at: at(maturity) });

  it("changes only that side's wish: the other side, wanted by the full proposal before, is still listed unhedged", () => {
    const watch = new MaturityWatch();
    watch.observeProposal([], [buy, sell]); // both held: both wanted
    // The sell side has settled since; the buy side's proposal says nothing of it.
    watch.observeProposal([{ market: "USDTNGN", side: "buy", targetUsd: 0 }], [buy], { market: "USDTNGN", side: "buy" });
    expect(watch.items([], NOW).map((i) => `${i.kind} ${i.side}`)).toEqual(["unhedged sell"]);
  });
});
