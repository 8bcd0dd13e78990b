// `serve --keep-tasks N` and `--keep-bytes N` (docs/reference.md, "Choices where the contract is silent"): the
// oldest ended tasks are forgotten past either limit, in the state dir and across its restarts, and in memory; a
// value out of range is a usage error naming what was expected and what was found.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { AT_ONCE, FIXTURES, runCli } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { tempDir } from "../helpers/state-dir.js";
import type { Wire } from "../helpers/wire.js";

const bridges: RpcBridge[] = [];
after(async () => {
  for (const bridge of bridges) await bridge.close();
});

async function bridgeWith(args: string[]): Promise<RpcBridge> {
  const bridge = startBridge({ args });
  bridges.push(bridge);
  await bridge.ready();
  return bridge;
}

/** Sends `count` commands that complete, one after the other; their ids, oldest first. */
async function completed(bridge: RpcBridge, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const task = await bridge.call("message/send", envelopeParams("ok"));
    assert.equal(task.status.state, "completed");
    ids.push(task.id);
  }
  return ids;
}

async function listed(bridge: RpcBridge): Promise<{ ids: string[]; totalSize: number }> {
  const page = (await bridge.call("tasks/list", { pageSize: 100 })) as Wire;
  return { ids: page.tasks.map((task: Wire) => task.id).sort(), totalSize: page.totalSize };
}

// Each test has its own bridge and state dir: the tests of a group run at once.
describe("serve --keep-tasks", { concurrency: AT_ONCE }, () => {
  it("--state-dir with --keep-tasks 2: after 3 ended tasks the oldest is gone, now and after a restart", async () => {
    const dir = tempDir();
    const args = ["--state-dir", dir, "--keep-tasks", "2"];
    const first = await bridgeWith(args);
    const ids = await completed(first, 3);
    assert.deepEqual(await listed(first), { ids: ids.slice(1).sort(), totalSize: 2 });
    const gone = await first.callError("tasks/get", { id: ids[0] });
    assert.equal(gone.code, -32001, "the oldest task is not found");
    await first.close();

    const again = await bridgeWith(args);
    assert.deepEqual(await listed(again), { ids: ids.slice(1).sort(), totalSize: 2 });
    const more = await completed(again, 1);
    assert.deepEqual(await listed(again), { ids: [ids[2], more[0]].sort(), totalSize: 2 });
  });

  it("without --state-dir, the memory store keeps as many as told too", async () => {
    const bridge = await bridgeWith(["--keep-tasks", "1"]);
    const ids = await completed(bridge, 2);
    assert.deepEqual(await listed(bridge), { ids: [ids[1]], totalSize: 1 });
  });

  it("a restart with a lower --keep-tasks forgets the oldest ended tasks at start", async () => {
    const dir = tempDir();
    const first = await bridgeWith(["--state-dir", dir]);
    const ids = await completed(first, 2);
    await first.close();
    // A restart with a limit of 1 forgets the older one at start; the default would have kept both.
    const again = await bridgeWith(["--state-dir", dir, "--keep-tasks", "1"]);
    assert.deepEqual(await listed(again), { ids: [ids[1]], totalSize: 1 });
  });
});

describe("serve --keep-bytes", { concurrency: AT_ONCE }, () => {
  it("a budget smaller than one task's bytes keeps only the task that ended last", async () => {
    const dir = tempDir();
    const bridge = await bridgeWith(["--state-dir", dir, "--keep-bytes", "1"]);
    const ids = await completed(bridge, 3);
    assert.deepEqual(await listed(bridge), { ids: [ids[2]], totalSize: 1 });
  });

  it("a large budget with a large --keep-tasks keeps every task", async () => {
    const dir = tempDir();
    const bridge = await bridgeWith(["--state-dir", dir, "--keep-tasks", "1000000", "--keep-bytes", "1099511627776"]);
    const ids = await completed(bridge, 3);
    assert.deepEqual(await listed(bridge), { ids: [...ids].sort(), totalSize: 3 });
  });
});

describe("serve --keep-tasks and --keep-bytes: values out of range are usage errors (exit 2)", {
  concurrency: AT_ONCE,
}, () => {
  for (const [flag, value, expected] of [
    ["--keep-tasks", "0", "from 1 to 1,000,000"],
    ["--keep-tasks", "1000001", "from 1 to 1,000,000"],
    ["--keep-tasks", "2.5", "from 1 to 1,000,000"],
    ["--keep-bytes", "0", "from 1 to 1,099,511,627,776"],
    ["--keep-bytes", "1MiB", "from 1 to 1,099,511,627,776"],
  ] as const) {
    it(`${flag} ${value}`, async () => {
      const result = await runCli(["serve", "--stdio", "--workspace", FIXTURES, flag, value]);
      assert.equal(result.code, 2, result.stderr);
      assert.ok(
        result.stderr.includes(
          `option '${flag} <n>' argument '${value}' is invalid. expected a whole number ${expected}, found "${value}"`,
        ),
        result.stderr,
      );
    });
  }
});
