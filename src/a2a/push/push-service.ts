// Push notifications (CONTRACT 9.3), transport-free: the config methods (create, get, list, delete, and configs
// given inline with a send) over the store's configs, and one deliverer per config that follows its task. Every
// config's checks run before anything is kept: its fields (config-wire.ts, decoded by the send's codec or the config
// operation's entry, src/operations/push-operations.ts), then its URL's host (webhook-hosts.ts).
import { randomUUID } from "node:crypto";
import { CoreError } from "../../core/errors.js";
import type { PushConfigRecord, PushConfigStore } from "../../core/push-configs.js";
import type { Dispatcher } from "../../core/task/dispatcher.js";
import { taskIdOf } from "../../core/task/events.js";
import { isTerminal } from "../../core/task/task.js";
import { invalidParams } from "../decode.js";
import type { ConfigRequest, Family } from "./config-wire.js";
import { Deliverer, type DeliveryOptions } from "./deliverer.js";
import { type CheckedUrl, WebhookHosts, WebhookRefused } from "./webhook-hosts.js";

const MAX_CONFIGS_PER_TASK = 16;
const BACKOFF_MS = 200;
const MAX_QUEUED = 1000;

export interface PushOptions {
  hosts?: WebhookHosts;
  timeoutMs: number;
  /** Output bytes a config's queue holds at most (the task's own output limit). */
  maxQueuedBytes: number;
  log(line: string): void;
  backoffMs?: number;
}

/** A config whose checks have passed, ready to be kept for a task. */
export interface PreparedConfig {
  request: ConfigRequest;
  checked: CheckedUrl;
  family: Family;
}

export class PushService {
  /** Deliverers that still have something to send or a task to follow, by config (task id, config id). */
  private readonly deliverers = new Map<string, Deliverer>();
  /** Deliverers following a task that has not ended, by task. */
  private readonly following = new Map<string, Set<Deliverer>>();
  private readonly hosts: WebhookHosts;
  private readonly delivery: DeliveryOptions;
  private dropped = 0;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly store: PushConfigStore,
    options: PushOptions,
  ) {
    this.hosts = options.hosts ?? new WebhookHosts();
    this.delivery = {
      timeoutMs: options.timeoutMs,
      backoffMs: options.backoffMs ?? BACKOFF_MS,
      maxQueued: MAX_QUEUED,
      maxQueuedBytes: options.maxQueuedBytes,
      log: options.log,
    };
    dispatcher.subscribe((event) => {
      const id = taskIdOf(event);
      const followers = this.following.get(id);
      if (!followers) return;
      for (const deliverer of followers) deliverer.event(event);
      if (event.type === "status" && isTerminal(event.task.state)) this.following.delete(id);
    });
  }

  /** Checks the host of a config as asked for (at `path` of the params), its fields decoded and checked already. */
  async prepare(request: ConfigRequest, family: Family, path: string): Promise<PreparedConfig> {
    try {
      return { request, checked: await this.hosts.check(request.url), family };
    } catch (error) {
      if (error instanceof WebhookRefused)
        throw invalidParams([{ path: `${path}${error.field}`, code: "webhook_refused", message: error.message }]);
      throw error;
    }
  }

  /** CreateTaskPushNotificationConfig / tasks/pushNotificationConfig/set: the config decoded by its family's operation. */
  async create(taskId: string, request: ConfigRequest, family: Family, path: string): Promise<PushConfigRecord> {
    this.dispatcher.get(taskId, false);
    const prepared = await this.prepare(request, family, path);
    return this.attach(taskId, prepared);
  }

  /**
   * Keeps a checked config for the task and starts its deliveries with the task as it is now; in one turn of the
   * event loop, so each event of the task is either in that Task or delivered after it.
   */
  attach(taskId: string, prepared: PreparedConfig): PushConfigRecord {
    const task = this.dispatcher.get(taskId);
    const id = prepared.request.id ?? randomUUID();
    const existing = this.store.pushConfigs(taskId);
    if (!existing.some((config) => config.id === id) && existing.length >= MAX_CONFIGS_PER_TASK)
      throw invalidParams([
        {
          path: "",
          code: "too_many_configs",
          message: `task ${taskId} already has ${existing.length} push notification configs, the most a task may have; delete one first`,
        },
      ]);
    const { request, checked, family } = prepared;
    // The URL as given (clients compare it); it parses to what was checked.
    const config: PushConfigRecord = { id, taskId, url: request.url, family };
    if (request.token !== undefined) config.token = request.token;
    if (request.authentication) config.authentication = request.authentication;
    if (checked.address !== undefined) config.address = checked.address;
    this.store.putPushConfig(config);
    this.forget(taskId, id);
    const deliverer = new Deliverer(config, this.hosts, this.delivery, (done) => this.finished(done));
    this.deliverers.set(key(taskId, id), deliverer);
    if (!isTerminal(task.state)) {
      let followers = this.following.get(taskId);
      if (!followers) {
        followers = new Set();
        this.following.set(taskId, followers);
      }
      followers.add(deliverer);
    }
    deliverer.task(task);
    return config;
  }

  /** GetTaskPushNotificationConfig: an unknown task or config is not found (-32001). */
  get(taskId: string, id: string): PushConfigRecord {
    this.dispatcher.get(taskId, false);
    const config = this.store.pushConfig(taskId, id);
    if (!config)
      throw new CoreError("task_not_found", `push notification config not found: ${id} (task ${taskId})`, {
        task_id: taskId,
      });
    return config;
  }

  list(taskId: string): PushConfigRecord[] {
    this.dispatcher.get(taskId, false);
    return this.store.pushConfigs(taskId);
  }

  /** DeleteTaskPushNotificationConfig: idempotent; nothing more is sent to the config. */
  delete(taskId: string, id: string): void {
    this.dispatcher.get(taskId, false);
    this.forget(taskId, id);
    this.store.deletePushConfig(taskId, id);
  }

  /** Resolves once every deliverer has sent what it holds (or stopped). */
  async idle(): Promise<void> {
    await Promise.all([...this.deliverers.values()].map((deliverer) => deliverer.idle()));
  }

  /** Stops every delivery; what was still waiting is dropped and counted on stderr. */
  close(): void {
    this.following.clear();
    for (const deliverer of [...this.deliverers.values()]) {
      this.dropped += deliverer.pending;
      deliverer.stop();
    }
    this.deliverers.clear();
    if (this.dropped > 0)
      this.delivery.log(`push: ${this.dropped} delivery(ies) still pending at shutdown were dropped`);
  }

  private forget(taskId: string, id: string): void {
    const deliverer = this.deliverers.get(key(taskId, id));
    if (!deliverer) return;
    this.deliverers.delete(key(taskId, id));
    this.following.get(taskId)?.delete(deliverer);
    deliverer.stop();
  }

  /** A deliverer with nothing to send is let go once its task has ended (or it stopped). */
  private finished(deliverer: Deliverer): void {
    const { taskId, id } = deliverer.config;
    const followers = this.following.get(taskId);
    if (!deliverer.isStopped && followers?.has(deliverer)) return;
    followers?.delete(deliverer);
    if (followers?.size === 0) this.following.delete(taskId);
    if (this.deliverers.get(key(taskId, id)) === deliverer) this.deliverers.delete(key(taskId, id));
    deliverer.stop();
  }
}

const key = (taskId: string, id: string) => `${taskId}\u0000${id}`;
