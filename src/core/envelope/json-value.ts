// Small facts about parsed JSON values.
import { utf8Length } from "../utf8-length.js";

export const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * The deepest nesting of arrays and objects accepted in any input. Deeper values are refused before anything
 * walks them: describing or comparing them recursively (JSON.stringify included) would overflow the stack.
 */
export const MAX_NESTING = 100;

/** How deeply arrays and objects nest in a parsed value (0 for a scalar), counted without recursion. */
export function nestingDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== "object" || item === null) continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, inner]);
  }
  return deepest;
}

/**
 * About how many bytes `value` takes as JSON text (strings and keys counted as their UTF-8 without escapes), counted
 * without recursion: a cost for retention, safe on a value of any depth (JSON.stringify recurses).
 */
export function jsonBytes(value: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") bytes += utf8Length(item) + 2;
    else if (typeof item === "number" || typeof item === "boolean") bytes += String(item).length;
    else if (item === null) bytes += 4;
    else if (Array.isArray(item)) {
      bytes += 2 + Math.max(0, item.length - 1);
      for (const child of item) stack.push(child);
    } else if (typeof item === "object") {
      const keys = Object.keys(item);
      bytes += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        bytes += utf8Length(key) + 3;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return bytes;
}
