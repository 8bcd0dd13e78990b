// Runs `validate` over several files and prints the verdicts, human or --json.
import { paintFor } from "../ui/paint.js";
import { EXIT } from "./exit-codes.js";
import type { Io } from "./run.js";
import { formatVerdict, validateFile } from "./validate.js";

export async function validateFiles(
  files: string[],
  options: { json?: boolean; workspace?: string },
  io: Pick<Io, "stdout">,
): Promise<number> {
  const paint = paintFor(io.stdout);
  let allValid = true;
  for (const file of files) {
    const verdict = await validateFile(file, options.workspace);
    allValid &&= verdict.valid;
    io.stdout.write(options.json ? `${JSON.stringify(verdict)}\n` : `${formatVerdict(verdict, paint)}\n`);
  }
  return allValid ? EXIT.ok : EXIT.failed;
}
