// The keyboard while Ink is still loading: the terminal goes to raw mode at once, so keys are not echoed over the
// output, Ctrl-C still interrupts, and other keys wait (up to a bound) for the live area, which gets them when it
// takes the keyboard over. Keys are read the way Ink reads them ('readable', then read()): a stream that was once
// switched to flowing 'data' events and paused does not wake up for Ink's reader.
const CTRL_C = 0x03;
const MAX_HELD_BYTES = 4096;

/**
 * Starts holding keys. The function it returns stops: with `handOver`, the keys held go back into stdin for the
 * next reader; without, stdin is paused (nobody will read it).
 */
export function holdKeys(stdin: NodeJS.ReadStream, onInterrupt: () => void): (handOver: boolean) => void {
  if (!stdin.isTTY || typeof stdin.setRawMode !== "function") return () => {};
  const held: Buffer[] = [];
  let size = 0;
  const take = (bytes: Buffer) => {
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== CTRL_C) continue;
      const keys = bytes.subarray(start, Math.min(i, start + MAX_HELD_BYTES - size));
      if (keys.length > 0) {
        held.push(keys);
        size += keys.length;
      }
      if (i < bytes.length) onInterrupt();
      start = i + 1;
    }
  };
  const onReadable = () => {
    for (let chunk = stdin.read(); chunk !== null; chunk = stdin.read())
      take(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  };
  stdin.setRawMode(true);
  stdin.on("readable", onReadable);
  let released = false;
  return (handOver) => {
    if (released) return;
    released = true;
    stdin.off("readable", onReadable);
    if (!handOver) stdin.pause();
    else if (held.length > 0) stdin.unshift(Buffer.concat(held));
  };
}
