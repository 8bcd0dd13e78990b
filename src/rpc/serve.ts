import type { Io } from "../commands/run.js";
export async function serveStdio(_options: unknown, io: Io): Promise<number> {
  io.stderr.write("adapter-command: serve is not built yet\n");
  return 2;
}
