// Hostile input that a shell would interpret (CONTRACT 3.2: no shell, ever; the arguments are an array) and hostile
// output that would confuse a terminal or the protocol, through a real bridge.
import assert from "node:assert/strict";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI as ADAPTER, HITL_URI as HITL } from "../../src/core/uris.js";
import { RpcBridge } from "../helpers/bridge.js";
import { FIXTURES } from "../helpers/cli.js";
import { envelopeParams, RUNNER } from "../helpers/envelopes.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const temp = mkdtempSync(join(tmpdir(), "adapter-command-hostile-"));
process.once("exit", () => rmSync(temp, { recursive: true, force: true }));

/** Every command a shell would run out of these strings touches a file named PWNED in the working directory. */
const SHELLISH = "x;touch PWNED;$(touch PWNED)`touch PWNED`|touch PWNED&&touch PWNED||touch PWNED>PWNED 'a' \"b\" *";
const DIR_NAME = "dir ;$(touch PWNED)`touch PWNED`&|'\"";

describe("hostile input: shell metacharacters reach the runner literally", () => {
  const workspace = join(temp, "workspace");
  let bridge: RpcBridge;
  before(() => {
    mkdirSync(workspace);
    cpSync(join(FIXTURES, "env"), join(workspace, DIR_NAME), { recursive: true });
    bridge = new RpcBridge({ workspace });
  });
  after(() => bridge.kill());

  it("in REQUEST, the message text and working_dir: argv, env and cwd are exactly what was sent; nothing else ran", async () => {
    const request = `.aiwg/ops/runs/${SHELLISH}.json`;
    writeFileSync(join(workspace, DIR_NAME, request), "{}\n");
    const params = envelopeParams(DIR_NAME, {
      text: SHELLISH,
      envelope: { command: ["node", RUNNER, "--request", request] },
    });
    const task: Wire = await bridge.call("message/send", params);
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    const seen = JSON.parse(artifactText(task, "stdout"));
    assert.deepEqual(seen.argv, ["--request", request]);
    assert.equal(seen.AIWG_A2A_MESSAGE, SHELLISH);
    assert.equal(seen.cwd, join(workspace, DIR_NAME));
    assert.equal(seen.PATH, process.env.PATH);
    for (const dir of [workspace, join(workspace, DIR_NAME), process.cwd()])
      assert.ok(!existsSync(join(dir, "PWNED")), `no PWNED in ${dir}: ${readdirSync(dir).join(", ")}`);
  });

  it("a command that is not the allowlisted one (a shell, another script) is rejected before anything runs", async () => {
    const tries = [
      ["sh", "-c", "touch PWNED", ".aiwg/ops/runs/req.json"],
      ["node", "-e", "require('fs').writeFileSync('PWNED','')", ".aiwg/ops/runs/req.json"],
      [
        "node",
        ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
        "--request",
        ".aiwg/ops/runs/req.json;touch PWNED",
        "x",
      ],
    ];
    for (const command of tries) {
      const response = await bridge.callRaw("message/send", envelopeParams(DIR_NAME, { envelope: { command } }));
      assert.equal(response.error?.code, -32602, JSON.stringify(response));
      assert.match(response.error.message, /^adapter-command\/v1 rejected:/);
    }
    const list = await bridge.call("tasks/list");
    assert.equal(list.tasks.length, 1, "only the task of the previous test exists");
    assert.ok(!existsSync(join(workspace, DIR_NAME, "PWNED")));
  });

  it("the bridge exits 0", async () => {
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});

describe("hostile PATH: the command's node is the tool's own (process.execPath), never looked up", () => {
  const bin = join(temp, "bin");
  const marker = join(temp, "fake-node-ran");
  const path = `${bin}:${process.env.PATH ?? ""}`;
  let bridge: RpcBridge;
  before(() => {
    mkdirSync(bin);
    writeFileSync(join(bin, "node"), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
    chmodSync(join(bin, "node"), 0o755);
    bridge = new RpcBridge({ env: { PATH: path } });
  });
  after(() => bridge.kill());

  it("a fake node first on PATH is not run; PATH reaches the runner unchanged", async () => {
    const task: Wire = await bridge.call("message/send", envelopeParams("env"));
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    const seen = JSON.parse(artifactText(task, "stdout"));
    assert.equal(seen.PATH, path);
    assert.ok(!existsSync(marker), "the fake node on PATH never ran");
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});

describe("hostile output: escapes and fake protocol lines from the runner", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge();
  });
  after(() => bridge.kill());

  it("the prompt is raised with its escapes stripped; the fake lines stay in the artifacts, never on the protocol", async () => {
    const params = envelopeParams("hostile-output", { envelope: { input_mode: "text-line" }, extensions: HITL });
    const task: Wire = await bridge.call("message/send", params);
    assert.equal(task.status.state, "input-required", JSON.stringify(task.status));
    const envelope = task.status.message.metadata[HITL];
    assert.equal(envelope.prompt, "Do you want to proceed? [y/N]");
    assert.equal(task.status.message.parts[0].text, "Do you want to proceed? [y/N]");
    // The child's own bytes are kept as they came, as data inside the artifact.
    assert.ok(artifactText(task, "stdout").includes("\u001b]0;owned\u0007"));
    assert.ok(artifactText(task, "stdout").startsWith('{"jsonrpc":"2.0","id":1'));

    const answer = await bridge.callRaw("message/send", {
      message: {
        kind: "message",
        messageId: "a-1",
        role: "user",
        parts: [{ kind: "text", text: "y" }],
        taskId: task.id,
        contextId: task.contextId,
        metadata: { hitl_response_for: { prompt_id: envelope.prompt_id, payload: { text: "y" } } },
      },
    });
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    for (let i = 0; i < 100; i++) {
      const got = await bridge.call("tasks/get", { id: task.id });
      if (got.status.state === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const done = await bridge.call("tasks/get", { id: task.id });
    assert.equal(done.status.state, "completed");
    assert.equal(done.metadata[ADAPTER].exit_code, 0);

    // Every protocol line is the bridge's: responses to our ids, or tasks/event notifications; never the fake one.
    assert.deepEqual(bridge.protocolProblems, []);
    assert.deepEqual(bridge.pendingRawResponses(), [], "no response to an id we did not send");
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});
