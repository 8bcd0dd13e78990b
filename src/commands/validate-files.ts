// Runs `validate` over several files and prints the verdicts, human or --json.
import { drainOrClose } from "../io/backpressure.js";
import type { Io } from "../io/io.js";
import { paintFor } from "../ui/paint.js";
import { EXIT } from "./exit-codes.js";
import { formatVerdict, validateFile } from "./validate.js";

export async function validateFiles(
  files: string[],
  options: { json?: boolean; workspace?: string },
  io: Pick<Io, "stdout">,
): Promise<number> {
  const paint = paintFor(io.stdout);
  const out = io.stdout;
  // A reader that goes away (`validate … | head`) ends the run quietly; a slow one is waited for.
  let gone = false;
  out.on("error", () => {
    gone = true;
  });
  let allValid = true;
  for (const file of files) {
    if (gone) break;
    const verdict = await validateFile(file, options.workspace);
    allValid &&= verdict.valid;
    if (!out.write(options.json ? `${JSON.stringify(verdict)}\n` : `${formatVerdict(verdict, paint)}\n`))
      await drainOrClose(out);
  }
  return allValid ? EXIT.ok : EXIT.failed;
}
