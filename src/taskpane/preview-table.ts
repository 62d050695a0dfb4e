// The trade panel's preview as DOM: the table of lines (streamed while priced), the totals, the limit checks and the blockers.
import type { Preview } from "../trading/types";
import { mirrorCheckedState } from "./aria-mirror";
import { h } from "./dom";
import { formatIn } from "./format";
import { batchTitle, hiddenNote, previewRows, previewTotals, rollNotes } from "./trade-model";

type CheckboxElement = HTMLElement & { checked: boolean };

/** The preview table, its totals, limit checks and blockers; `onSendAgain` hears a duplicate's "Send again" box. */
export function previewNodes(
  p: Preview,
  final: boolean,
  hiddenRows: number,
  onSendAgain: (rowNumber: number, on: boolean) => void,
): Node[] {
  const rows = previewRows(p);
  const table = h(
    "table",
    // data-state says whether the figures are all in ("final") or still streaming in ("pricing").
    { class: "preview-table", id: "preview-table", "data-state": final ? "final" : "pricing" },
    h("caption", {}, `Preview: ${batchTitle(p)}`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Row"), h("th", { scope: "col" }, "What is sent"))),
    h(
      "tbody",
      {},
      ...rows.map((r) => {
        const extra: Node[] = [];
        for (const b of r.blockers) extra.push(h("div", { class: "blocker" }, `Not sent: ${b}`));
        for (const w of r.warnings) extra.push(h("div", { class: "warning" }, w));
        if (r.duplicate) {
          const box = h("fluent-checkbox", { "data-row": r.rowNumber, class: "send-again" }) as CheckboxElement;
          box.addEventListener("change", () => onSendAgain(r.rowNumber, box.checked));
          extra.push(h("div", { class: "duplicate" }, h("span", {}, r.duplicate), " ", h("label", { class: "choice" }, box, "Send again")));
          mirrorCheckedState(box, "checkbox");
        }
        return h(
          "tr",
          { "data-row": r.rowNumber, class: r.sendable ? "" : "blocked" },
          h("th", { scope: "row" }, String(r.rowNumber)),
          h(
            "td",
            {},
            h("div", { class: "line-title" }, r.title),
            h("dl", { class: "cells" }, ...r.cells.flatMap((c) => [h("dt", {}, c.label), h("dd", {}, c.value)])),
            ...extra,
          ),
        );
      }),
    ),
  );
  const totals = h(
    "dl",
    { class: "totals", id: "preview-totals", "aria-label": "Totals" },
    ...previewTotals(p).flatMap((c) => [h("dt", {}, c.label), h("dd", {}, c.value)]),
  );
  const rolls = rollsNode(p);
  const checks = p.checks.length
    ? h(
        "ul",
        { class: "checks", "aria-label": "Limit checks" },
        ...p.checks.map((c) =>
          h(
            "li",
            { class: c.ok ? "ok" : "fail" },
            h("span", { class: "check-mark", "aria-hidden": "true" }, c.ok ? "✓" : "✗"),
            ` ${c.label}: needs ${formatIn(c.needed, c.unit)}, available ${formatIn(c.available, c.unit)}`,
            h("span", { class: "visually-hidden" }, c.ok ? " (ok)" : " (not enough)"),
          ),
        ),
      )
    : null;
  const blockers =
    final && p.blockers.length ? h("div", { class: "blocker", role: "alert" }, ...p.blockers.map((b) => h("div", {}, b))) : null;
  const hidden = hiddenRows ? h("p", { class: "warning", id: "hidden-rows" }, hiddenNote(hiddenRows).trim()) : null;
  return [
    table,
    ...(hidden ? [hidden] : []),
    totals,
    ...(rolls ? [rolls] : []),
    ...(checks ? [checks] : []),
    ...(blockers ? [blockers] : []),
  ];
}

/** A roll's lines (preview-rolls.ts): what it is, the Close's exit impact, the fee pair, "This roll costs X"; null without a roll. */
function rollsNode(p: Preview): HTMLElement | null {
  if (p.rolls.length === 0) return null;
  return h(
    "ul",
    { class: "rolls", id: "preview-rolls", "aria-label": "Rolls" },
    ...rollNotes(p).map((r) =>
      h(
        "li",
        { class: "roll" },
        h("div", { class: "line-title" }, r.title),
        ...r.lines.map((line) => h("div", {}, line)),
        h("div", { class: "roll-cost" }, r.cost),
      ),
    ),
  );
}
