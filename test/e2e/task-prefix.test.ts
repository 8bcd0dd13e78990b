// Short ids (issue 49, item 4): the console and `tasks list` show 8 characters, and every `tasks` command that takes
// an id (show, watch, answer, cancel) takes a unique prefix of at least 8 characters; a shorter one is refused with
// words saying so, one that names no task says "task not found". Against a real `serve --http`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { HITL_URI, type HttpServer, send10, startHttp } from "../helpers/http-server.js";

function explain(result: { code: number | null; stdout: string; stderr: string }): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

describe("tasks with an id prefix, against serve --http", { timeout: 120_000 }, () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--settle-ms", "100", "--quiet"]);
  });
  after(async () => {
    await server?.close();
  });
  const tasks = (args: string[]) =>
    runCli(["tasks", ...args, "--server", server.url, "--token-file", String(server.start.tokenFile)], {
      timeoutMs: 30_000,
    });
  const send = async (envelope: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const sent = await server.call("SendMessage", send10("go", { envelope }), headers);
    return sent.task.id as string;
  };

  it("show and watch take the first 8 characters of an ended task's id", async () => {
    // Another task, so the prefix has to pick one among several.
    await send({ working_dir: "ok" });
    const id = await send({ working_dir: "ok" });
    const shown = await tasks(["show", id.slice(0, 8), "--json", "id,state"]);
    assert.equal(shown.code, 0, explain(shown));
    assert.deepEqual(JSON.parse(shown.stdout), { id, state: "completed" });
    const longer = await tasks(["show", id.slice(0, 13), "--json", "id"]);
    assert.equal(JSON.parse(longer.stdout).id, id, explain(longer));
    const watched = await tasks(["watch", id.slice(0, 8), "--no-tui"]);
    assert.equal(watched.code, 0, explain(watched));
  });

  it("answer and cancel take a prefix too", async () => {
    const asking = await send({ working_dir: "ask", input_mode: "text-line" }, { "A2A-Extensions": HITL_URI });
    const answered = await tasks(["answer", asking.slice(0, 8), "y", "--json", "id"]);
    assert.equal(answered.code, 0, explain(answered));
    assert.equal(JSON.parse(answered.stdout).id, asking);
    const sent = await server.call(
      "SendMessage",
      send10("go", {
        envelope: { working_dir: "hang", timeout_seconds: 60 },
        configuration: { returnImmediately: true },
      }),
    );
    const hanging = sent.task.id as string;
    const canceled = await tasks(["cancel", hanging.slice(0, 10)]);
    assert.equal(canceled.code, 0, explain(canceled));
    assert.match(canceled.stderr, new RegExp(`task ${hanging} is canceled`));
  });

  it("shorter than 8 characters: refused with words (exit 2); no match: task not found (exit 1)", async () => {
    for (const args of [
      ["show", "96525a9"],
      ["cancel", "96525a9"],
      ["answer", "96525a9", "y"],
    ]) {
      const short = await tasks(args);
      assert.equal(short.code, 2, explain(short));
      assert.match(short.stderr, /the first 8 or more characters of one, found "96525a9" \(7 characters\)/);
    }
    const watch = await tasks(["watch", "abc", "--no-tui"]);
    assert.equal(watch.code, 2, explain(watch));
    assert.match(watch.stderr, /the first 8 or more characters/);
    const none = await tasks(["show", "zzzzzzzz"]);
    assert.equal(none.code, 1, explain(none));
    assert.match(none.stderr, /no task has an id that starts with "zzzzzzzz": task not found/);
  });

  it("watch agrees with show on a task the server does not have: exit 1, a prefix or a whole id", async () => {
    for (const command of [["show"], ["watch", "--no-tui"]]) {
      const [verb, ...flags] = command;
      const prefix = await tasks([verb as string, "zzzzzzzz", ...flags]);
      assert.equal(prefix.code, 1, `${verb}: ${explain(prefix)}`);
      assert.match(prefix.stderr, /no task has an id that starts with "zzzzzzzz": task not found/);
      const whole = await tasks([verb as string, "00000000-0000-4000-8000-000000000000", ...flags]);
      assert.equal(whole.code, 1, `${verb}: ${explain(whole)}`);
    }
  });
});
