// The reader of the README's examples (test/helpers/readme-blocks.ts): the shell forms it turns into argv arrays,
// the forms it refuses (so the README stays runnable without a shell), and the markers before a block.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseMarker, parseShell, readmeBlocks, wordText } from "../helpers/readme-blocks.js";

/** Each command line as its pipelines' stages' argv, `$(cat F)` read as `<F>`. */
function argvs(block: string) {
  return parseShell(block).map((line) =>
    line.map((pipeline) =>
      pipeline.map((stage) => ({
        argv: stage.argv.map((word) => wordText(word, (file) => `<${file}>`)),
        ...(stage.stdoutTo ? { to: stage.stdoutTo } : {}),
      })),
    ),
  );
}

describe("the README's shell forms", () => {
  it("splits words on blanks, keeps quoted text whole, drops comments and joins continued lines", () => {
    assert.deepEqual(argvs(`node -e "a 'b' \\"c\\"" 'x "y"' plain  # a comment\ncurl -s \\\n  -H 'A: b'`), [
      [[{ argv: ["node", "-e", `a 'b' "c"`, 'x "y"', "plain"] }]],
      [[{ argv: ["curl", "-s", "-H", "A: b"] }]],
    ]);
  });

  it("reads $(cat FILE) when the command runs, pipes with |, chains with && and redirects with >", () => {
    assert.deepEqual(argvs(`curl -H "Bearer $(cat token)" | tail && openssl rand -hex 32 > token`), [
      [
        [{ argv: ["curl", "-H", "Bearer <token>"] }, { argv: ["tail"] }],
        [{ argv: ["openssl", "rand", "-hex", "32"], to: "token" }],
      ],
    ]);
  });

  it("refuses what only a shell would do", () => {
    for (const line of ["echo $HOME", "a; b", "serve &", "a < file", "ls *.json", "echo `date`", "echo 'open", "a |"])
      assert.throws(() => parseShell(line), /the README's shell form/, line);
  });
});

describe("the README's blocks and markers", () => {
  it("finds each fenced block with its language, line and the marker just before it", () => {
    const blocks = readmeBlocks(
      "# t\n\n```sh\na\n```\n\n<!-- readme-test: exit 1 -->\n```console\n$ b\nout\n```\n```text\nx\n```\n",
    );
    assert.deepEqual(
      blocks.map((block) => [block.lang, block.line, block.text, block.marker]),
      [
        ["sh", 3, "a", {}],
        ["console", 8, "$ b\nout", { exit: 1 }],
        ["text", 12, "x", {}],
      ],
    );
  });

  it("reads every marker form, and refuses one it does not know", () => {
    assert.deepEqual(parseMarker('server, ready at "console"'), { readyAt: "console" });
    assert.deepEqual(parseMarker('stdin "y" (a keypress)'), { stdin: "y\n" });
    assert.deepEqual(parseMarker('only "npm start" (the rest is the install)'), { only: "npm start" });
    assert.deepEqual(parseMarker("skip (why)"), { skip: true });
    assert.throws(() => parseMarker("server"), /ready at/);
    assert.throws(() => parseMarker("sometimes"), /expected a readme-test marker/);
  });
});
