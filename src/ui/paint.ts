// Colours for human output: off when NO_COLOR is set or the stream is not a terminal.
export interface Paint {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export function paintFor(stream: { isTTY?: boolean }): Paint {
  const on = stream.isTTY === true && !("NO_COLOR" in process.env && process.env.NO_COLOR !== "");
  if (!on) {
    const plain = (text: string) => text;
    return { red: plain, green: plain, yellow: plain, cyan: plain, dim: plain, bold: plain };
  }
  return {
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}
