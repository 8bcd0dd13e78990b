// How the GetTask groups take turns (scripts/bench/fresh-rounds.mjs): every run on a server started for it and
// stopped after it, the targets in turn each round, and a server stopped even when its run fails.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { freshRounds } from "../../scripts/bench/fresh-rounds.mjs";

/** Stand-in servers that write what happens to them, in order, into `events`. */
function standIns(events: string[], names: string[]) {
  let started = 0;
  const targets: Record<string, () => Promise<{ name: string; n: number; stop(): Promise<void> }>> = {};
  for (const name of names)
    targets[name] = async () => {
      const n = ++started;
      events.push(`start ${name} #${n}`);
      return {
        name,
        n,
        stop: async () => {
          events.push(`stop ${name} #${n}`);
        },
      };
    };
  return targets;
}

describe("bench: fresh rounds", () => {
  it("takes turns, each run on its own server, stopped before the next starts", async () => {
    const events: string[] = [];
    await freshRounds(standIns(events, ["ours", "sdk"]), 2, async (name, server, round) => {
      events.push(`measure ${name} #${server.n} round ${round}`);
    });
    assert.deepEqual(events, [
      "start ours #1",
      "measure ours #1 round 0",
      "stop ours #1",
      "start sdk #2",
      "measure sdk #2 round 0",
      "stop sdk #2",
      "start ours #3",
      "measure ours #3 round 1",
      "stop ours #3",
      "start sdk #4",
      "measure sdk #4 round 1",
      "stop sdk #4",
    ]);
  });

  it("stops the server of a run that fails, and starts no other", async () => {
    const events: string[] = [];
    await assert.rejects(
      freshRounds(standIns(events, ["ours", "sdk"]), 3, async (name) => {
        if (name === "sdk") throw new Error("GetTask sdk: 3 failed");
      }),
      /3 failed/,
    );
    assert.deepEqual(events, ["start ours #1", "stop ours #1", "start sdk #2", "stop sdk #2"]);
  });
});
