// The dispatcher's one stream of domain events, and the emitter that keeps one failing listener from hurting the rest.
import type { StreamName } from "./output-log.js";
import type { TaskView } from "./task-record.js";
import type { DecodedChunk } from "./utf8-chunks.js";

export type DispatcherEvent = { type: "status"; task: TaskView } | OutputEvent;

/** Output of one task's command: complete characters, as bytes and as text. */
export interface OutputEvent {
  type: "output";
  taskId: string;
  contextId: string;
  stream: StreamName;
  seq: number;
  text: string;
  /** The bytes `text` was decoded from (a character split across reads comes whole, with the later read). */
  data: Buffer;
  /** The bytes as the command wrote them (pass-through writes these). */
  raw: Buffer;
  /** The first chunk of this stream for this task. */
  first: boolean;
  /** The event's number in its task (CONTRACT 9.4); an event without text has its predecessor's. */
  readonly event?: number;
}

/**
 * An output event whose text is decoded when a listener first reads it: output a stream holds back waits as bytes,
 * outside the JS heap. A class, not an object literal with a getter: that made each event cost far more
 * (docs/benchmarks.md).
 */
export class LazyOutputEvent implements OutputEvent {
  readonly type = "output";

  constructor(
    readonly taskId: string,
    readonly contextId: string,
    readonly stream: StreamName,
    readonly seq: number,
    private readonly piece: DecodedChunk,
    readonly raw: Buffer,
    readonly first: boolean,
    readonly event = 0,
  ) {}

  get text(): string {
    return this.piece.text;
  }

  get data(): Buffer {
    return this.piece.data;
  }
}

export type Listener = (event: DispatcherEvent) => void;

export class Emitter {
  private readonly listeners = new Set<Listener>();

  /** Told when a listener throws; the event still reaches the others. */
  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: DispatcherEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // One front end's fault must not stop the task or the other front ends.
        this.onListenerError(error);
      }
    }
  }
}

/** The task an event is about. */
export function taskIdOf(event: DispatcherEvent): string {
  return event.type === "status" ? event.task.id : event.taskId;
}
