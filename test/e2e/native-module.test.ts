// A native module built for another Node version (after switching versions) is reported as such, with the command
// that fixes it, not as a fault of the state dir (docs/getting-started.md, "Install"). The built tool is copied next to a
// node_modules whose better-sqlite3 binary cannot be loaded; every other package is the real one.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/state-dir.js";

function installWithBrokenSqlite(): string {
  const install = tempDir("native");
  for (const part of ["bin", "dist", "package.json"])
    cpSync(join(ROOT, part), join(install, part), { recursive: true });
  const modules = join(install, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name !== "better-sqlite3" && name !== ".bin")
      symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
  }
  const sqlite = join(modules, "better-sqlite3");
  for (const part of ["lib", "package.json"]) {
    cpSync(join(ROOT, "node_modules/better-sqlite3", part), join(sqlite, part), { recursive: true });
  }
  mkdirSync(join(sqlite, "build/Release"), { recursive: true });
  writeFileSync(join(sqlite, "build/Release/better_sqlite3.node"), "not a shared object\n");
  return install;
}

describe("a native module that does not load", () => {
  it("serve --state-dir exits 2 saying so, with `npm rebuild better-sqlite3` and where to run it", async () => {
    const install = installWithBrokenSqlite();
    const state = tempDir("native-state");
    const result = await runCli(["serve", "--stdio", "--state-dir", state], {
      bin: join(install, "bin/adapter-command.js"),
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /SQLite's native module \(better-sqlite3\) does not load in Node v\d+/);
    assert.ok(result.stderr.includes(`\`npm rebuild better-sqlite3\` in ${install}`), result.stderr);
    assert.doesNotMatch(result.stderr, /cannot open .*state\.db/);
    assert.equal(result.stdout, "");
  });
});
