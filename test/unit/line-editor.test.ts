// The input line's buffer, keystroke by keystroke (CONTRACT section 6): bursts and pastes applied in order, line
// breaks in any form, deletion by grapheme, cursor moves, and nothing an answer may not hold (CONTRACT section 4).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { inputView, LineEditor } from "../../src/ui/line-editor.js";

/** An editor after typing each of `inputs` as one read from the terminal; returns it and the lines it ended. */
function typed(...inputs: string[]): { editor: LineEditor; sent: string[] } {
  const editor = new LineEditor();
  const sent = inputs.flatMap((input) => editor.type(input));
  return { editor, sent };
}

const graphemeBoundaries = (text: string) => {
  const found = new Set([0]);
  for (const { index, segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text))
    found.add(index + segment.length);
  return found;
};

describe("LineEditor: typing", () => {
  it("keys one at a time build the line; Enter ends it and empties the buffer", () => {
    const { editor, sent } = typed("B", "o", "b", "\r");
    assert.deepEqual(sent, ["Bob"]);
    assert.equal(editor.value, "");
    assert.equal(editor.cursor, 0);
  });

  it("a burst with Enter in the same read sends all that was typed", () => {
    assert.deepEqual(typed("Bob\r").sent, ["Bob"]);
  });

  it("a paste ending in \\r, \\n or \\r\\n sends the line once", () => {
    assert.deepEqual(typed("Alice\r").sent, ["Alice"]);
    assert.deepEqual(typed("Alice\n").sent, ["Alice"]);
    assert.deepEqual(typed("Alice\r\n").sent, ["Alice"]);
  });

  it("\\r\\n split across two reads is still one line break", () => {
    const { editor, sent } = typed("Alice\r", "\nBob");
    assert.deepEqual(sent, ["Alice"]);
    assert.equal(editor.value, "Bob");
  });

  it("two line breaks in a row end an empty line too", () => {
    assert.deepEqual(typed("a\r\rb\n\n").sent, ["a", "", "b", ""]);
  });

  it("a paste of several lines ends each; the text after the last break stays", () => {
    const { editor, sent } = typed("one\r\ntwo\rthree");
    assert.deepEqual(sent, ["one", "two"]);
    assert.equal(editor.value, "three");
  });

  it("Enter on an empty line sends the empty text", () => {
    assert.deepEqual(typed("\r").sent, [""]);
  });

  it("a tab becomes a space; other control characters and escapes' leftovers are dropped", () => {
    assert.deepEqual(typed("a\tb\u0000c\u0007d\u001be\u009bf\r").sent, ["a bcdef"]);
  });

  it("DEL and backspace in a burst remove what came before them", () => {
    assert.deepEqual(typed("abc\u007f\u007fX\bY\r").sent, ["aY"]);
  });

  it("a lone surrogate never gets in", () => {
    const { editor } = typed("a\ud83db\ude00c");
    assert.equal(editor.value, "abc");
  });

  it("stops at 4096 UTF-8 bytes, without cutting a character", () => {
    const { editor } = typed("é".repeat(3000));
    assert.equal(Buffer.byteLength(editor.value), 4096);
    const emoji = typed(`${"x".repeat(4094)}😀`).editor;
    assert.equal(emoji.value, "x".repeat(4094), "the emoji does not fit whole, so none of it goes in");
  });
});

describe("LineEditor: deleting by grapheme", () => {
  it("backspace after an emoji removes all of it", () => {
    const { editor } = typed("Bøb é 😀");
    editor.backspace();
    assert.equal(editor.value, "Bøb é ");
  });

  it("backspace after a letter with a combining accent removes both", () => {
    const { editor } = typed("cafe\u0301");
    editor.backspace();
    assert.equal(editor.value, "caf");
  });

  it("backspace after a family emoji (joined with ZWJ) or a flag removes the whole of it", () => {
    const family = typed("a👨‍👩‍👧").editor;
    family.backspace();
    assert.equal(family.value, "a");
    const flag = typed("b🇫🇷").editor;
    flag.backspace();
    assert.equal(flag.value, "b");
  });

  it("backspace at the start does nothing", () => {
    const { editor } = typed("ab");
    editor.home();
    editor.backspace();
    assert.equal(editor.value, "ab");
    assert.equal(editor.cursor, 0);
  });

  it("deleteForward removes the grapheme under the cursor", () => {
    const { editor } = typed("a😀b");
    editor.home();
    editor.right();
    editor.deleteForward();
    assert.equal(editor.value, "ab");
    assert.equal(editor.cursor, 1);
  });

  it("Ctrl-W removes the word before the cursor; Ctrl-U all before it; Ctrl-K all after it", () => {
    const words = typed("one two  ").editor;
    words.deleteWordBackward();
    assert.equal(words.value, "one ");
    const start = typed("abcdef").editor;
    start.left();
    start.left();
    start.deleteToStart();
    assert.equal(start.value, "ef");
    assert.equal(start.cursor, 0);
    const end = typed("abcdef").editor;
    end.left();
    end.left();
    end.deleteToEnd();
    assert.equal(end.value, "abcd");
  });
});

describe("LineEditor: the cursor", () => {
  it("left and right move by grapheme; typing goes in at the cursor", () => {
    const { editor } = typed("B😀b");
    editor.left();
    assert.equal(editor.cursor, "B😀".length);
    editor.left();
    assert.equal(editor.cursor, 1, "one step over the emoji, not half of it");
    editor.type("o");
    assert.equal(editor.value, "Bo😀b");
    editor.right();
    editor.right();
    editor.right();
    assert.equal(editor.cursor, editor.value.length, "right stops at the end");
    editor.type("!");
    assert.equal(editor.value, "Bo😀b!");
  });

  it("home and end", () => {
    const { editor } = typed("middle");
    editor.home();
    editor.type(">");
    editor.end();
    editor.type("<");
    assert.equal(editor.value, ">middle<");
  });

  it("a combining mark typed before a letter's accent keeps the cursor after the whole grapheme", () => {
    const { editor } = typed("\u0301");
    editor.home();
    editor.type("e");
    assert.equal(editor.value, "e\u0301");
    assert.equal(editor.cursor, 2);
  });

  it("Enter in the middle sends the whole line", () => {
    const { editor } = typed("abc");
    editor.left();
    assert.deepEqual(editor.type("\r"), ["abc"]);
  });
});

describe("LineEditor: whatever is typed (property)", () => {
  const input = fc.oneof(
    fc.string({ unit: "grapheme" }),
    fc.string({ unit: "binary" }),
    fc.constantFrom("\r", "\n", "\r\n", "\u007f", "\b", "\t", "😀", "e\u0301", "\ud83d"),
  );
  const move = fc.constantFrom("left", "right", "home", "end", "backspace", "deleteForward", "deleteWordBackward");

  it("the buffer holds no control character or lone surrogate, fits 4096 bytes, and the cursor sits between graphemes", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            input.map((text) => ({ text })),
            move.map((key) => ({ key })),
          ),
        ),
        (steps) => {
          const editor = new LineEditor();
          const sent: string[] = [];
          for (const step of steps) {
            if ("text" in step) sent.push(...editor.type(step.text));
            else editor[step.key]();
            for (const text of [editor.value, ...sent]) {
              // biome-ignore lint/suspicious/noControlCharactersInRegex: checks that none got in
              assert.doesNotMatch(text, /[\u0000-\u001f\u007f-\u009f]/);
              assert.equal(text.isWellFormed(), true);
              assert.ok(Buffer.byteLength(text) <= 4096);
            }
            assert.ok(
              graphemeBoundaries(editor.value).has(editor.cursor),
              `cursor ${editor.cursor} in ${editor.value}`,
            );
          }
        },
      ),
    );
  });

  it("text without control characters, then Enter, is sent as it was typed, in one read or key by key", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: keeps the cases without control characters
        fc.pre(/^[^\u0000-\u001f\u007f-\u009f]*$/.test(text));
        assert.deepEqual(typed(`${text}\r`).sent, [text]);
        assert.deepEqual(typed(...[...text], "\r").sent, [text]);
      }),
    );
  });
});

describe("inputView", () => {
  it("shows it all when it fits, the cursor on a space at the end", () => {
    assert.deepEqual(inputView("abc", 3, 20), { before: "abc", under: " ", after: "" });
  });

  it("the grapheme under the cursor in the middle", () => {
    assert.deepEqual(inputView("a😀b", 1, 20), { before: "a", under: "😀", after: "b" });
  });

  it("a long line scrolls: the cursor stays in view and the row is not overfilled", () => {
    const text = `${"x".repeat(50)}CURSOR${"y".repeat(50)}`;
    const view = inputView(text, 50, 20);
    assert.equal(view.under, "C");
    assert.ok(view.before.length + 1 + view.after.length <= 20);
    assert.ok(view.after.startsWith("URSOR"));
    const atEnd = inputView(text, text.length, 20);
    assert.equal(atEnd.under, " ");
    assert.equal(atEnd.before, "y".repeat(19));
  });

  it("counts wide characters as two columns", () => {
    const view = inputView("😀😀😀😀😀", "😀😀😀😀😀".length, 7);
    assert.equal(view.before, "😀😀😀");
  });
});
