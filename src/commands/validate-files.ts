// Runs `validate` over files, directories and stdin, and prints the verdicts, human or --json.

import { EXIT } from "../exit-codes.js";
import { drainOrClose } from "../io/backpressure.js";
import type { Io } from "../io/io.js";
import { paintFor } from "../ui/paint.js";
import { type InputText, readInputFile, readInputStream } from "./input-file.js";
import { expandInputs, STDIN } from "./input-paths.js";
import { type FileVerdict, failed, formatVerdict, validateInput } from "./validate.js";

export async function validateFiles(
  args: string[],
  options: { json?: boolean; workspace?: string },
  io: Pick<Io, "stdin" | "stdout">,
): Promise<number> {
  const paint = paintFor(io.stdout);
  const out = io.stdout;
  // A reader that goes away (`validate … | head`) ends the run quietly; a slow one is waited for.
  let gone = false;
  out.on("error", () => {
    gone = true;
  });
  // stdin can be read once: `-` given twice checks the same text twice.
  let stdin: Promise<InputText> | undefined;
  let allValid = true;
  for (const input of await expandInputs(args)) {
    if (gone) break;
    let verdict: FileVerdict;
    if ("problem" in input) verdict = failed(input.file, input.problem);
    else {
      let read: InputText;
      if (input.file === STDIN) {
        stdin ??= readInputStream(io.stdin);
        read = await stdin;
      } else read = await readInputFile(input.file);
      verdict = validateInput(input.file, read, options.workspace);
    }
    allValid &&= verdict.valid;
    if (!out.write(options.json ? `${JSON.stringify(verdict)}\n` : `${formatVerdict(verdict, paint)}\n`))
      await drainOrClose(out);
  }
  return allValid ? EXIT.ok : EXIT.failed;
}
