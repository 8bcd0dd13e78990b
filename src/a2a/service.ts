// The A2A operations, transport-free: decoded requests in, domain results out, streams as async iterables, errors as
// core errors. Each protocol version's codec and each binding (stdio, HTTP) sit in front of this one service.

import { analyzeSend } from "../core/envelope/envelope.js";
import { CoreError } from "../core/errors.js";
import { carriesAnswer } from "../core/hitl/answer-message.js";
import type { Dispatcher, TaskView } from "../core/task/dispatcher.js";
import type { ListPage } from "../core/task/list-query.js";
import { isTerminal } from "../core/task/task.js";
import { HITL_URI } from "../core/uris.js";
import type { PreparedConfig, PushService } from "./push/push-service.js";
import type { GetRequest, ListRequest, SendRequest } from "./requests.js";
import { type StopRule, stopsAt, TaskStream } from "./task-stream.js";

export class A2aService {
  constructor(
    readonly dispatcher: Dispatcher,
    /** Push notifications (CONTRACT 9.3); without it, every push request is -32003. */
    readonly push?: PushService,
  ) {}

  /** SendMessage / message/send: a new task, or an answer to a prompt (CONTRACT section 4). */
  async send(request: SendRequest): Promise<TaskView> {
    const push = await this.pushIn(request);
    // A blocking send, an answer's included, waits for an ended or interrupted state (A2A 1.0 §3.2.2).
    const answered = await this.answerIn(request);
    const task = answered ? this.withPush(answered, push) : this.submit(request, push);
    request.onAccepted?.(task.id);
    if (request.returnImmediately) return task;
    return this.dispatcher.until(task.id, (t) => stopsAt("ended-or-input", t));
  }

  /** SendStreamingMessage / message/stream: the task first, then its events until `rule` ends the stream. */
  async stream(request: SendRequest, rule: StopRule): Promise<TaskStream> {
    const push = await this.pushIn(request);
    const answered = await this.answerIn(request);
    if (answered) {
      this.withPush(answered, push);
      request.onAccepted?.(answered.id);
      return new TaskStream(this.dispatcher, answered.id, rule, { closingStatus: true });
    }
    const task = this.submit(request, push);
    request.onAccepted?.(task.id);
    return new TaskStream(this.dispatcher, task.id, rule);
  }

  get(request: GetRequest): TaskView {
    return this.dispatcher.get(request.id);
  }

  /** The task without its output: enough to tell whether it can have changed since it was last read. */
  head(id: string): TaskView {
    return this.dispatcher.get(id, false);
  }

  list(request: ListRequest): ListPage<TaskView> {
    return this.dispatcher.listPage(request.query, request.includeArtifacts);
  }

  /** CancelTask: answers once the task has ended (canceled). */
  async cancel(id: string): Promise<TaskView> {
    this.dispatcher.cancel(id);
    return this.dispatcher.until(id, (task) => isTerminal(task.state));
  }

  /**
   * SubscribeToTask / tasks/resubscribe. An ended task is an unsupported operation in 1.0 (`refuseEnded`); 0.3 answers
   * with the task and no events.
   */
  subscribe(id: string, rule: StopRule, refuseEnded: boolean): TaskStream {
    const task = this.dispatcher.get(id, false);
    if (refuseEnded && isTerminal(task.state)) {
      throw new CoreError("unsupported_operation", `task ${id} has already ended (${task.state}); nothing to follow`, {
        task_id: id,
        state: task.state,
      });
    }
    return new TaskStream(this.dispatcher, id, rule);
  }

  private submit(request: SendRequest, push?: PreparedConfig): TaskView {
    const task = this.dispatcher.submit({
      analysis: analyzeSend(request, request.problems),
      hitlActivated: request.extensions.includes(HITL_URI),
      extensions: request.extensions,
    });
    // In the turn the task was made: the config's first delivery is the task as submitted (CONTRACT 9.3).
    if (push) this.push?.attach(task.id, push);
    return task;
  }

  /** An answer's inline push config is kept for the task it answered, from the answer on. */
  private withPush(task: TaskView, push: PreparedConfig | undefined): TaskView {
    if (push) this.push?.attach(task.id, push);
    return task;
  }

  /** The send's inline push config, checked before any task exists (a refused one leaves none behind). */
  private async pushIn(request: SendRequest): Promise<PreparedConfig | undefined> {
    if (!request.push) return undefined;
    if (!this.push) throw new CoreError("push_not_supported", "push notifications are not supported");
    return this.push.prepare(request.push.config, request.push.family, request.push.path);
  }

  /** The task after delivering the answer the message carries, or undefined when it carries none. */
  private async answerIn(request: SendRequest): Promise<TaskView | undefined> {
    const message = request.message.seen;
    if (carriesAnswer(message)) {
      return this.dispatcher.answer({
        taskId: message.taskId,
        contextId: message.contextId,
        response: message.metadata?.hitl_response_for,
        message,
      });
    }
    if (message.taskId !== undefined) {
      // A task that does not exist: TaskNotFound (A2A 1.0 §3.4.2); one that does takes answers only (CONTRACT 7.1).
      const task = this.dispatcher.get(message.taskId, false);
      throw new CoreError(
        "unsupported_operation",
        `task ${task.id} (${task.state}) takes further messages only as answers to its prompt (metadata.hitl_response_for)`,
        { task_id: task.id, state: task.state },
      );
    }
    return undefined;
  }
}
