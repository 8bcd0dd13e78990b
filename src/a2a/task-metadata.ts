// The task's metadata, the same in both protocol versions: metadata[ADAPTER] (CONTRACT 5.4) and the activated
// extensions echoed under "a2a-service-parameters" (CONTRACT 5.2), and the runtime's keys (CONTRACT 9.2).
import { isTerminal } from "../core/task/task.js";
import type { TaskView } from "../core/task/task-record.js";
import { ADAPTER_URI, RUNTIME_KIND, RUNTIME_PROVIDER } from "../core/uris.js";
import { SERVICE_PARAMETERS } from "./service-params.js";

export function metadataOf(task: TaskView): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (task.envelope) {
    metadata[ADAPTER_URI] = {
      adapter: task.envelope.adapter,
      instance_id: task.instanceId,
      mode: task.envelope.mode,
      working_dir: task.workingDir ?? null,
      timeout_seconds: task.envelope.timeout_seconds,
      deadline: task.deadline ?? null,
      exit_code: task.exitCode,
      signal: task.signal,
      fail_kind: task.failKind ?? null,
      reason: task.reason ?? null,
      started_at: task.startedAt ?? null,
      ended_at: task.endedAt ?? null,
      pid: task.pid ?? null,
    };
  } else {
    metadata[ADAPTER_URI] = {
      dispatch: "echo",
      instance_id: task.instanceId,
      exit_code: task.exitCode,
      started_at: task.startedAt ?? null,
      ended_at: task.endedAt ?? null,
    };
  }
  // Which runtime ran the task, whether or not the caller activated runtime/v1 (CONTRACT 9.2).
  metadata["runtime.instance_id"] = task.instanceId;
  metadata["runtime.kind"] = RUNTIME_KIND;
  metadata["runtime.provider"] = RUNTIME_PROVIDER;
  if (task.extensions.length > 0) metadata[SERVICE_PARAMETERS] = { "A2A-Extensions": task.extensions.join(", ") };
  return metadata;
}

/**
 * A status event of a running command names its pid, its start and its deadline (in metadata[ADAPTER]), so a client
 * can tell which process it is and show the time left, as a local screen does; the final one also says how the task ended (exit_code, signal, fail_kind, reason, ended_at), so a stream's
 * reader needs no GetTask for it.
 */
export function eventMetadata(task: TaskView): { metadata?: Record<string, unknown> } {
  const ending = isTerminal(task.state)
    ? {
        exit_code: task.exitCode,
        signal: task.signal,
        fail_kind: task.failKind ?? null,
        reason: task.reason ?? null,
        ended_at: task.endedAt ?? null,
      }
    : {};
  if ((task.pid === undefined || task.state === "submitted") && !isTerminal(task.state)) return {};
  const running =
    task.pid !== undefined
      ? {
          pid: task.pid,
          ...(task.startedAt ? { started_at: task.startedAt } : {}),
          ...(task.deadline ? { deadline: task.deadline } : {}),
        }
      : {};
  return { metadata: { [ADAPTER_URI]: { ...running, ...ending } } };
}
