// One config's deliveries (CONTRACT 9.3): the task as it was when the config was made, then its events, in order,
// one POST each, each tried up to 3 times with exponential backoff. Items wait in a bounded queue of their own, so a
// slow or dead receiver never holds up the task, the other configs, streams or requests; consecutive output of one
// artifact is merged while it waits, and a queue that still fills up stops this config (said on stderr).

import type { PushConfigRecord } from "../../core/push-configs.js";
import type { DispatcherEvent, OutputEvent } from "../../core/task/events.js";
import type { TaskView } from "../../core/task/task-record.js";
import * as v03 from "../v0_3/codec.js";
import * as v10 from "../v1_0/codec.js";
import { encode03, encode10, type Framing, type WireJson } from "../wire/encode.js";
import { agentFor, postOnce, type WebhookAgent } from "./post.js";
import type { WebhookHosts } from "./webhook-hosts.js";

const UNFRAMED: Framing = { head: "", tail: "" };

const ATTEMPTS = 3;
export const DEFAULT_PUSH_TIMEOUT_MS = 10_000;

export interface DeliveryOptions {
  timeoutMs: number;
  /** The wait before the second attempt; each later one waits twice as long. */
  backoffMs: number;
  /** Items waiting, at most. */
  maxQueued: number;
  /** Output bytes waiting, at most. */
  maxQueuedBytes: number;
  log(line: string): void;
}

type Pending =
  | { kind: "task"; task: TaskView }
  | { kind: "status"; event: DispatcherEvent }
  | { kind: "output"; pieces: OutputEvent[]; bytes: number };

export class Deliverer {
  private readonly queue: Pending[] = [];
  private queuedBytes = 0;
  private running = false;
  private stopped = false;
  private inFlight = 0;
  private address: string | undefined;
  private readonly url: URL;
  private readonly agent: WebhookAgent;
  private wake: (() => void) | undefined;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    readonly config: PushConfigRecord,
    private readonly hosts: WebhookHosts,
    private readonly options: DeliveryOptions,
    /** Told when the queue has emptied or the deliverer stopped. */
    private readonly onIdle: (deliverer: Deliverer) => void,
  ) {
    this.url = new URL(config.url);
    this.address = config.address;
    this.agent = agentFor(this.url);
  }

  /** Items not yet delivered (waiting or being sent). */
  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  task(task: TaskView): void {
    this.enqueue({ kind: "task", task });
  }

  /** An event of the config's task; output with no bytes is no item. */
  event(event: DispatcherEvent): void {
    if (event.type === "status") {
      this.enqueue({ kind: "status", event });
      return;
    }
    if (event.data.length === 0 || this.stopped) return;
    const last = this.queue[this.queue.length - 1];
    const bytes = event.data.length;
    if (last?.kind === "output" && (last.pieces[0] as OutputEvent).stream === event.stream) {
      last.pieces.push(event);
      last.bytes += bytes;
      this.queuedBytes += bytes;
      this.checkBounds();
      return;
    }
    this.enqueue({ kind: "output", pieces: [event], bytes });
  }

  /** Resolves once nothing is waiting (or the deliverer stopped). */
  idle(): Promise<void> {
    if (this.pending === 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** No more deliveries: what waits is dropped; `why` is said on stderr. */
  stop(why?: string): void {
    if (this.stopped) return;
    this.stopped = true;
    if (why) {
      const { id, taskId } = this.config;
      this.options.log(`push config ${id} of task ${taskId} (${this.url.origin}) receives no more deliveries: ${why}`);
    }
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.wake?.();
    this.agent.destroy();
    this.settle();
  }

  private enqueue(item: Pending): void {
    if (this.stopped) return;
    this.queue.push(item);
    if (item.kind === "output") this.queuedBytes += item.bytes;
    if (!this.checkBounds()) return;
    if (!this.running) void this.run();
  }

  private checkBounds(): boolean {
    if (this.queue.length > this.options.maxQueued || this.queuedBytes > this.options.maxQueuedBytes) {
      this.stop(
        `its queue is full (more than ${this.options.maxQueued} items or ${this.options.maxQueuedBytes} bytes waiting): the receiver is not keeping up`,
      );
      return false;
    }
    return true;
  }

  private async run(): Promise<void> {
    this.running = true;
    while (!this.stopped && this.queue.length > 0) {
      const item = this.queue.shift() as Pending;
      if (item.kind === "output") this.queuedBytes -= item.bytes;
      this.inFlight = 1;
      let body: WireJson;
      try {
        body = this.bodyOf(item);
      } catch (error) {
        this.inFlight = 0;
        this.stop(`an item could not be encoded (${(error as Error)?.message ?? error})`);
        break;
      }
      const why = await this.deliver(body);
      this.inFlight = 0;
      if (why !== undefined) this.stop(`${ATTEMPTS} attempts failed (last: ${why})`);
    }
    this.running = false;
    this.settle();
  }

  private settle(): void {
    if (this.pending > 0 && !this.stopped) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.onIdle(this);
  }

  /** Undefined once delivered; else why the last attempt failed. */
  private async deliver(body: WireJson): Promise<string | undefined> {
    let why: string | undefined;
    for (let attempt = 1; attempt <= ATTEMPTS && !this.stopped; attempt++) {
      if (attempt > 1) await this.sleep(this.options.backoffMs * 2 ** (attempt - 2));
      if (this.stopped) break;
      why = await this.attempt(body);
      if (why === undefined) return undefined;
    }
    return why ?? "stopped";
  }

  private async attempt(body: WireJson): Promise<string | undefined> {
    if (this.address === undefined) {
      // The allowed name did not resolve when the config was made: resolved now, once, and pinned from then on.
      try {
        this.address = await this.hosts.resolve(this.url.hostname, true);
      } catch (error) {
        return (error as Error).message;
      }
    }
    return postOnce(this.url, this.address as string, body, this.headers(), this.options.timeoutMs, this.agent);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { "Content-Type": "application/a2a+json" };
    const { authentication, token } = this.config;
    if (authentication)
      headers.Authorization =
        authentication.credentials === undefined
          ? authentication.scheme
          : `${authentication.scheme} ${authentication.credentials}`;
    if (token !== undefined) headers["X-A2A-Notification-Token"] = token;
    return headers;
  }

  /** The item in the config's protocol version: 1.0 StreamResponses, or 0.3 Tasks and events. */
  private bodyOf(item: Pending): WireJson {
    const v1 = this.config.family === "1.0";
    if (item.kind === "task") return JSON.stringify(v1 ? { task: v10.taskOf(item.task) } : v03.taskOf(item.task));
    const event = item.kind === "status" ? item.event : merged(item.pieces);
    // Both encoders write every event (only a 0.3 Task is not an item, and it is sent above).
    return (v1 ? encode10 : encode03)(event, UNFRAMED) as WireJson;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Consecutive output of one artifact as one event: the first piece's place, every piece's bytes. */
function merged(pieces: OutputEvent[]): OutputEvent {
  const first = pieces[0] as OutputEvent;
  if (pieces.length === 1) return first;
  const data = Buffer.concat(pieces.map((piece) => piece.data));
  return {
    type: "output",
    taskId: first.taskId,
    contextId: first.contextId,
    stream: first.stream,
    seq: first.seq,
    text: pieces.map((piece) => piece.text).join(""),
    data,
    raw: Buffer.concat(pieces.map((piece) => piece.raw)),
    first: first.first,
  };
}
