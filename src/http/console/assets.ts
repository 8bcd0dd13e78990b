// The operator console's files (CONTRACT section 10), built by scripts/build-web.mjs into dist/web and shipped in the
// package: read once, at the first request, and kept in memory (a few tens of KiB). Nothing is fetched from
// elsewhere; the page works with no network.
import { readFileSync } from "node:fs";

export interface Asset {
  body: Uint8Array;
  type: string;
}

/** The URL path of each file, and its name in dist/web. */
export const CONSOLE_FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/assets/console.js": { file: "console.js", type: "text/javascript; charset=utf-8" },
  "/assets/console.css": { file: "console.css", type: "text/css; charset=utf-8" },
};

// From dist/http/console/ to dist/web/.
const WEB_DIR = new URL("../../web/", import.meta.url);

/** Reads each file once; a file that is missing (a checkout not built) is undefined, answered 404. */
export function consoleAssets(dir: URL = WEB_DIR): (path: string) => Asset | undefined {
  const cache = new Map<string, Asset | undefined>();
  return (path) => {
    const entry = CONSOLE_FILES[path];
    if (!entry) return undefined;
    if (!cache.has(path)) {
      let asset: Asset | undefined;
      try {
        asset = { body: readFileSync(new URL(entry.file, dir)), type: entry.type };
      } catch {
        asset = undefined;
      }
      cache.set(path, asset);
    }
    return cache.get(path);
  };
}
