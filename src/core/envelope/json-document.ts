// JSON text read with positions (@humanwhocodes/momoa): where each value sits, and every key that an object
// repeats. JSON.parse keeps the last of two equal keys silently, so a second key could hide an envelope
// (CONTRACT section 2, duplicate_key).
import {
  type AnyNode,
  type MemberNode,
  type ObjectNode,
  parse as parseTree,
  type ValueNode,
} from "@humanwhocodes/momoa";
import { joinPointer, parsePointer } from "./json-pointer.js";
import { MAX_NESTING, nestingDepth } from "./json-value.js";
import type { Problem } from "./problems.js";

export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based, in characters as an editor counts them (an emoji is one column). */
  column: number;
}

export interface DuplicateKey extends Position {
  /** JSON Pointer to the repeated key (its second occurrence). */
  path: string;
  key: string;
  first: Position;
}

/** Line and column of offsets into one text, found by binary search over its line starts. */
class Positions {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) this.starts.push(at + 1);
  }

  at(offset: number): Position {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    const start = this.starts[low] as number;
    return { line: low + 1, column: [...this.text.slice(start, offset)].length + 1 };
  }
}

/** How many object members JSON text writes: its colons outside strings. */
function membersWritten(text: string): number {
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x3a) count++;
  }
  return count;
}

/** How many keys the objects of a parsed value hold (a repeated key counts once: JSON.parse kept the last). */
export function membersParsed(value: unknown): number {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null) continue;
    if (Array.isArray(item)) {
      for (const child of item) if (typeof child === "object" && child !== null) stack.push(child);
    } else {
      for (const key in item) {
        count++;
        const child = (item as Record<string, unknown>)[key];
        if (typeof child === "object" && child !== null) stack.push(child);
      }
    }
  }
  return count;
}

/**
 * Whether JSON text (which JSON.parse turned into `value`) writes some key twice on one object: then it writes
 * more members than the parsed objects hold. Cheap, so the tree is only built when there is something to find.
 */
export function repeatsKeys(text: string, value: unknown): boolean {
  return membersWritten(text) !== membersParsed(value);
}

const keyOf = (member: MemberNode) => (member.name.type === "String" ? member.name.value : member.name.name);

/** A parsed document: its positions and its repeated keys. */
export class JsonTree {
  private readonly positions: Positions;
  /** Each object's members by key, built when first asked: the last of a repeated key, as JSON.parse keeps it. */
  private readonly members = new WeakMap<ObjectNode, Map<string, MemberNode>>();

  private constructor(
    private readonly root: ValueNode,
    text: string,
  ) {
    this.positions = new Positions(text);
  }

  /**
   * The tree of `text`, which must be JSON that JSON.parse accepted (`value` is what it returned); undefined when
   * it nests deeper than `limit` (the parser recurses, and such a value is refused as too_deep anyway).
   */
  static of(text: string, value: unknown, limit = MAX_NESTING): JsonTree | undefined {
    if (nestingDepth(value, limit) > limit) return undefined;
    return new JsonTree(parseTree(text, { mode: "json" }).body, text);
  }

  private membersOf(node: ObjectNode): Map<string, MemberNode> {
    let byKey = this.members.get(node);
    if (!byKey) {
      byKey = new Map(node.members.map((member) => [keyOf(member), member]));
      this.members.set(node, byKey);
    }
    return byKey;
  }

  /** Every key repeated within one object, in document order, each with where it was first written. */
  duplicateKeys(): DuplicateKey[] {
    const found: DuplicateKey[] = [];
    const stack: Array<[ValueNode, string]> = [[this.root, ""]];
    while (stack.length > 0) {
      const [node, path] = stack.pop() as [ValueNode, string];
      if (node.type === "Object") {
        const seen = new Map<string, AnyNode>();
        for (const member of node.members) {
          const key = keyOf(member);
          const memberPath = joinPointer(path, key);
          const earlier = seen.get(key);
          if (earlier) {
            found.push({
              path: memberPath,
              key,
              ...this.positions.at(member.name.loc.start.offset),
              first: this.positions.at(earlier.loc.start.offset),
            });
          } else seen.set(key, member.name);
          stack.push([member.value, memberPath]);
        }
      } else if (node.type === "Array") {
        node.elements.forEach((element, index) => {
          stack.push([element.value, joinPointer(path, index)]);
        });
      }
    }
    return found.sort((a, b) => a.line - b.line || a.column - b.column);
  }

  /**
   * Where the value at `pointer` is written: for an object's member, its key; for an array's item, the item. A
   * pointer to something absent (a missing field) gives its nearest present ancestor; the root gives nothing.
   */
  locate(pointer: string): Position | undefined {
    const tokens = parsePointer(pointer);
    if (!tokens || tokens.length === 0) return undefined;
    let node: ValueNode = this.root;
    let at: AnyNode | undefined;
    for (const token of tokens) {
      let next: { at: AnyNode; value: ValueNode } | undefined;
      if (node.type === "Object") {
        const member = this.membersOf(node).get(token);
        if (member) next = { at: member.name, value: member.value };
      } else if (node.type === "Array" && /^(?:0|[1-9]\d*)$/.test(token)) {
        const element = node.elements[Number(token)];
        if (element) next = { at: element.value, value: element.value };
      }
      if (!next) return this.positions.at((at ?? node).loc.start.offset);
      at = next.at;
      node = next.value;
    }
    return at ? this.positions.at(at.loc.start.offset) : undefined;
  }
}

/** The problem for a repeated key. */
export function duplicateKeyProblem(duplicate: DuplicateKey): Problem {
  return {
    path: duplicate.path,
    code: "duplicate_key",
    message: `expected each key once in an object, found ${JSON.stringify(duplicate.key)} again (first at line ${duplicate.first.line}, column ${duplicate.first.column}); JSON.parse would keep only the last`,
    line: duplicate.line,
    column: duplicate.column,
  };
}
