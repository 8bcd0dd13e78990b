// The layering check (.dependency-cruiser.cjs, run by `npm run check`): the source passes it, and a tree that breaks
// each rule of docs/architecture.md ("Layers") fails it with that rule's name. The fixture tree is written to a
// temporary directory and checked with the same config, the same way `npm run check` runs it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { stripVTControlCharacters } from "node:util";
import { ROOT } from "../helpers/cli.js";

const DEPCRUISE = join(ROOT, "node_modules/.bin/depcruise");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");

/** Runs the check over `src` under `cwd`; its exit status and report. */
function check(cwd: string): Promise<{ status: number; report: string }> {
  return new Promise((resolve) => {
    execFile(DEPCRUISE, ["src", "--config", CONFIG], { cwd, encoding: "utf8" }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      // depcruise colours its report where the test's output is a terminal; the colours are not the report.
      resolve({ status, report: stripVTControlCharacters(`${stdout}${stderr}`) });
    });
  });
}

/** A tree of one file per layer, every import allowed. */
const CLEAN: Record<string, string> = {
  "src/core/dispatcher.ts": 'import type { TaskStore } from "./store.js";\nexport type D = TaskStore;\n',
  "src/core/store.ts": "export interface TaskStore { put(): void }\n",
  "src/store/memory.ts": 'import type { TaskStore } from "../core/store.js";\nexport type M = TaskStore;\n',
  "src/exit-codes.ts": "export const EXIT = { ok: 0 };\n",
  "src/a2a/service.ts": 'import type { D } from "../core/dispatcher.js";\nexport type S = D;\n',
  "src/operations/table.ts": 'import type { S } from "../a2a/service.js";\nexport type O = S;\n',
  "src/jsonrpc/methods.ts": 'import type { O } from "../operations/table.js";\nexport type Ms = O;\n',
  "src/gate/request-gate.ts": 'import type { D } from "../core/dispatcher.js";\nexport type G = D;\n',
  "src/serve/serve-root.ts":
    'import type { Ms } from "../jsonrpc/methods.js";\nimport type { O } from "../operations/table.js";\nexport type R = Ms | O;\n',
  "src/http/jsonrpc.ts":
    'import type { G } from "../gate/request-gate.js";\nimport type { Ms } from "../jsonrpc/methods.js";\nexport type J = Ms | G;\n',
  "src/http/rest.ts":
    'import type { G } from "../gate/request-gate.js";\nimport type { O } from "../operations/table.js";\nexport type Rest = O | G;\n',
  "src/grpc/binding.ts":
    'import type { G } from "../gate/request-gate.js";\nimport type { O } from "../operations/table.js";\nexport type B = O | G;\n',
  "src/http/serve.ts":
    'import { EXIT } from "../exit-codes.js";\nimport type { R } from "../serve/serve-root.js";\nimport type { Rest } from "./rest.js";\nimport type { J } from "./jsonrpc.js";\nexport const x: R | Rest | J | number = EXIT.ok;\n',
  "src/ui/screen.ts": 'import { EXIT } from "../exit-codes.js";\nexport const y = EXIT.ok;\n',
  "src/commands/run.ts":
    'import { MemoryStore } from "../store/memory.js";\nimport { y } from "../ui/screen.js";\nexport const z = [MemoryStore, y];\n',
  "src/client/remote-task.ts": 'import { y } from "../ui/screen.js";\nexport const c = y;\n',
  "src/commands/run-remote.ts": 'import { c } from "../client/remote-task.js";\nexport const r = c;\n',
};

const trees: string[] = [];
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-layering-"));
  trees.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
after(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** One forbidden import added to the clean tree, and the rule that must name it. */
const BROKEN = [
  { rule: "core-stays-inside", file: "src/core/dispatcher.ts", adds: 'import "../store/memory.js";\n' },
  { rule: "core-stays-inside", file: "src/core/store.ts", adds: 'import "../http/serve.js";\n' },
  { rule: "no-command-below-cli", file: "src/ui/screen.ts", adds: 'import "../commands/run.js";\n' },
  { rule: "no-command-below-cli", file: "src/http/serve.ts", adds: 'import "../commands/run.js";\n' },
  { rule: "service-binding-free", file: "src/a2a/service.ts", adds: 'import "../jsonrpc/methods.js";\n' },
  { rule: "operations-binding-free", file: "src/operations/table.ts", adds: 'import "../jsonrpc/methods.js";\n' },
  { rule: "core-stays-inside", file: "src/core/store.ts", adds: 'import "../client/remote-task.js";\n' },
  { rule: "client-serves-commands", file: "src/ui/screen.ts", adds: 'import "../client/remote-task.js";\n' },
  { rule: "client-below-commands", file: "src/client/remote-task.ts", adds: 'import "../commands/run.js";\n' },
  { rule: "rest-grpc-not-jsonrpc", file: "src/http/rest.ts", adds: 'import "../jsonrpc/methods.js";\n' },
  { rule: "rest-grpc-not-jsonrpc", file: "src/http/serve.ts", adds: 'import "../jsonrpc/methods.js";\n' },
  { rule: "rest-grpc-not-jsonrpc", file: "src/grpc/binding.ts", adds: 'import "../jsonrpc/methods.js";\n' },
  { rule: "gate-before-bindings", file: "src/gate/request-gate.ts", adds: 'import "../jsonrpc/methods.js";\n' },
  { rule: "operations-binding-free", file: "src/operations/table.ts", adds: 'import "../serve/serve-root.js";\n' },
];

describe("the layering check", () => {
  // Each run of the check loads TypeScript: the three trees are checked at once.
  const broken = { ...CLEAN };
  for (const { file, adds } of BROKEN) broken[file] = `${adds}${broken[file]}`;
  const runs = Promise.all([check(ROOT), check(tree(CLEAN)), check(tree(broken))]);

  it("passes over the project's own source", async () => {
    const { status, report } = (await runs)[0];
    assert.equal(status, 0, report);
  });

  it("passes over a tree whose imports follow the layers", async () => {
    const { status, report } = (await runs)[1];
    assert.equal(status, 0, report);
    assert.match(report, /no dependency violations/);
  });

  it("fails over a tree with forbidden imports, naming each one with its rule", async () => {
    const { status, report } = (await runs)[2];
    assert.notEqual(status, 0, report);
    for (const { rule, file, adds } of BROKEN) {
      const target = /"(.*)"/
        .exec(adds)?.[1]
        ?.replace(/^\.\.\//, "src/")
        .replace(/\.js$/, ".ts") as string;
      assert.ok(report.includes(`error ${rule}: ${file} → ${target}`), `${rule}: ${file} → ${target}\n${report}`);
    }
    assert.match(report, new RegExp(`${BROKEN.length} dependency violations`));
  });
});
