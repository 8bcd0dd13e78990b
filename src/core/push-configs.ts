// Where push notification configs are kept (CONTRACT 9.3): with their task, in the task store, and gone with it.
// The A2A service checks and delivers them (src/a2a/push/); the stores only keep them.

/** A webhook a task's events are POSTed to, as it was accepted (its checks passed). */
export interface PushConfigRecord {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  /** The protocol version it was made through: its deliveries have that version's shapes. */
  family: "0.3" | "1.0";
  /** The address the URL's host resolved to when the config was made: deliveries go there and nowhere else. */
  address?: string;
}

export interface PushConfigStore {
  /** Adds the config, or replaces the task's config of the same id. */
  putPushConfig(config: PushConfigRecord): void;
  pushConfig(taskId: string, id: string): PushConfigRecord | undefined;
  /** The task's configs, oldest first. */
  pushConfigs(taskId: string): PushConfigRecord[];
  /** True when there was one to delete. */
  deletePushConfig(taskId: string, id: string): boolean;
}

/** Configs in memory, by task: the memory store's, and the SQLite store's once its disk fails. */
export class MemoryPushConfigs implements PushConfigStore {
  private readonly byTask = new Map<string, Map<string, PushConfigRecord>>();

  putPushConfig(config: PushConfigRecord): void {
    let configs = this.byTask.get(config.taskId);
    if (!configs) {
      configs = new Map();
      this.byTask.set(config.taskId, configs);
    }
    configs.set(config.id, config);
  }

  pushConfig(taskId: string, id: string): PushConfigRecord | undefined {
    return this.byTask.get(taskId)?.get(id);
  }

  pushConfigs(taskId: string): PushConfigRecord[] {
    return [...(this.byTask.get(taskId)?.values() ?? [])];
  }

  deletePushConfig(taskId: string, id: string): boolean {
    const configs = this.byTask.get(taskId);
    const deleted = configs?.delete(id) ?? false;
    if (configs?.size === 0) this.byTask.delete(taskId);
    return deleted;
  }

  /** The task is forgotten: so are its configs. */
  forgetTask(taskId: string): void {
    this.byTask.delete(taskId);
  }
}
