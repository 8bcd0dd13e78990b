// Push notification configs in the state database (CONTRACT 9.3): one row each, under its task's row, so that
// deleting a task (retention) deletes its configs too. A config whose task has no row (yet), or that could not be
// written, is kept in memory instead; a row of the wrong shape is skipped and named once.
import type { Database, Statement } from "better-sqlite3";
import { isRecord } from "../core/envelope/json-value.js";
import { MemoryPushConfigs, type PushConfigRecord, type PushConfigStore } from "../core/push-configs.js";
import { describeDbError } from "./db-errors.js";

export class SqlPushConfigs implements PushConfigStore {
  private readonly memory = new MemoryPushConfigs();
  private readonly skipped = new Set<string>();
  private readonly sql: Record<"taskRow" | "upsert" | "select" | "selectAll" | "delete", Statement>;

  constructor(
    db: Database,
    private readonly warn: (line: string) => void,
    private readonly usable: () => boolean,
  ) {
    this.sql = {
      taskRow: db.prepare("SELECT n FROM tasks WHERE id = ?"),
      upsert: db.prepare(
        "INSERT INTO push_configs (task, id, detail) VALUES (?, ?, ?) ON CONFLICT (task, id) DO UPDATE SET detail = excluded.detail",
      ),
      select: db.prepare(
        "SELECT p.detail FROM push_configs p JOIN tasks t ON t.n = p.task WHERE t.id = ? AND p.id = ?",
      ),
      selectAll: db.prepare(
        "SELECT p.detail FROM push_configs p JOIN tasks t ON t.n = p.task WHERE t.id = ? ORDER BY p.n",
      ),
      delete: db.prepare("DELETE FROM push_configs WHERE id = ? AND task = (SELECT n FROM tasks WHERE id = ?)"),
    };
  }

  putPushConfig(config: PushConfigRecord): void {
    if (this.usable()) {
      try {
        const row = this.sql.taskRow.get(config.taskId) as { n: number } | undefined;
        if (row) {
          this.sql.upsert.run(row.n, config.id, JSON.stringify(config));
          this.memory.deletePushConfig(config.taskId, config.id);
          return;
        }
      } catch (error) {
        this.warn(
          `cannot write push config ${config.id} of task ${config.taskId} (${describeDbError(error)}); it is kept in memory only`,
        );
      }
    }
    this.memory.putPushConfig(config);
  }

  pushConfig(taskId: string, id: string): PushConfigRecord | undefined {
    const kept = this.memory.pushConfig(taskId, id);
    if (kept || !this.usable()) return kept;
    return this.read(() => this.sql.select.get(taskId, id) as { detail: string } | undefined)[0];
  }

  pushConfigs(taskId: string): PushConfigRecord[] {
    const stored = this.usable() ? this.read(() => this.sql.selectAll.all(taskId) as { detail: string }[]) : [];
    return [...stored, ...this.memory.pushConfigs(taskId)];
  }

  deletePushConfig(taskId: string, id: string): boolean {
    let deleted = this.memory.deletePushConfig(taskId, id);
    if (this.usable()) {
      try {
        deleted = this.sql.delete.run(id, taskId).changes > 0 || deleted;
      } catch (error) {
        this.warn(`cannot delete push config ${id} of task ${taskId} (${describeDbError(error)})`);
      }
    }
    return deleted;
  }

  /** Rows read and checked: a row of the wrong shape (or a failed read) gives nothing. */
  private read(rows: () => { detail: string } | { detail: string }[] | undefined): PushConfigRecord[] {
    let found: { detail: string }[];
    try {
      found = [rows() ?? []].flat();
    } catch (error) {
      this.warn(`cannot read push configs (${describeDbError(error)})`);
      return [];
    }
    const configs: PushConfigRecord[] = [];
    for (const { detail } of found) {
      const config = configOfRow(detail);
      if (config) configs.push(config);
      else if (!this.skipped.has(detail)) {
        this.skipped.add(detail);
        this.warn("a push config row of the wrong shape is skipped");
      }
    }
    return configs;
  }
}

const optionalString = (value: unknown) => value === undefined || typeof value === "string";

/** A stored config, checked: the fields deliveries use have the types they need. */
function configOfRow(detail: unknown): PushConfigRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(String(detail));
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { id, taskId, url, token, authentication, family, address } = value;
  if (typeof id !== "string" || typeof taskId !== "string" || typeof url !== "string") return undefined;
  if (family !== "0.3" && family !== "1.0") return undefined;
  if (!optionalString(token) || !optionalString(address)) return undefined;
  if (authentication !== undefined) {
    if (!isRecord(authentication) || typeof authentication.scheme !== "string") return undefined;
    if (!optionalString(authentication.credentials)) return undefined;
  }
  return value as unknown as PushConfigRecord;
}
