// Metadata keys that were meant to be ADAPTER_URI. A typo there would silently turn an adapter command into an
// echo that "succeeds", so such a key is an error, never an echo (CONTRACT section 2, envelope_key_mismatch).
import { editDistance } from "../edit-distance.js";
import { ADAPTER_URI } from "../uris.js";
import { joinPointer } from "./json-pointer.js";
import { isRecord } from "./json-value.js";
import type { Problem } from "./problems.js";

/** The parts of a near-miss that JSON Schema can state too (see `nearMissPattern`), matched case aside. */
const CONTAINS = "extensions/adapter-command";
const ENDS = "adapter-command/v1";

/** Case, surrounding blanks, the scheme and trailing slashes set aside: what is left of ADAPTER_URI. */
const normalize = (key: string) =>
  key
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
    .replace(/\/+$/, "");
const NORMAL = normalize(ADAPTER_URI);
/** A typo anywhere in the URI: this many edits of what is left once normalized. */
const MAX_EDITS = 2;

/** True when `key` is not ADAPTER_URI but was almost certainly meant to be. */
export function isNearMissKey(key: string): boolean {
  if (key === ADAPTER_URI) return false;
  const lower = key.toLowerCase();
  if (lower.includes(CONTAINS) || /adapter-command\/v1[\s/]*$/.test(lower)) return true;
  return editDistance(normalize(key), NORMAL, MAX_EDITS) <= MAX_EDITS;
}

/** The problems of the near-miss keys of a metadata object at `path`. */
export function keyMismatches(metadata: unknown, path: string): Problem[] {
  if (!isRecord(metadata)) return [];
  return Object.keys(metadata)
    .filter(isNearMissKey)
    .map((key) => ({
      path: joinPointer(path, key),
      code: "envelope_key_mismatch",
      message: `expected the extension key "${ADAPTER_URI}" exactly, found ${JSON.stringify(key)}; an envelope under another key would never run`,
    }));
}

/** Each letter as a class of its two cases: JSON Schema patterns have no case-insensitive flag. */
const caseless = (text: string) =>
  [...text]
    .map((char) => {
      if (/[a-z]/i.test(char)) return `[${char.toLowerCase()}${char.toUpperCase()}]`;
      return char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    })
    .join("");

/** The near-miss rule as a JSON Schema pattern: every rule but the edit distance, which no pattern can state. */
export function nearMissPattern(): string {
  return `${caseless(CONTAINS)}|${caseless(ENDS)}[\\s/]*$`;
}
