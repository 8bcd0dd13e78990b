// ListTasks (1.0) and tasks/list (0.3) through `serve --stdio` (CONTRACT 7.4): newest status first, every filter,
// page size bounds, opaque page tokens that stay stable while tasks are added, artifacts only when asked for.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { assertV1 } from "../helpers/a2a-schema.js";
import { suiteBridge } from "../helpers/bridge.js";
import { echoParams, envelopeParams } from "../helpers/envelopes.js";
import { assertErrorV1 } from "../helpers/v1-errors.js";
import { paramsV1 } from "../helpers/v1-requests.js";
import type { Wire } from "../helpers/wire.js";

type Params = Record<string, unknown>;

/** Newest status timestamp first, ties by id descending: the order of CONTRACT 7.4. */
function inListOrder(tasks: Wire[]): boolean {
  return tasks.every((task, i) => {
    const next = tasks[i + 1];
    if (!next) return true;
    const [a, b] = [task.status.timestamp, next.status.timestamp];
    return a > b || (a === b && task.id > next.id);
  });
}

describe("serve --stdio: ListTasks and tasks/list", () => {
  const bridge = suiteBridge();
  const ids: Record<string, string> = {};
  const ctxA = `ctx-a-${process.pid}`;
  const ctxB = `ctx-b-${process.pid}`;

  /** A ListTasks page, checked as a "List Tasks Response" with every field present. */
  async function list(params: Params): Promise<Wire> {
    const response = await bridge().callRaw("ListTasks", params);
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    const page = response.result;
    assertV1("List Tasks Response", page);
    assert.deepEqual(Object.keys(page).sort(), ["nextPageToken", "pageSize", "tasks", "totalSize"]);
    assert.ok(inListOrder(page.tasks), "newest status first");
    return page;
  }

  /** Every page of ListTasks (or tasks/list) for `params`, walked by token. */
  async function pages(params: Params, method = "ListTasks"): Promise<Wire[]> {
    const walked: Wire[] = [];
    let pageToken = "";
    do {
      const page =
        method === "ListTasks"
          ? await list({ ...params, ...(pageToken ? { pageToken } : {}) })
          : await bridge().call(method, { ...params, ...(pageToken ? { pageToken } : {}) });
      walked.push(page);
      pageToken = page.nextPageToken;
    } while (pageToken !== "" && walked.length < 50);
    return walked;
  }

  const idsOf = (tasks: Wire[]) => tasks.map((task) => task.id);
  const listError = (params: Params, method = "ListTasks") => bridge().callError(method, params);

  // The tasks every test below lists: five in two contexts, completed, failed and one still working.
  before(async () => {
    const send = async (params: Params) => (await bridge().call("SendMessage", params)).task;
    ids.a1 = (await send(paramsV1(echoParams("a1", { contextId: ctxA })))).id;
    ids.a2 = (await send(paramsV1(echoParams("a2", { contextId: ctxA })))).id;
    ids.ok = (await send(paramsV1(envelopeParams("ok", { contextId: ctxB })))).id;
    ids.exit3 = (await send(paramsV1(envelopeParams("exit3", { contextId: ctxB })))).id;
    const hang = envelopeParams("hang", { contextId: ctxB, envelope: { timeout_seconds: 60 } });
    const working = await send({ ...paramsV1(hang), configuration: { returnImmediately: true } });
    ids.hang = working.id;
    for (;;) {
      const task = await bridge().call("GetTask", { id: ids.hang });
      if (task.status.state === "TASK_STATE_WORKING") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it("no filter: all five, totalSize 5, the default pageSize 50, nextPageToken empty, no artifacts", async () => {
    const page = await list({});
    assert.deepEqual(idsOf(page.tasks).sort(), Object.values(ids).sort());
    assert.equal(page.totalSize, 5);
    assert.equal(page.pageSize, 50);
    assert.equal(page.nextPageToken, "");
    for (const task of page.tasks) {
      assert.equal(task.artifacts, undefined, "artifacts are left out by default");
      assert.equal(task.history?.length, 1);
    }
    assert.equal(page.tasks[0].id, ids.hang, "the task whose status changed last comes first");
  });

  it('pageSize 2: pages of 2, 2 and 1, in the same order, totalSize on each, nextPageToken "" on the last', async () => {
    const all = idsOf((await list({})).tasks);
    const walked = await pages({ pageSize: 2 });
    assert.deepEqual(
      walked.map((page) => page.tasks.length),
      [2, 2, 1],
    );
    assert.deepEqual(
      walked.flatMap((page) => idsOf(page.tasks)),
      all,
    );
    for (const page of walked) {
      assert.equal(page.totalSize, 5);
      assert.equal(page.pageSize, 2);
    }
    assert.ok(walked.slice(0, -1).every((page) => page.nextPageToken !== ""));
    assert.equal(walked.at(-1)?.nextPageToken, "");
  });

  it("paging is stable while tasks are added: the pages after the first still give exactly the rest", async () => {
    const all = idsOf((await list({})).tasks);
    const first = await list({ pageSize: 2 });
    const added = [
      (await bridge().call("SendMessage", paramsV1(echoParams("late 1")))).task.id,
      (await bridge().call("SendMessage", paramsV1(echoParams("late 2")))).task.id,
    ];
    let rest: string[] = [];
    let pageToken = first.nextPageToken;
    while (pageToken !== "") {
      const page = await list({ pageSize: 2, pageToken });
      assert.equal(page.totalSize, 7, "totalSize counts the tasks added meanwhile");
      rest = [...rest, ...idsOf(page.tasks)];
      pageToken = page.nextPageToken;
    }
    assert.deepEqual([...idsOf(first.tasks), ...rest], all, "no task twice, none missed");
    // Both may end in the same millisecond, and ties go by id (src/core/task/list-query.ts): compared as a set.
    assert.deepEqual(
      idsOf((await list({ pageSize: 2 })).tasks).sort(),
      [...added].sort(),
      "a new first page shows them",
    );
    ids.late1 = added[0] as string;
    ids.late2 = added[1] as string;
  });

  it("contextId: only that context's tasks; an unknown one gives an empty last page", async () => {
    assert.deepEqual(idsOf((await list({ contextId: ctxA })).tasks).sort(), [ids.a1, ids.a2].sort());
    const b = await list({ context_id: ctxB });
    assert.deepEqual(idsOf(b.tasks).sort(), [ids.ok, ids.exit3, ids.hang].sort());
    assert.equal(b.totalSize, 3);
    const none = await list({ contextId: "no-such-context" });
    assert.deepEqual([none.tasks, none.totalSize, none.nextPageToken], [[], 0, ""]);
  });

  it("status: a 1.0 state name filters, with contextId too; a 0.3 name or a stranger is -32602", async () => {
    assert.deepEqual(idsOf((await list({ status: "TASK_STATE_WORKING" })).tasks), [ids.hang]);
    assert.deepEqual(idsOf((await list({ status: "TASK_STATE_FAILED" })).tasks), [ids.exit3]);
    const completed = await list({ status: "TASK_STATE_COMPLETED", contextId: ctxB });
    assert.deepEqual(idsOf(completed.tasks), [ids.ok]);
    assert.equal((await list({ status: "TASK_STATE_COMPLETED" })).totalSize, 5);
    assert.equal((await list({ status: "TASK_STATE_UNSPECIFIED" })).totalSize, 7, "unspecified filters nothing");
    for (const status of ["completed", "TASK_STATE_DONE", 3]) {
      const error = await listError({ status });
      assert.equal(
        assertErrorV1(error, -32602, "INVALID_PARAMS").violations?.[0]?.field,
        "/status",
        JSON.stringify(error),
      );
    }
  });

  it("statusTimestampAfter: the tasks whose status changed at or after it; not RFC 3339 is -32602", async () => {
    const all: Wire[] = (await list({})).tasks;
    const at = all[3].status.timestamp as string;
    const expected = idsOf(all.filter((task) => task.status.timestamp >= at));
    assert.deepEqual(idsOf((await list({ statusTimestampAfter: at })).tasks), expected);
    assert.deepEqual(idsOf((await list({ status_timestamp_after: at })).tasks), expected);
    assert.equal((await list({ statusTimestampAfter: "2999-01-01T00:00:00Z" })).totalSize, 0);
    assert.equal((await list({ statusTimestampAfter: "2000-01-01T00:00:00+02:00" })).totalSize, all.length);
    for (const value of ["yesterday", "2024-13-45T00:00:00Z", "1700000000"]) {
      const error = await listError({ statusTimestampAfter: value });
      const field = assertErrorV1(error, -32602, "INVALID_PARAMS").violations?.[0]?.field;
      assert.equal(field, "/statusTimestampAfter", `${value}: ${JSON.stringify(error)}`);
    }
  });

  it("pageSize out of 1..100 (or not a whole number) is -32602; 1 and 100 are served", async () => {
    assert.equal((await list({ pageSize: 1 })).tasks.length, 1);
    assert.equal((await list({ page_size: 100 })).pageSize, 100);
    for (const pageSize of [0, 101, -1, 1.5, "10"]) {
      const error = await listError({ pageSize });
      const field = assertErrorV1(error, -32602, "INVALID_PARAMS").violations?.[0]?.field;
      assert.equal(field, "/pageSize", `${pageSize}: ${JSON.stringify(error)}`);
    }
  });

  it("a pageToken that is not one of ours is -32602", async () => {
    const forged = Buffer.from(JSON.stringify({ not: "a cursor" })).toString("base64url");
    for (const pageToken of ["garbage", forged, "!!!", 7]) {
      const error = await listError({ pageToken });
      const field = assertErrorV1(error, -32602, "INVALID_PARAMS").violations?.[0]?.field;
      assert.equal(field, "/pageToken", `${pageToken}: ${JSON.stringify(error)}`);
    }
  });

  it("includeArtifacts (include_artifacts) adds the artifacts; historyLength 0 leaves history out", async () => {
    for (const params of [{ includeArtifacts: true }, { include_artifacts: true }]) {
      const task = (await list({ ...params, contextId: ctxA, pageSize: 1 })).tasks[0];
      assert.equal(task.artifacts[0].parts[0].text, "a2\n");
    }
    for (const task of (await list({ historyLength: 0, includeArtifacts: false })).tasks) {
      assert.equal(task.history, undefined);
      assert.equal(task.artifacts, undefined);
    }
  });

  it("tasks/list (0.3) takes the same filters and answers with 0.3 tasks", async () => {
    const all = await bridge().call("tasks/list", {});
    assert.deepEqual(Object.keys(all).sort(), ["nextPageToken", "pageSize", "tasks", "totalSize"]);
    assert.equal(all.totalSize, 7);
    assert.ok(inListOrder(all.tasks));
    for (const task of all.tasks) {
      assert.equal(task.kind, "task");
      assert.equal(task.artifacts, undefined);
    }
    const walked = await pages({ pageSize: 3 }, "tasks/list");
    assert.deepEqual(
      walked.flatMap((page) => idsOf(page.tasks)),
      idsOf(all.tasks),
    );
    assert.deepEqual(idsOf((await bridge().call("tasks/list", { status: "working" })).tasks), [ids.hang]);
    const inA = await bridge().call("tasks/list", { contextId: ctxA, status: "completed", includeArtifacts: true });
    assert.deepEqual(idsOf(inA.tasks).sort(), [ids.a1, ids.a2].sort());
    assert.ok(inA.tasks.every((task: Wire) => task.artifacts[0].parts[0].kind === "text"));
    const at = all.tasks[2].status.timestamp as string;
    const after = await bridge().call("tasks/list", { statusTimestampAfter: at });
    assert.deepEqual(idsOf(after.tasks), idsOf(all.tasks.filter((task: Wire) => task.status.timestamp >= at)));
    for (const params of [
      { status: "TASK_STATE_WORKING" },
      { pageSize: 0 },
      { pageSize: 101 },
      { pageToken: "garbage" },
      { statusTimestampAfter: "soon" },
    ]) {
      const error = await listError(params, "tasks/list");
      assert.equal(error.code, -32602, JSON.stringify(error));
      assert.ok(!Array.isArray(error.data) && error.data.errors.length > 0, "0.3 data: { errors }");
    }
  });

  it("the working task is canceled; every stdout line was JSON-RPC 2.0", async () => {
    assert.equal((await bridge().call("CancelTask", { id: ids.hang })).status.state, "TASK_STATE_CANCELED");
    assert.deepEqual(bridge().protocolProblems, []);
  });
});
