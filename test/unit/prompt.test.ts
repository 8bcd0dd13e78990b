// The prompt detector (CONTRACT section 4, "Detection"): pure, fed with explicit times, so no timers here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  DEFAULT_SETTLE_MS,
  lastBytes,
  lastShownLine,
  MAX_PROMPT_CHARS,
  PROMPT_LINE_ENDINGS,
  PROMPT_MARKERS,
  PROMPT_WINDOW_BYTES,
  PromptDetector,
  stripEscapes,
} from "../../src/core/hitl/prompt.js";
import { NOT_PROMPTS, REAL_PROMPTS } from "../helpers/prompt-corpus.js";

const SETTLE = 100;

/** Feeds the chunks one millisecond apart from t = 1000, then asks once the settle window has passed. */
function settle(chunks: string[], options: { settleMs?: number } = { settleMs: SETTLE }): string | undefined {
  const detector = new PromptDetector(options);
  let t = 1000;
  for (const chunk of chunks) detector.feed(chunk, t++);
  return detector.due(t - 1 + detector.settleMs);
}

describe("PromptDetector: what is a prompt", () => {
  it("uses the contract's defaults: 8 KiB window, 150 ms settle, 4096-character prompts", () => {
    assert.equal(PROMPT_WINDOW_BYTES, 8192);
    assert.equal(DEFAULT_SETTLE_MS, 150);
    assert.equal(MAX_PROMPT_CHARS, 4096);
    assert.equal(new PromptDetector().settleMs, 150);
    assert.equal(new PromptDetector({ settleMs: 40 }).settleMs, 40);
  });

  it("knows exactly the high-confidence markers of the contract", () => {
    assert.deepEqual(
      [...PROMPT_MARKERS],
      [
        "[y/N]",
        "[Y/n]",
        "[Y/N]",
        "(y/n)",
        "(yes/no)",
        "Do you want to proceed",
        "Would you like to",
        "Are you sure",
        "Press any key",
        "Press ENTER",
        "press enter",
      ],
    );
  });

  for (const marker of PROMPT_MARKERS) {
    it(`raises a prompt for the marker ${JSON.stringify(marker)}`, () => {
      assert.equal(settle([`step 3 done\nplease answer: ${marker} `]), `please answer: ${marker}`);
      assert.equal(settle([marker]), marker);
    });
  }

  it("joins a marker split across chunks", () => {
    assert.equal(settle(["Continue? [y/", "N] "]), "Continue? [y/N]");
    assert.equal(settle(["Do you want to pro", "ceed? "]), "Do you want to proceed?");
    assert.equal(settle(["line one\nCont", "inue? [y", "/N", "] "]), "Continue? [y/N]");
  });

  it("finds a prompt without a trailing newline, and one with it", () => {
    assert.equal(settle(["Overwrite file? (y/n)"]), "Overwrite file? (y/n)");
    assert.equal(settle(["Overwrite file? (y/n)\n"]), "Overwrite file? (y/n)");
    assert.equal(settle(["Overwrite file? (y/n)\r\n\n  \n"]), "Overwrite file? (y/n)");
  });

  it("strips CSI colours around the prompt", () => {
    assert.equal(
      settle(["\x1b[1;33mDo you want to proceed?\x1b[0m \x1b[2m[y/N]\x1b[0m "]),
      "Do you want to proceed? [y/N]",
    );
  });

  it("strips an OSC window title (BEL- and ST-terminated)", () => {
    assert.equal(settle(["\x1b]0;t\x07Continue? [y/N] "]), "Continue? [y/N]");
    assert.equal(settle(["\x1b]2;a long title\x1b\\Continue? [y/N] "]), "Continue? [y/N]");
  });

  it("strips a DCS string", () => {
    assert.equal(settle(["\x1bPq#0;2;0;0;0#0~~@@\x1b\\Continue? [y/N] "]), "Continue? [y/N]");
  });

  it("strips a two-byte escape such as \\x1b=", () => {
    assert.equal(settle(["\x1b=Continue? [y/N] \x1b>"]), "Continue? [y/N]");
  });

  it("strips an escape split across two chunks", () => {
    assert.equal(settle(["\x1b[3", "3mAre you sure?\x1b[0m [y/N] "]), "Are you sure? [y/N]");
    assert.equal(settle(["Continue? [y/N]\x1b[", "0m "]), "Continue? [y/N]");
    assert.equal(settle(["\x1b]0;ti", "tle\x07Continue? [y/N] "]), "Continue? [y/N]");
    assert.equal(settle(["\x1bP1$r", "0m\x1b\\Press ENTER to go on"]), "Press ENTER to go on");
  });

  it("does not let an escape that is still arriving hide the prompt", () => {
    assert.equal(settle(["Continue? [y/N] \x1b["]), "Continue? [y/N]");
    assert.equal(settle(["Continue? [y/N] \x1b"]), "Continue? [y/N]");
  });

  it("leaves nothing of an unfinished escape with parameters in the prompt", () => {
    // A command that went quiet in the middle of writing an escape: the prompt is raised from what arrived.
    assert.equal(settle(["Continue? [y/N] \x1b[38;5"]), "Continue? [y/N]");
    assert.equal(settle(["Continue? [y/N] \x1b]0;ti"]), "Continue? [y/N]");
    assert.equal(settle(["Continue? [y/N] \x1bP1$r"]), "Continue? [y/N]");
  });

  it("a marker in a line followed by more output is no prompt", () => {
    assert.equal(settle(["Are you sure? [y/N]\ntick 1\n"]), undefined);
    assert.equal(settle(["Are you sure? [y/N]\n", "tick 1\n", "tick 2"]), undefined);
    assert.equal(settle(["Continue? [y/N] ", "\n", "Continuing anyway.\n"]), undefined);
  });

  it("forgets a marker older than 8 KiB", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    const line = `${"x".repeat(99)}\n`;
    for (let i = 0; i < 90; i++) detector.feed(line, 1 + i); // 9000 bytes
    detector.feed("done\n", 100);
    assert.ok(detector.bufferedBytes <= 8192, `window holds ${detector.bufferedBytes} bytes`);
    assert.equal(detector.due(100 + SETTLE), undefined);
  });

  it("forgets a marker older than 8 KiB even in one unbroken line", () => {
    // The marker would be the last non-empty line if the window were not bounded.
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    detector.feed("x".repeat(8200), 1);
    assert.ok(detector.bufferedBytes <= 8192);
    assert.equal(detector.due(1 + SETTLE), undefined);
  });

  it("keeps a prompt that ends a window of 8 KiB+", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed(`${"y".repeat(50)}\n`.repeat(400), 0);
    detector.feed("Continue? [y/N] ", 1);
    assert.ok(detector.bufferedBytes <= 8192);
    assert.equal(detector.due(1 + SETTLE), "Continue? [y/N]");
  });

  it("bounds the window in bytes, also for multi-byte output", () => {
    const detector = new PromptDetector();
    for (let i = 0; i < 30; i++) detector.feed("€😀é".repeat(100), i); // 900 bytes a chunk
    assert.ok(detector.bufferedBytes <= 8192, `window holds ${detector.bufferedBytes} bytes`);
    assert.ok(detector.bufferedBytes >= 8192 - 4, `window holds only ${detector.bufferedBytes} bytes`);
  });

  for (const line of ["$ ", "user@host:~$ ", "?", "What next?", "Password:", "Enter your name: ", "> ", "Continue"]) {
    it(`a medium-confidence line ${JSON.stringify(line)} is no prompt`, () => {
      assert.equal(settle([line]), undefined);
    });
  }

  it("a marker with other letter case is no prompt (the markers are exact)", () => {
    assert.equal(settle(["ok [n/Y] "]), undefined);
    assert.equal(settle(["ARE YOU SURE "]), undefined);
  });
});

describe("PromptDetector: settle, once, reset", () => {
  it("raises nothing before settleMs of quiet, and the prompt from then on", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 1000);
    assert.equal(detector.due(1000), undefined);
    assert.equal(detector.due(1000 + SETTLE - 1), undefined);
    assert.equal(detector.due(1000 + SETTLE), "Continue? [y/N]");
  });

  it("measures quiet from the last chunk, not the first", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/", 1000);
    detector.feed("N] ", 1080);
    assert.equal(detector.due(1000 + SETTLE), undefined);
    assert.equal(detector.due(1080 + SETTLE - 1), undefined);
    assert.equal(detector.due(1080 + SETTLE), "Continue? [y/N]");
  });

  it("uses the 150 ms default", () => {
    const detector = new PromptDetector();
    detector.feed("Continue? [y/N] ", 0);
    assert.equal(detector.due(149), undefined);
    assert.equal(detector.due(150), "Continue? [y/N]");
  });

  it("raises a prompt once only", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    assert.equal(detector.due(SETTLE), "Continue? [y/N]");
    assert.equal(detector.due(SETTLE), undefined);
    assert.equal(detector.due(SETTLE * 10), undefined);
  });

  it("new output after raising starts over: a later identical prompt raises again", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    assert.equal(detector.due(SETTLE), "Continue? [y/N]");
    detector.feed("\nContinue? [y/N] ", 500);
    assert.equal(detector.due(500 + SETTLE - 1), undefined);
    assert.equal(detector.due(500 + SETTLE), "Continue? [y/N]");
    assert.equal(detector.due(500 + SETTLE), undefined);
  });

  it("an empty chunk is no output: it neither restarts the settle window nor re-arms", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    detector.feed("", 90);
    assert.equal(detector.due(SETTLE), "Continue? [y/N]");
    detector.feed("", 200);
    assert.equal(detector.due(1000), undefined);
  });

  it("reset() forgets the window, so only new output counts", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    detector.reset();
    assert.equal(detector.bufferedBytes, 0);
    assert.equal(detector.due(1000), undefined);
    detector.feed("\n", 1000); // with the old window this would still end on the old prompt
    assert.equal(detector.due(1000 + SETTLE), undefined);
    detector.feed("Second? (yes/no) ", 2000);
    assert.equal(detector.due(2000 + SETTLE), "Second? (yes/no)");
  });

  it("reset() after a raise lets the same text raise again once it is new output", () => {
    const detector = new PromptDetector({ settleMs: SETTLE });
    detector.feed("Continue? [y/N] ", 0);
    assert.equal(detector.due(SETTLE), "Continue? [y/N]");
    detector.reset();
    detector.feed("Continue? [y/N] ", 1000);
    assert.equal(detector.due(1000 + SETTLE), "Continue? [y/N]");
  });

  it("cuts a prompt to at most 4096 characters, keeping its end", () => {
    const line = `${"a".repeat(5000)} [y/N]`;
    const prompt = settle([`${line} `]);
    assert.ok(prompt !== undefined);
    assert.equal(prompt.length, 4096);
    assert.ok(prompt.endsWith("a [y/N]"));
    assert.equal(settle([`${"b".repeat(4090)}[y/N]`])?.length, 4095);
  });
});

describe("stripEscapes", () => {
  const cases: Array<[string, string, string]> = [
    ["CSI colours", "\x1b[1;31mred\x1b[0m", "red"],
    ["CSI cursor moves and erase", "\x1b[2K\x1b[1Gline\x1b[?25l", "line"],
    ["8-bit CSI", "\x9b31mred\x9b0m", "red"],
    ["OSC with BEL", "\x1b]0;t\x07text", "text"],
    ["OSC with ST", "\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["DCS", "\x1bPq#0;2;0;0;0\x1b\\text", "text"],
    ["APC and PM", "\x1b_apc\x1b\\a\x1b^pm\x1b\\b", "ab"],
    ["two-byte escapes", "\x1b=a\x1b>b\x1b7c\x1b8", "abc"],
    ["charset selection (nF)", "\x1b(Bplain", "plain"],
    ["an unfinished CSI at the end", "text\x1b[38;5", "text"],
    ["an unfinished OSC at the end", "text\x1b]0;tit", "text"],
    ["an unfinished DCS at the end", "text\x1bPq#0", "text"],
    ["an unfinished 8-bit CSI at the end", "text\x9b31", "text"],
    ["a lone ESC at the end", "text\x1b", "text"],
    ["other control characters", "a\x00b\x07c\x08d\x7fe\x85f", "abcdef"],
    ["keeps tab, newline and carriage return", "a\tb\nc\rd\r\n", "a\tb\nc\rd\r\n"],
    ["keeps ordinary and multi-byte text", "héllo € 😀 [y/N]", "héllo € 😀 [y/N]"],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => assert.equal(stripEscapes(input), expected));
  }
});

const lastNonEmptyLine = (text: string) => lastShownLine(text)?.shown.trim();

describe("lastShownLine", () => {
  it("takes the last line with something on it, trimmed", () => {
    assert.equal(lastNonEmptyLine("one\ntwo\n"), "two");
    assert.equal(lastNonEmptyLine("one\n  two  \n \n\t\n"), "two");
    assert.equal(lastNonEmptyLine("only"), "only");
  });
  it("is undefined without any such line", () => {
    assert.equal(lastNonEmptyLine(""), undefined);
    assert.equal(lastNonEmptyLine("\n \n\t\r\n"), undefined);
  });
  it("treats a carriage return as starting the line over", () => {
    assert.equal(lastNonEmptyLine("downloading 10%\rdownloading 100%"), "downloading 100%");
    assert.equal(lastNonEmptyLine("working...\rContinue? [y/N] "), "Continue? [y/N]");
    assert.equal(lastNonEmptyLine("Continue? [y/N]\r"), "Continue? [y/N]");
  });
  it("treats CRLF as one line break", () => {
    assert.equal(lastNonEmptyLine("a\r\nb\r\n"), "b");
  });
});

describe("lastBytes", () => {
  it("returns short text as it is", () => {
    assert.equal(lastBytes("abc", 10), "abc");
    assert.equal(lastBytes("€€€", 9), "€€€");
    assert.equal(lastBytes("", 0), "");
  });
  it("keeps the last bytes of ASCII", () => {
    assert.equal(lastBytes("abcdefghij", 4), "ghij");
  });
  it("never splits a multi-byte character", () => {
    assert.equal(lastBytes("€€€€", 7), "€€"); // 12 bytes; 7 would start inside a "€"
    assert.equal(lastBytes("€€€€", 6), "€€");
    assert.equal(lastBytes("a😀b", 5), "😀b");
    assert.equal(lastBytes("a😀b", 4), "b");
    assert.equal(lastBytes("é".repeat(10), 5), "éé");
  });
  it("is always a suffix of at most `limit` bytes, never more than 3 bytes short, and whole characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.integer({ min: 0, max: 400 }), (text, limit) => {
        const kept = lastBytes(text, limit);
        const bytes = Buffer.byteLength(kept);
        assert.ok(bytes <= limit, `${bytes} bytes > ${limit}`);
        assert.ok(text.endsWith(kept));
        assert.ok(!kept.includes("\uFFFD") || text.includes("\uFFFD"));
        if (Buffer.byteLength(text) > limit) assert.ok(bytes >= limit - 3, `${bytes} bytes for a limit of ${limit}`);
        else assert.equal(kept, text);
      }),
      { numRuns: 500 },
    );
  });
});

describe("PromptDetector: the corpus of real output (test/helpers/prompt-corpus.ts)", () => {
  for (const { what, output, prompt } of REAL_PROMPTS) {
    it(`raises ${what}`, () => assert.equal(settle([output]), prompt));
  }
  for (const output of NOT_PROMPTS) {
    it(`raises nothing for ${JSON.stringify(output)}`, () => assert.equal(settle([output]), undefined));
  }

  it("has 30+ non-prompts that mention a marker, next to the real prompts", () => {
    assert.ok(NOT_PROMPTS.filter((output) => PROMPT_MARKERS.some((m) => output.includes(m))).length >= 30);
    assert.ok(REAL_PROMPTS.length >= 15);
  });

  it("property: the verdict does not depend on how the output was cut into chunks", () => {
    const all = [...REAL_PROMPTS.map((real) => real.output), ...NOT_PROMPTS];
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.array(fc.nat(), { maxLength: 6 }), (output, points) => {
        const cuts = [...new Set(points.map((point) => point % (output.length + 1)))].sort((a, b) => a - b);
        const chunks = [...cuts, output.length].map((cut, index) =>
          output.slice(index === 0 ? 0 : cuts[index - 1], cut),
        );
        assert.equal(settle(chunks), settle([output]));
      }),
      { numRuns: 500 },
    );
  });
});

describe("PromptDetector: a finished line is a prompt only when it ends like a question", () => {
  it("a marker in a line that ends with a newline and no ?, :, ], ) or > is no prompt", () => {
    assert.equal(settle(["INFO Are you sure the cache is warm? checking...\n"]), undefined);
    assert.equal(settle(["Would you like to know more? See the docs\n"]), undefined);
  });
  it("the same line still open is a prompt", () => {
    assert.equal(
      settle(["INFO Are you sure the cache is warm? checking..."]),
      "INFO Are you sure the cache is warm? checking...",
    );
  });
  for (const ending of PROMPT_LINE_ENDINGS) {
    it(`a finished line ending in ${JSON.stringify(ending)} (trailing spaces aside) is a prompt`, () => {
      assert.equal(settle([`Are you sure ${ending}  \n`]), `Are you sure ${ending}`);
    });
  }
});

describe("PromptDetector: what the terminal shows", () => {
  it("a prompt erased with backspaces and spaces is no prompt", () => {
    assert.equal(settle([`Continue? [y/N] ${"\b \b".repeat(16)}`]), undefined);
    assert.equal(settle(["Continue? [y/N] ", "\b".repeat(16), " ".repeat(16)]), undefined);
  });
  it("a prompt written over with a carriage return is no prompt, even where part of it still shows", () => {
    assert.equal(settle(["Are you sure? [y/N]\r                   \r"]), undefined);
    assert.equal(settle(["Are you sure? [y/N]\rdone"]), undefined);
  });
  it("backspaces that only move the cursor leave the prompt on screen", () => {
    assert.equal(settle(["Are you sure? [ ]\b\b"]), "Are you sure? [ ]");
  });
  it("text written over a prompt's last characters hides the prompt", () => {
    assert.equal(settle(["Do you want to proceed? [y/N]\b\b\b\b\bdone."]), undefined);
  });
  it("a prompt written over earlier text on the same line is a prompt, shown as the terminal shows it", () => {
    assert.equal(settle(["checking the cache, please wait\rAre you sure? [y/N] "]), "Are you sure? [y/N] please wait");
  });
  it("after an erased prompt, an earlier finished prompt line is the last line shown", () => {
    assert.equal(settle([`Deploy now? [y/N]\nAre you sure? [y/N]${"\b \b".repeat(19)}`]), "Deploy now? [y/N]");
  });
});
