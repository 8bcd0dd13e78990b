// The push notification config operations of both families (CONTRACT 7.1, 9.3): 1.0 Create/Get/List/Delete
// TaskPushNotificationConfig with 1.0 shapes, 0.3 tasks/pushNotificationConfig/set|get|list|delete with 0.3 shapes.

import * as v from "valibot";
import { invalidParams, PageSize, parseParams } from "../a2a/decode.js";
import { config03, config10, configRequestOf, requireParams, taskIdOf } from "../a2a/push/config-wire.js";
import type { PushService } from "../a2a/push/push-service.js";
import type { A2aService } from "../a2a/service.js";
import { CoreError } from "../core/errors.js";
import type { OperationEntry } from "./operation.js";

function pushOf(service: A2aService): PushService {
  if (!service.push) throw new CoreError("push_not_supported", "push notifications are not supported");
  return service.push;
}

function configIdOf(params: Record<string, unknown>, field: string): string {
  const value = params[field];
  if (typeof value !== "string" || value === "")
    throw invalidParams([
      {
        path: `/${field}`,
        code: "missing_field",
        message: `expected ${field} (the config's id), found ${value === undefined ? "nothing" : JSON.stringify(value)}`,
      },
    ]);
  return value;
}

const ConfigPageSchema = v.looseObject({ pageSize: PageSize, pageToken: v.optional(v.string()) });

/**
 * ListTaskPushNotificationConfigs pages (a task has at most 16 configs). The token is the task's id and an offset,
 * so a token from one task's list is refused on another's, as a ListTasks token is only good for its own listing.
 */
function page(taskId: string, params: Record<string, unknown>, total: number): { from: number; to: number } {
  const { pageSize, pageToken } = parseParams(ConfigPageSchema, params);
  let from = 0;
  if (pageToken !== undefined && pageToken !== "") {
    const offset = offsetOf(pageToken, taskId);
    if (offset === undefined || offset > total)
      throw invalidParams([
        {
          path: "/pageToken",
          code: "invalid_value",
          message: `expected a pageToken from a previous page of task ${taskId}'s configs, found another string`,
        },
      ]);
    from = offset;
  }
  return { from, to: pageSize === undefined ? total : Math.min(total, from + pageSize) };
}

const configPageToken = (taskId: string, offset: number): string =>
  Buffer.from(JSON.stringify([taskId, offset])).toString("base64url");

/** The offset a token of `taskId`'s list holds, or undefined for any other string. */
function offsetOf(token: string, taskId: string): number | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2 || value[0] !== taskId) return undefined;
    const offset: unknown = value[1];
    return typeof offset === "number" && Number.isInteger(offset) && offset >= 0 ? offset : undefined;
  } catch {
    return undefined;
  }
}

/** The four push config operations, each in both families. */
export const PUSH_OPERATIONS: readonly OperationEntry[] = [
  {
    "0.3": {
      name: "tasks/pushNotificationConfig/set",
      run: async ({ service }, params) => {
        const object = requireParams(params, "0.3");
        const taskId = taskIdOf(object, "taskId");
        const push = pushOf(service);
        const path = "/pushNotificationConfig";
        service.head(taskId); // an unknown task is refused before its config is read
        const config = configRequestOf(object.pushNotificationConfig, path, "0.3");
        return config03(await push.create(taskId, config, "0.3", path));
      },
    },
    "1.0": {
      name: "CreateTaskPushNotificationConfig",
      run: async ({ service }, params) => {
        const object = requireParams(params, "1.0");
        const push = pushOf(service);
        const taskId = taskIdOf(object, "taskId");
        service.head(taskId); // an unknown task is refused before its config is read
        return config10(await push.create(taskId, configRequestOf(object, "", "1.0"), "1.0", ""));
      },
    },
  },
  {
    "0.3": {
      name: "tasks/pushNotificationConfig/get",
      run: ({ service }, params) => {
        const object = requireParams(params, "0.3");
        const taskId = taskIdOf(object, "id");
        const push = pushOf(service);
        // Without a config id, 0.3 names the task's one config: the first.
        if (object.pushNotificationConfigId === undefined) {
          const first = push.list(taskId)[0];
          if (!first)
            throw new CoreError("task_not_found", `task ${taskId} has no push notification config`, {
              task_id: taskId,
            });
          return config03(first);
        }
        return config03(push.get(taskId, configIdOf(object, "pushNotificationConfigId")));
      },
    },
    "1.0": {
      name: "GetTaskPushNotificationConfig",
      run: ({ service }, params) => {
        const object = requireParams(params, "1.0");
        return config10(pushOf(service).get(taskIdOf(object, "taskId"), configIdOf(object, "id")));
      },
    },
  },
  {
    "0.3": {
      name: "tasks/pushNotificationConfig/list",
      run: ({ service }, params) => {
        const object = requireParams(params, "0.3");
        return pushOf(service).list(taskIdOf(object, "id")).map(config03);
      },
    },
    "1.0": {
      name: "ListTaskPushNotificationConfigs",
      run: ({ service }, params) => {
        const object = requireParams(params, "1.0");
        const taskId = taskIdOf(object, "taskId");
        const configs = pushOf(service).list(taskId);
        const { from, to } = page(taskId, object, configs.length);
        const nextPageToken = to < configs.length ? configPageToken(taskId, to) : "";
        return { configs: configs.slice(from, to).map(config10), nextPageToken };
      },
    },
  },
  {
    "0.3": {
      name: "tasks/pushNotificationConfig/delete",
      run: ({ service }, params) => {
        const object = requireParams(params, "0.3");
        pushOf(service).delete(taskIdOf(object, "id"), configIdOf(object, "pushNotificationConfigId"));
        return null;
      },
    },
    "1.0": {
      name: "DeleteTaskPushNotificationConfig",
      run: ({ service }, params) => {
        const object = requireParams(params, "1.0");
        pushOf(service).delete(taskIdOf(object, "taskId"), configIdOf(object, "id"));
        return {};
      },
    },
  },
];
