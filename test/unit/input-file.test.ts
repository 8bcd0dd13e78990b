// CONTRACT section 2, input files: only regular files are read (a FIFO or a device is not_a_file, found without
// blocking), at most 4 MiB of UTF-8; `validate` takes a directory as its *.json files, recursively and sorted.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, describe, it } from "node:test";
import { errnoWords } from "../../src/commands/errno-words.js";
import { readInputFile, readInputStream } from "../../src/commands/input-file.js";
import { expandInputs } from "../../src/commands/input-paths.js";

const temp = mkdtempSync(join(tmpdir(), "adapter-command-input-"));
after(() => rmSync(temp, { recursive: true, force: true }));

const write = (path: string, text = "{}") => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
};
const codeOf = async (path: string) => {
  const read = await readInputFile(path);
  return read.ok ? "ok" : read.problem.code;
};

describe("readInputFile", () => {
  it("a FIFO with no writer is not_a_file, answered at once rather than waiting for a writer", async (t) => {
    const fifo = join(temp, "pipe.json");
    if (spawnSync("mkfifo", [fifo]).status !== 0) return t.skip("mkfifo is not available");
    const read = await readInputFile(fifo);
    assert.deepEqual(read, {
      ok: false,
      problem: { path: "", code: "not_a_file", message: "expected a regular file, found a FIFO (named pipe)" },
    });
  });
  it("a directory and a character device are not_a_file", async () => {
    assert.equal(await codeOf(temp), "not_a_file");
    assert.equal(await codeOf("/dev/null"), "not_a_file");
  });
  it("a symbolic link to a regular file is read", async () => {
    const target = write(join(temp, "target.json"), '{"a": 1}');
    const link = join(temp, "link.json");
    symlinkSync(target, link);
    assert.deepEqual(await readInputFile(link), { ok: true, text: '{"a": 1}' });
  });
  it("a missing file says so in words, not as an errno code", async () => {
    const read = await readInputFile(join(temp, "nope.json"));
    assert.equal(read.ok, false);
    if (read.ok) return;
    assert.equal(read.problem.code, "file_unreadable");
    assert.equal(read.problem.message, "expected a readable file, found nothing at that path");
  });
  it("the limit: exactly maxBytes is read, one more is file_too_large", async () => {
    const file = write(join(temp, "ten.json"), "0123456789");
    assert.equal(await codeOf(file), "ok");
    const read = await readInputFile(file, 9);
    assert.equal(read.ok ? "ok" : read.problem.code, "file_too_large");
  });
});

describe("readInputStream (validate -)", () => {
  it("reads the stream to its end", async () => {
    assert.deepEqual(await readInputStream(Readable.from([Buffer.from('{"a":'), Buffer.from("1}")])), {
      ok: true,
      text: '{"a":1}',
    });
  });
  it("stops at the limit, and refuses bytes that are not UTF-8", async () => {
    const endless = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(1024, 0x20);
      })(),
    );
    const tooLarge = await readInputStream(endless, 4096);
    assert.equal(tooLarge.ok ? "ok" : tooLarge.problem.code, "file_too_large");
    const latin1 = await readInputStream(Readable.from([Buffer.from([0x22, 0xe9, 0x22])]));
    assert.equal(latin1.ok ? "ok" : latin1.problem.code, "not_utf8");
  });
});

describe("expandInputs", () => {
  const tree = join(temp, "tree");
  write(join(tree, "b.json"));
  write(join(tree, "a.json"));
  write(join(tree, "notes.txt"));
  write(join(tree, "sub", "c.json"));
  write(join(tree, "sub", "deeper", "a.json"));
  write(join(tree, "a", "z.json"));
  mkdirSync(join(tree, "empty"));
  symlinkSync(tree, join(tree, "sub", "loop.json")); // a link back up, named like a file: never followed

  it("a directory: its *.json files, recursively, sorted; other files and links to directories left out", async () => {
    assert.deepEqual(
      (await expandInputs([tree])).map((input) => input.file),
      ["a.json", "a/z.json", "b.json", "sub/c.json", "sub/deeper/a.json"].map((name) => join(tree, name)),
    );
  });
  it("files and - pass as they are, in the order given, even when missing", async () => {
    assert.deepEqual(await expandInputs(["-", "x.json", "/nowhere/y.json"]), [
      { file: "-" },
      { file: "x.json" },
      { file: "/nowhere/y.json" },
    ]);
  });
  it("a directory without *.json files is a problem of its own", async () => {
    const [input] = await expandInputs([join(tree, "empty")]);
    assert.ok(input && "problem" in input);
    assert.equal(input.problem.code, "no_json_files");
  });
});

describe("errnoWords", () => {
  for (const code of ["ENOENT", "EACCES", "EISDIR", "ENOTDIR", "ELOOP"]) {
    it(`${code} is said in words`, () => {
      const words = errnoWords(Object.assign(new Error(`${code}: oops`), { code }));
      assert.doesNotMatch(words, /E[A-Z]{3,}/);
    });
  }
});
