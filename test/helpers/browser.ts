// Headless Chromium for the console's tests (CONTRACT section 10), driven by playwright-core. Its own browser
// download cannot be used here: the browser is Debian's `chromium` package (.ci/run installs it), or the one
// CHROMIUM names. Every page is watched: a CSP violation, a dialog, an uncaught error or a console error is recorded,
// and so is every request it makes.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

const CANDIDATES = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
  (path): path is string => typeof path === "string" && path !== "",
);

export const CHROMIUM = CANDIDATES.find((path) => existsSync(path));

/** Why the browser tests skip, or undefined when they run. */
export const NO_BROWSER = CHROMIUM
  ? undefined
  : `no Chromium found (tried ${CANDIDATES.join(", ")}): install Debian's chromium package (apt-get install chromium), as .ci/run does, or set CHROMIUM`;

export interface OpenBrowser {
  /** One browser profile, fresh for this test file; each page in it has its own session storage. */
  context: BrowserContext;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<OpenBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "adapter-command-chromium-"));
  // Playwright takes the profile directory itself (it refuses --user-data-dir among the arguments).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM as string,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What a watched page did that a test must see: each a line of words. */
export interface PageWatch {
  page: Page;
  violations: string[];
  dialogs: string[];
  errors: string[];
  /** Every request the page made: method and URL. */
  requests: string[];
  /** Resolves with the next CSP violation reported. */
  nextViolation(): Promise<string>;
}

export async function watchedPage(context: BrowserContext): Promise<PageWatch> {
  const page = await context.newPage();
  const waiting: Array<(text: string) => void> = [];
  const watch: PageWatch = {
    page,
    violations: [],
    dialogs: [],
    errors: [],
    requests: [],
    nextViolation: () => new Promise((resolve) => waiting.push(resolve)),
  };
  await page.exposeFunction("__reportViolation", (text: string) => {
    watch.violations.push(text);
    for (const resolve of waiting.splice(0)) resolve(text);
  });
  // Run in the page before its own script (a string: this file is typed for Node, not the DOM).
  await page.addInitScript(`document.addEventListener("securitypolicyviolation", (event) => {
    window.__reportViolation(event.violatedDirective + " blocked " + (event.blockedURI || "inline") + " (" + event.sample + ")");
  });`);
  page.on("dialog", (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => {});
  });
  page.on("pageerror", (error) => watch.errors.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // An error answer the page expects (a 401 probe, a 400 for a task that has ended) is logged as a failed load.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      watch.errors.push(`console: ${message.text()}`);
  });
  page.on("request", (request) => watch.requests.push(`${request.method()} ${request.url()}`));
  return watch;
}
