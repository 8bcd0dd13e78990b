// better-sqlite3 is a native module, built for one Node version and platform. Loaded by another (after switching
// Node versions), it fails with ERR_DLOPEN_FAILED, which is no fault of the state dir: say what it is, and the
// command that fixes it (docs/getting-started.md, "Install").
import { createRequire } from "node:module";
import { dirname } from "node:path";

/** The words for a native module that does not load, or undefined when `error` is something else. */
export function nativeModuleProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown })?.code;
  const message = String((error as Error)?.message ?? error);
  if (code !== "ERR_DLOPEN_FAILED" && !/NODE_MODULE_VERSION|better_sqlite3\.node/.test(message)) return undefined;
  const first = message.split("\n")[0] ?? message;
  return (
    `SQLite's native module (better-sqlite3) does not load in Node ${process.version}: ${first}. ` +
    `It was most likely built for another Node version; fix it with \`npm rebuild better-sqlite3\`${whereToRebuild()}`
  );
}

/** " in DIR": the folder whose node_modules holds better-sqlite3, where the rebuild must run. */
function whereToRebuild(): string {
  try {
    const pkg = createRequire(import.meta.url).resolve("better-sqlite3/package.json");
    return ` in ${dirname(dirname(dirname(pkg)))}`;
  } catch {
    return "";
  }
}
