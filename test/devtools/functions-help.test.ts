// The functions' help page (src/devtools/functions-help.ts): one section per function at its lower-case anchor, its signature with optional arguments in brackets, streaming noted, every text escaped.
import { helpAnchor, helpPage } from "../../src/devtools/functions-help";

const metadata = {
  functions: [
    {
      id: "PRICE",
      name: "PRICE",
      description: "Mid rate <live>",
      options: { stream: true },
      parameters: [{ name: "market", description: "e.g. USDTNGN" }],
    },
    {
      id: "HEDGES",
      name: "HEDGES",
      description: "Hedges & more",
      parameters: [
        { name: "status", optional: true },
        { name: "limit", description: 'at most "n"', optional: true },
      ],
    },
    { id: "STATUS", name: "STATUS", description: "The connection", options: { volatile: true } },
  ],
};

test("each function has a section at its anchor, with its signature and arguments; the nav links to each", () => {
  const html = helpPage(metadata, "HEDGE", "1.2.3");
  expect(helpAnchor("PRICE")).toBe("price");
  expect(html).toContain('<section id="price">');
  expect(html).toContain("<h2><code>=HEDGE.PRICE(market)</code></h2>");
  expect(html).toContain("<h2><code>=HEDGE.HEDGES([status], [limit])</code></h2>");
  expect(html).toContain("<dt><code>limit</code> (optional)</dt><dd>at most &quot;n&quot;</dd>");
  expect(html).toContain("<p>No arguments.</p>");
  expect(html).toContain('<li><a href="#hedges">HEDGE.HEDGES</a></li>');
  expect(html).toContain("<h1>Hedge for Excel 1.2.3</h1>");
});

test("streaming and volatile functions say so; descriptions are escaped, never markup", () => {
  const html = helpPage(metadata, "HEDGE", "1");
  expect(html).toContain("<p>Mid rate &lt;live&gt;</p>");
  expect(html).toContain("<p>Hedges &amp; more</p>");
  expect(html).toMatch(/id="price">[\s\S]*Streams: the cell updates by itself[\s\S]*id="hedges"/);
  expect(html).toMatch(/id="status">[\s\S]*<p class="note">Volatile\.<\/p>/);
  expect(html).not.toMatch(/id="hedges">[\s\S]*class="note"[\s\S]*id="status"/);
});
