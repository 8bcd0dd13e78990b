// Where JSON text first goes wrong. Node 20's JSON.parse often says what but not where, so we look ourselves.
const WS = new Set([" ", "\t", "\n", "\r"]);
const TOO_DEEP = Symbol("too deep");

/** The offset of the first syntax error in `text`; undefined when it is valid JSON or nests too deep to tell. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (at: number): never => {
    throw at;
  };
  const skip = () => {
    while (i < text.length && WS.has(text[i] as string)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) fail(i - 1);
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length) {
      const ch = text[i] as string;
      if (ch === '"') {
        i++;
        return;
      }
      if (ch < " ") fail(i);
      if (ch === "\\") {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail(i);
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail(i);
      } else i++;
    }
    fail(i);
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match || match[0] === "" || match[0] === "-") fail(i);
    i += (match as RegExpExecArray)[0].length;
  };
  // The members of an object or the items of an array, `close` ending them: none, or one or more between commas.
  const list = (close: string, member: () => void) => {
    i++; // opening bracket
    skip();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      skip();
      if (text[i] === ",") i++;
      else if (text[i] === close) {
        i++;
        return;
      } else fail(i);
    }
  };
  const value = (depth: number): void => {
    // Past this depth the offset is given up (undefined) rather than the stack.
    if (depth > 1000) throw TOO_DEEP;
    skip();
    const ch = text[i];
    if (ch === "{")
      list("}", () => {
        skip();
        if (text[i] !== '"') fail(i);
        string();
        skip();
        if (text[i] !== ":") fail(i);
        i++;
        value(depth + 1);
      });
    else if (ch === "[") list("]", () => value(depth + 1));
    else if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) number();
    else fail(i);
  };
  try {
    value(0);
    skip();
    if (i < text.length) fail(i);
    return undefined;
  } catch (at) {
    if (typeof at === "number") return Math.min(at, text.length);
    if (at === TOO_DEEP) return undefined;
    throw at;
  }
}
