// The rule for a task named by the start of its id (src/client/task-prefix.ts): at least 8 characters, and then the
// one task whose id it starts (or equals); several are refused with the candidates named, none is "not found".
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Connection } from "../../src/client/connect.js";
import type { ClientFailure } from "../../src/client/failures.js";
import { MIN_PREFIX, matchPrefix, resolveTaskId } from "../../src/client/task-prefix.js";

const hexId = fc.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}$/);

describe("matchPrefix", () => {
  it("for any ids and prefix: short below 8; else one, many or none exactly as the ids that start with it", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(hexId, { maxLength: 30 }),
        fc.nat(),
        fc.integer({ min: 0, max: 13 }),
        (ids, pick, length) => {
          const source = ids.length > 0 ? (ids[pick % ids.length] as string) : "0123456789abc";
          const prefix = source.slice(0, length);
          const match = matchPrefix(prefix, ids);
          if (prefix.length < MIN_PREFIX) return assert.deepEqual(match, { kind: "short" });
          const starting = ids.filter((id) => id.startsWith(prefix));
          if (ids.includes(prefix)) return assert.deepEqual(match, { kind: "one", id: prefix });
          if (starting.length === 0) return assert.deepEqual(match, { kind: "none" });
          if (starting.length === 1) return assert.deepEqual(match, { kind: "one", id: starting[0] });
          assert.equal(match.kind, "many");
          assert.deepEqual(new Set(match.kind === "many" ? match.ids : []), new Set(starting));
        },
      ),
    );
  });

  it("a whole id that is also the start of another names itself", () => {
    assert.deepEqual(matchPrefix("abcdefgh", ["abcdefgh-1", "abcdefgh"]), { kind: "one", id: "abcdefgh" });
  });
});

/** A connection whose ListTasks answers from `ids` in pages of `size`, counting the calls. */
function listing(ids: string[], size = 2) {
  const calls: string[] = [];
  const connection = {
    options: {},
    client: {
      async listTasks(request: { pageToken: string; pageSize: number }) {
        calls.push(request.pageToken);
        const from = Number(request.pageToken || 0);
        const tasks = ids.slice(from, from + size).map((id) => ({ id }));
        return { tasks, nextPageToken: from + size < ids.length ? String(from + size) : "" };
      },
    },
  } as unknown as Connection;
  return { connection, calls };
}

describe("resolveTaskId", () => {
  it("finds the one task across pages", async () => {
    const { connection, calls } = listing(["aaaaaaaa-1", "bbbbbbbb-1", "cccccccc-1", "dddddddd-1", "eeeeeeee-1"]);
    assert.equal(await resolveTaskId(connection, "dddddddd"), "dddddddd-1");
    assert.deepEqual(calls, ["", "2", "4"]);
  });

  it("a whole UUID is used as it is, without listing", async () => {
    const { connection, calls } = listing([]);
    const id = "96525a94-0b1c-4d7e-9f51-2320a5e17c3b";
    assert.equal(await resolveTaskId(connection, id), id);
    assert.deepEqual(calls, []);
  });

  it("ambiguous: refused, naming the candidates; none: task not found; short: a usage error", async () => {
    const { connection } = listing(["96525a94-1", "96525a94-2", "11111111-1"]);
    await assert.rejects(resolveTaskId(connection, "96525a94"), (error: ClientFailure) => {
      assert.equal(error.kind, "refused");
      assert.match(error.message, /"96525a94" is ambiguous: it starts 2 tasks' ids \(96525a94-1, 96525a94-2\)/);
      return true;
    });
    await assert.rejects(resolveTaskId(connection, "22222222"), /task not found/);
    await assert.rejects(resolveTaskId(connection, "9652"), (error: ClientFailure) => error.kind === "usage");
  });
});
