// The push notification config methods of both families (CONTRACT 7.1, 9.3): 1.0 Create/Get/List/Delete
// TaskPushNotificationConfig with 1.0 shapes, 0.3 tasks/pushNotificationConfig/set|get|list|delete with 0.3 shapes.

import { invalidParams } from "../a2a/decode.js";
import { config03, config10, requireParams, taskIdOf } from "../a2a/push/config-wire.js";
import type { PushService } from "../a2a/push/push-service.js";
import type { A2aService } from "../a2a/service.js";
import { CoreError } from "../core/errors.js";

type Method = (params: unknown) => unknown;

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

/** ListTaskPushNotificationConfigs pages: an offset as the token (a task has at most 16 configs). */
function page(params: Record<string, unknown>, total: number): { from: number; to: number } {
  const { pageSize, pageToken } = params;
  let from = 0;
  if (pageToken !== undefined && pageToken !== "") {
    if (typeof pageToken !== "string" || !/^\d{1,3}$/.test(pageToken) || Number(pageToken) > total)
      throw invalidParams([
        {
          path: "/pageToken",
          code: "invalid_value",
          message: "expected a pageToken from a previous page, found another value",
        },
      ]);
    from = Number(pageToken);
  }
  if (pageSize === undefined || pageSize === 0) return { from, to: total };
  if (typeof pageSize !== "number" || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
    throw invalidParams([
      {
        path: "/pageSize",
        code: "invalid_value",
        message: `expected pageSize from 1 to 100, found ${JSON.stringify(pageSize)}`,
      },
    ]);
  return { from, to: Math.min(total, from + pageSize) };
}

export function pushMethods10(service: A2aService): Record<string, Method> {
  return {
    CreateTaskPushNotificationConfig: async (params) => {
      const object = requireParams(params, "1.0");
      return config10(await pushOf(service).create(taskIdOf(object, "taskId"), object, "1.0", ""));
    },
    GetTaskPushNotificationConfig: (params) => {
      const object = requireParams(params, "1.0");
      return config10(pushOf(service).get(taskIdOf(object, "taskId"), configIdOf(object, "id")));
    },
    ListTaskPushNotificationConfigs: (params) => {
      const object = requireParams(params, "1.0");
      const configs = pushOf(service).list(taskIdOf(object, "taskId"));
      const { from, to } = page(object, configs.length);
      return { configs: configs.slice(from, to).map(config10), nextPageToken: to < configs.length ? String(to) : "" };
    },
    DeleteTaskPushNotificationConfig: (params) => {
      const object = requireParams(params, "1.0");
      pushOf(service).delete(taskIdOf(object, "taskId"), configIdOf(object, "id"));
      return {};
    },
  };
}

export function pushMethods03(service: A2aService): Record<string, Method> {
  return {
    "tasks/pushNotificationConfig/set": async (params) => {
      const object = requireParams(params, "0.3");
      const taskId = taskIdOf(object, "taskId");
      const inner = object.pushNotificationConfig;
      return config03(await pushOf(service).create(taskId, inner, "0.3", "/pushNotificationConfig"));
    },
    "tasks/pushNotificationConfig/get": (params) => {
      const object = requireParams(params, "0.3");
      const taskId = taskIdOf(object, "id");
      const push = pushOf(service);
      // Without a config id, 0.3 names the task's one config: the first.
      if (object.pushNotificationConfigId === undefined) {
        const first = push.list(taskId)[0];
        if (!first)
          throw new CoreError("task_not_found", `task ${taskId} has no push notification config`, { task_id: taskId });
        return config03(first);
      }
      return config03(push.get(taskId, configIdOf(object, "pushNotificationConfigId")));
    },
    "tasks/pushNotificationConfig/list": (params) => {
      const object = requireParams(params, "0.3");
      return pushOf(service).list(taskIdOf(object, "id")).map(config03);
    },
    "tasks/pushNotificationConfig/delete": (params) => {
      const object = requireParams(params, "0.3");
      pushOf(service).delete(taskIdOf(object, "id"), configIdOf(object, "pushNotificationConfigId"));
      return null;
    },
  };
}
