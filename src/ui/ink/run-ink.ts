import type { Io } from "../../commands/run.js";
import type { Dispatcher } from "../../core/dispatcher.js";
import type { Analysis } from "../../core/envelope.js";
export async function runInk(
  _d: Dispatcher,
  _a: Analysis,
  _o: { file: string; inputMode: "text-line" | undefined },
  io: Io,
  _r: (error: unknown, file: string, io: Io) => number,
): Promise<number> {
  io.stderr.write("not yet\n");
  return 2;
}
