// The README's code blocks, read so a test can run them as printed (test/e2e/readme-examples.test.ts): each fenced
// block with its language, its line and the `<!-- readme-test: ... -->` marker before it; and the few shell forms
// the README uses, parsed into argv arrays (no shell ever runs them). A form outside these is an error, so the
// README stays within what the test can run.

/** How the test treats a block, from the marker on the line before it. */
export interface Marker {
  /** Not run at all (the reason is for the reader of the README's source). */
  skip?: boolean;
  /** Only the commands that start with this text are run. */
  only?: string;
  /** The exit code the (single) command must end with; 0 without a marker. */
  exit?: number;
  /** Written to the command's stdin, then it is closed. */
  stdin?: string;
  /** A server: started in the background, ready once its output holds this text, stopped at the end. */
  readyAt?: string;
}

export interface Block {
  lang: string;
  /** The 1-based line of the opening fence. */
  line: number;
  text: string;
  marker: Marker;
}

const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;

export function parseMarker(text: string): Marker {
  // The reason in parentheses at the end is prose.
  const body = text.replace(/\s*\([^)]*\)\s*$/, "").trim();
  const marker: Marker = {};
  const forms: Array<[RegExp, (value: string) => void]> = [
    [/^skip$/, () => (marker.skip = true)],
    [/^only "([^"]+)"$/, (value) => (marker.only = value)],
    [/^exit (\d+)$/, (value) => (marker.exit = Number(value))],
    [/^stdin "([^"]*)"$/, (value) => (marker.stdin = `${value}\n`)],
    [/^server$/, () => (marker.readyAt ??= "")],
    [/^ready at "([^"]+)"$/, (value) => (marker.readyAt = value)],
  ];
  for (const part of body.split(/\s*,\s*/)) {
    const form = forms.find(([pattern]) => pattern.test(part));
    if (!form)
      throw new Error(
        `expected a readme-test marker of skip, only "…", exit N, stdin "…", server, ready at "…"; found "${part}"`,
      );
    form[1](form[0].exec(part)?.[1] ?? "");
  }
  if (marker.readyAt === "") throw new Error(`expected ready at "…" with server, found "${text}"`);
  return marker;
}

/** Every fenced block of a Markdown text, with the marker of the line just before its fence. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? "");
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > i && line.startsWith("```"));
    if (end < 0) throw new Error(`the block at line ${i + 1} is never closed`);
    const marker = MARKER.exec(lines[i - 1]?.trim() ?? "");
    blocks.push({
      lang: open[1] ?? "",
      line: i + 1,
      text: lines.slice(i + 1, end).join("\n"),
      marker: marker ? parseMarker(marker[1] ?? "") : {},
    });
    i = end;
  }
  return blocks;
}

/** A piece of a word: literal text, or `$(cat FILE)`, the file's content read when the command runs. */
export type Piece = { text: string } | { catFile: string };
export type Word = Piece[];

export interface Stage {
  argv: Word[];
  /** `> FILE`: stdout goes to this file. */
  stdoutTo?: string;
}

/** One command line: pipelines joined by `&&`, each of stages joined by `|`. */
export type CommandLine = Stage[][];

/** A word's text, with `$(cat FILE)` read through `read`. */
export function wordText(word: Word, read: (file: string) => string): string {
  return word.map((piece) => ("text" in piece ? piece.text : read(piece.catFile).replace(/\n+$/, ""))).join("");
}

/**
 * The command lines of a shell block: `\` line continuations joined, `#` comments dropped; words in single quotes,
 * double quotes (escapes `\"`, `\\`, `\$`) or bare; `$(cat FILE)`; operators `|`, `&&` and `>`. Anything else a
 * shell would treat specially ($VAR, `;`, `&`, `<`, globs, backquotes) is an error.
 */
export function parseShell(block: string): CommandLine[] {
  const joined = block.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => parseLine(line))
    .filter((line) => line.length > 0);
}

function parseLine(line: string): CommandLine {
  type Token = { word: Word } | { op: "|" | "&&" | ">" };
  const tokens: Token[] = [];
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`the README's shell form ${what} at column ${at + 1} of: ${line}`);
  };
  const substitution = (): Piece => {
    const match = /^\$\(cat ([\w./-]+)\)/.exec(line.slice(at));
    if (!match) return fail("$… (only $(cat FILE) is run)");
    at += match[0].length;
    return { catFile: match[1] as string };
  };
  while (at < line.length) {
    const char = line[at] as string;
    if (char === " " || char === "\t") {
      at++;
      continue;
    }
    if (char === "#") break;
    if (line.startsWith("&&", at)) {
      tokens.push({ op: "&&" });
      at += 2;
      continue;
    }
    if (char === "|" || char === ">") {
      tokens.push({ op: char });
      at++;
      continue;
    }
    const word: Word = [];
    const text = (value: string) => {
      const last = word.at(-1);
      if (last && "text" in last) last.text += value;
      else word.push({ text: value });
    };
    while (at < line.length && !/[\s|>]/.test(line[at] as string) && !line.startsWith("&&", at)) {
      const c = line[at] as string;
      if (c === "'") {
        const close = line.indexOf("'", at + 1);
        if (close < 0) fail("an unclosed '");
        text(line.slice(at + 1, close));
        at = close + 1;
      } else if (c === '"') {
        at++;
        while (line[at] !== '"') {
          if (at >= line.length) fail('an unclosed "');
          const d = line[at] as string;
          if (d === "\\" && /["\\$`]/.test(line[at + 1] ?? "")) {
            text(line[at + 1] as string);
            at += 2;
          } else if (d === "$") word.push(substitution());
          else if (d === "`") fail("a backquote");
          else {
            text(d);
            at++;
          }
        }
        at++;
      } else if (c === "$") word.push(substitution());
      else if (/[;&<`*?[\]{}~\\()]/.test(c)) fail(`"${c}"`);
      else {
        text(c);
        at++;
      }
    }
    tokens.push({ word });
  }
  const pipelines: CommandLine = [];
  let pipeline: Stage[] = [];
  let stage: Stage = { argv: [] };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if ("word" in token) stage.argv.push(token.word);
    else if (token.op === ">") {
      const next = tokens[++i];
      if (!next || !("word" in next)) fail("> without a file");
      stage.stdoutTo = wordText((next as { word: Word }).word, () => fail("$(cat …) as a file name"));
    } else {
      if (stage.argv.length === 0) fail(`${token.op} without a command before it`);
      pipeline.push(stage);
      stage = { argv: [] };
      if (token.op === "&&") {
        pipelines.push(pipeline);
        pipeline = [];
      }
    }
  }
  if (stage.argv.length > 0) pipeline.push(stage);
  else if (tokens.length > 0) fail("an operator with no command after it");
  if (pipeline.length > 0) pipelines.push(pipeline);
  return pipelines;
}
