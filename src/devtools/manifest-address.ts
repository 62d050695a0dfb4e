// The manifest rewrite of the build: manifest.xml is written for https://localhost:3000/ (Microsoft's templates), dist/manifest.xml for where the add-in is served.
import { configError } from "./build-settings";

/** The address manifest.xml is written for: the folder of its task pane page (<SourceLocation>). */
export function manifestTemplateUrl(manifestXml: string): string {
  const page = /<SourceLocation DefaultValue="([^"]+)"/.exec(manifestXml)?.[1];
  if (!page) throw configError("manifest.xml has no <SourceLocation DefaultValue=...>: the build cannot tell which address to rewrite.");
  return new URL(".", page).href;
}

/** manifest.xml with every URL under its template address moved to `url` (the one to sideload or publish). */
export function rewriteManifest(manifestXml: string, url: string): string {
  return manifestXml.replaceAll(manifestTemplateUrl(manifestXml), url);
}
