// The manifest rewrite (src/devtools/manifest-address.ts): every URL under manifest.xml's template address moved to where the add-in is served, nothing else; a manifest without its page address stops the build.
import fs from "fs";
import path from "path";
import { manifestTemplateUrl, rewriteManifest } from "../../src/devtools/manifest-address";

const MANIFEST = fs.readFileSync(path.resolve(__dirname, "../../manifest.xml"), "utf8");

test("the template address is the folder of the task pane page, and every URL under it moves to the public address", () => {
  const template = manifestTemplateUrl(MANIFEST);
  expect(template).toBe("https://localhost:3000/");
  const xml = rewriteManifest(MANIFEST, "https://hedge.addins.example.com/");
  expect(xml).not.toContain(template);
  expect(xml).toContain('<SourceLocation DefaultValue="https://hedge.addins.example.com/taskpane.html"');
  // Only the address changed: the same text once the new one is put back.
  expect(xml.replaceAll("https://hedge.addins.example.com/", template)).toBe(MANIFEST);
});

test("a manifest without <SourceLocation> stops the build, saying what is missing", () => {
  expect(() => rewriteManifest("<OfficeApp></OfficeApp>", "https://x.example/")).toThrow(/manifest\.xml has no <SourceLocation/);
});
