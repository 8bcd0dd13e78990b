// Answers for prompts when nobody is at a terminal: the --answer values in order, then lines of our own stdin.
import type { Dispatcher } from "../core/dispatcher.js";
import { CoreError } from "../core/errors.js";
import type { TaskView } from "../core/task-record.js";
import { LineReader } from "../io/line-reader.js";

export class AnswerSource {
  private readonly given: string[];
  private reader: LineReader | undefined;

  constructor(
    answers: readonly string[],
    private readonly stdin: NodeJS.ReadStream | undefined,
  ) {
    this.given = [...answers];
  }

  async next(): Promise<string | undefined> {
    const answer = this.given.shift();
    if (answer !== undefined) return answer;
    if (!this.stdin || this.stdin.isTTY) return undefined;
    this.reader ??= new LineReader(this.stdin);
    return this.reader.next();
  }

  close(): void {
    this.reader?.close();
  }
}

/**
 * Answers each prompt of a task as it opens. Without an answer left the command's stdin is closed,
 * so it reads EOF rather than waiting for its deadline. `say` reports what happened, for stderr.
 */
export function answerPrompts(
  dispatcher: Dispatcher,
  taskId: string,
  source: AnswerSource,
  say: (line: string) => void,
): () => void {
  let busy = false;
  let again = false;
  const open = (): TaskView | undefined => {
    const task = dispatcher.get(taskId, false);
    return task.state === "input-required" && task.prompt ? task : undefined;
  };
  /** Answers the open prompt; true when it refused the answer and is still open, so the next one is tried. */
  const respond = async (): Promise<boolean> => {
    const text = await source.next();
    // The prompt may have been withdrawn or replaced while we waited: answer the one open now.
    const task = open();
    const prompt = task?.prompt;
    if (!task || !prompt) return false;
    if (text === undefined) {
      say(`no answer left for "${prompt.text}": closing the command's input`);
      dispatcher.endInput(taskId);
      return false;
    }
    try {
      await dispatcher.answer({
        taskId,
        contextId: task.contextId,
        response: { prompt_id: prompt.id, payload: { text } },
      });
      say(`answered "${prompt.text}" with ${JSON.stringify(text)}`);
      return false;
    } catch (error) {
      const reason =
        error instanceof CoreError
          ? (error.data.reason ?? error.data.validation_errors?.[0]?.message ?? error.message)
          : String(error);
      say(`could not answer "${prompt.text}": ${reason}`);
      return open()?.prompt?.id === prompt.id;
    }
  };
  const run = () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    void respond()
      .catch(() => false)
      .then((retry) => {
        busy = false;
        if ((again || retry) && open()) {
          again = false;
          run();
        }
        again = false;
      });
  };
  return dispatcher.subscribe((event) => {
    if (event.type === "status" && event.task.id === taskId && event.task.state === "input-required") run();
  });
}
