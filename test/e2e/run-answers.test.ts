// `adapter-command run` answering prompts without a terminal (CONTRACT sections 4 and 6), through the built binary.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ADAPTER_URI as ADAPTER, HITL_URI as HITL } from "../../src/core/uris.js";
import { AT_ONCE, FIXTURES, runCli } from "../helpers/cli.js";
import { promptEnvelopeProblems } from "../helpers/hitl-schema.js";

const INTERACTIVE = ["--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"];
/** Far below every deadline used here: a run that needs it has hung. */
const RUN_LIMIT_MS = 40_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const scratch = mkdtempSync(join(tmpdir(), "run-answers-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
/** A bare envelope for the fixture runner `name`, written to a scratch file of its own (tests run at once). */
function envelopeFile(name: string, fields: Record<string, unknown> = {}): string {
  const file = join(scratch, `${++files}-${name}-${Object.keys(fields).join("-") || "plain"}.json`);
  const envelope = {
    adapter: "sandbox-agent-runner",
    mode: "assess",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
    working_dir: name,
    timeout_seconds: 60,
    ...fields,
  };
  writeFileSync(file, JSON.stringify(envelope));
  return file;
}

function run(args: string[], input = "") {
  return runCli(["run", ...args], { input, timeoutMs: RUN_LIMIT_MS });
}

function explain(result: { code: number | null; signal: string | null; stdout: string; stderr: string }): string {
  return `exit ${result.code} (signal ${result.signal})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

// Every test runs its own command on its own file (the examples are only read): the tests of a group run at once.
describe("run: answers from stdin and --answer", { timeout: 240_000, concurrency: AT_ONCE }, () => {
  it("echo y | run assess-interactive.json → exit 0", async () => {
    const result = await run(INTERACTIVE, "y\n");
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /Apply these 3 changes\? \[y\/N\] confirmed\n/);
  });

  it("echo n | run assess-interactive.json → exit 1, and stderr says the command exited with code 5", async () => {
    const result = await run(INTERACTIVE, "n\n");
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stderr, /code 5\b/);
    assert.doesNotMatch(result.stdout, /confirmed/);
  });

  it("--answer y with an empty stdin → exit 0", async () => {
    const result = await run(["--answer", "y", ...INTERACTIVE], "");
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /confirmed\n/);
  });

  it("--answer values come before stdin lines", async () => {
    const result = await run(["--answer", "y", ...INTERACTIVE], "n\n");
    assert.equal(result.code, 0, explain(result));
  });

  it("a refused --answer (a tab in it) is reported and the next one is tried on the same prompt", async () => {
    const result = await run(["--answer", "y\tes", "--answer", "y", ...INTERACTIVE], "");
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stderr, /could not answer "Apply these 3 changes\? \[y\/N\]": .*U\+0009/);
    assert.match(result.stdout, /confirmed\n/);
  });

  it("a refused stdin line (over 4096 bytes) is followed by the next line", async () => {
    const result = await run(INTERACTIVE, `${"y".repeat(5000)}\ny\n`);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stderr, /could not answer/);
  });

  it("when every answer is refused, the command's input is closed: no wait for the deadline", async () => {
    const file = envelopeFile("ask", { input_mode: "text-line", timeout_seconds: 300 });
    const result = await run(["--answer", "a\tb", "--answer", "c\u0001d", "--workspace", FIXTURES, file], "");
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stderr, /no answer left/);
  });

  it("--input-mode text-line turns prompts on for an envelope without input_mode (ask, --answer y) → exit 0", async () => {
    const file = envelopeFile("ask");
    const result = await run(["--workspace", FIXTURES, "--input-mode", "text-line", "--answer", "y", file]);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /answer: y\n/);
  });

  it("without --input-mode the same envelope gets no prompt: ask reads EOF at once → exit 1", async () => {
    const file = envelopeFile("ask");
    const result = await run(["--workspace", FIXTURES, "--answer", "y", file]);
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stdout, /no answer\n/);
  });

  it("no answers at all: the command reads EOF and the run ends (ask → exit 1), long before its deadline", async () => {
    const file = envelopeFile("ask", { input_mode: "text-line", timeout_seconds: 300 });
    const started = Date.now();
    const result = await run(["--workspace", FIXTURES, file], "");
    const elapsed = Date.now() - started;
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stdout, /no answer\n/);
    assert.ok(elapsed < 40_000, `took ${elapsed} ms (deadline 300 s)`);
  });

  it("no answers at all for assess-interactive: not confirmed → exit 1, not a wait for the 120 s deadline", async () => {
    const result = await run(INTERACTIVE, "");
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stderr, /code 5\b/);
  });
});

describe("run --json: the prompt as an A2A status-update", { timeout: 240_000, concurrency: AT_ONCE }, () => {
  it("shows input-required with the hitl-prompt/v1 envelope, then working and completed", async () => {
    const result = await run(["--json", "--answer", "y", ...INTERACTIVE]);
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.split("\n").filter((line) => line !== "");
    const events = lines.map((line) => JSON.parse(line));
    const statuses = events.filter((event) => event.kind === "status-update");
    const states = statuses.map((event) => event.status.state);
    const at = states.indexOf("input-required");
    assert.ok(at >= 0, `states: ${states.join(", ")}`);
    assert.deepEqual(states.slice(at), ["input-required", "working", "completed"]);

    const event = statuses[at];
    assert.equal(event.final, false);
    const message = event.status.message;
    assert.equal(message.kind, "message");
    assert.equal(message.role, "agent");
    assert.ok(Array.isArray(message.extensions) && message.extensions.includes(HITL), JSON.stringify(message));
    const envelope = message.metadata[HITL];
    assert.ok(envelope, JSON.stringify(message.metadata));
    assert.deepEqual(promptEnvelopeProblems(envelope), []);
    assert.match(envelope.prompt_id, UUID);
    assert.equal(envelope.prompt, "Apply these 3 changes? [y/N]");
    assert.deepEqual(message.parts, [{ kind: "text", text: envelope.prompt }]);
    assert.deepEqual(envelope.response_schema, {
      type: "object",
      additionalProperties: false,
      required: ["text"],
      properties: { text: { type: "string", maxLength: 4096 } },
    });
    assert.deepEqual(envelope.allowed_responders, ["any"]);
    const deadline = Date.parse(envelope.deadline);
    const shown = Date.parse(event.status.timestamp);
    assert.ok(deadline > shown, `deadline ${envelope.deadline} is not after ${event.status.timestamp}`);
    assert.ok(deadline - shown <= 120_000, "the deadline is the command's (timeout_seconds 120)");
    assert.ok(!(ADAPTER in message.metadata));

    assert.equal(statuses.at(-1).final, true);
    assert.equal(statuses.filter((e) => e.final).length, 1);
  });

  it("a prompt id is new on every run", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const result = await run(["--json", "--answer", "y", ...INTERACTIVE]);
      assert.equal(result.code, 0, explain(result));
      const prompt = result.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
        .find((event) => event.kind === "status-update" && event.status.state === "input-required");
      assert.ok(prompt);
      ids.push(prompt.status.message.metadata[HITL].prompt_id);
    }
    assert.notEqual(ids[0], ids[1]);
  });
});
