// Runs `validate` over files, directories and stdin, and prints the verdicts, human or --json.
import { stat } from "node:fs/promises";

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
  const counts = { valid: 0, invalid: 0, warnings: 0 };
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
    counts[verdict.valid ? "valid" : "invalid"] += 1;
    counts.warnings += verdict.warnings.length;
    if (!out.write(options.json ? `${JSON.stringify(verdict)}\n` : `${formatVerdict(verdict, paint)}\n`))
      await drainOrClose(out);
  }
  // A directory may stand for many files: one line at the end says how they fared.
  if (!options.json && !gone && (await anyDirectory(args))) out.write(`${summaryLine(counts)}\n`);
  return allValid ? EXIT.ok : EXIT.failed;
}

/** `12 files: 11 valid, 1 invalid, 2 warnings` */
function summaryLine(counts: { valid: number; invalid: number; warnings: number }): string {
  const files = counts.valid + counts.invalid;
  const parts = [`${counts.valid} valid`, `${counts.invalid} invalid`];
  if (counts.warnings > 0) parts.push(`${counts.warnings} warning${counts.warnings === 1 ? "" : "s"}`);
  return `${files} file${files === 1 ? "" : "s"}: ${parts.join(", ")}`;
}

async function anyDirectory(args: readonly string[]): Promise<boolean> {
  for (const arg of args) {
    if (arg !== STDIN && (await stat(arg).catch(() => undefined))?.isDirectory()) return true;
  }
  return false;
}
