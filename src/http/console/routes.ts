// GET / and the console's assets (CONTRACT section 10): no token needed (the page holds no data; its requests carry
// the bearer token), the Host check of app.ts applies, and every answer carries a strict Content-Security-Policy:
// only this server's own script, style and API, no inline script or style attribute, no eval, never in a frame.
// docs/security.md.
import type { Hono } from "hono";
import { refusal } from "../responses.js";
import { type Asset, CONSOLE_FILES, consoleAssets } from "./assets.js";

const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const CONSOLE_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONSOLE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  // The page is small and changes with the package; revalidating costs little and never serves a stale one.
  "Cache-Control": "no-cache",
};

export function consoleRoutes(app: Hono, assets: (path: string) => Asset | undefined = consoleAssets()): void {
  // Browsers ask for an icon; the console has none, and says so without a 404 in the page's log.
  app.get("/favicon.ico", () => new Response(null, { status: 204, headers: CONSOLE_HEADERS }));
  for (const path of Object.keys(CONSOLE_FILES)) {
    app.get(path, () => {
      const asset = assets(path);
      if (!asset)
        return refusal(404, "NOT_FOUND", "the console is not built in this copy: run `npm run build`", CONSOLE_HEADERS);
      return new Response(asset.body, { headers: { ...CONSOLE_HEADERS, "Content-Type": asset.type } });
    });
  }
}
