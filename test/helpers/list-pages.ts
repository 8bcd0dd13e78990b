// Every task a list method gives, page after page (CONTRACT 7.4), for tests that need them all.
import assert from "node:assert/strict";
import type { RpcBridge } from "./bridge.js";
import type { Wire } from "./wire.js";

/** The tasks of every page of `method` (`tasks/list` or `ListTasks`) for `params`, in order. */
export async function allTasks(bridge: RpcBridge, params: Record<string, unknown> = {}, method = "tasks/list") {
  const tasks: Wire[] = [];
  let pageToken = "";
  for (let page = 0; page < 1000; page++) {
    const result = await bridge.call(method, { ...params, pageSize: 100, ...(pageToken ? { pageToken } : {}) });
    tasks.push(...result.tasks);
    pageToken = result.nextPageToken;
    if (pageToken === "") return tasks;
  }
  assert.fail(`${method} gave more than 1000 pages`);
}
