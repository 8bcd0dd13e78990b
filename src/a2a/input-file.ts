// Input files (CONTRACT section 2) as `validate`, `run` and the console's form read them: the analysis is the core's
// (src/core/envelope/envelope.ts), the message a file holds is read by the 0.3 codec, whose shape files use.
import {
  type Analysis,
  analyzeSendParams as analyzeParamsWith,
  analyzeInput as analyzeWith,
  type FileFormat,
  type Shape,
} from "../core/envelope/envelope.js";
import { analyzeText as analyzeTextWith, type TextAnalysis } from "../core/envelope/input-text.js";
import { configurationProblems, readMessage03 } from "./v0_3/message.js";

/** Which of the three file shapes a value is (CONTRACT section 2): a bare message is told by 0.3's names. */
export function shapeOf(value: Record<string, unknown>): Shape {
  if ("message" in value) return "send-params";
  if ("parts" in value || "role" in value || value.kind === "message") return "message";
  return "envelope";
}

export const FILE_FORMAT: FileFormat = { shapeOf, readMessage: readMessage03, configurationProblems };

/** Analyses any of the three file shapes. */
export const analyzeInput = (value: unknown): Analysis => analyzeWith(value, FILE_FORMAT);

/** An input file's text, analysed (src/core/envelope/input-text.ts). */
export const analyzeText = (text: string): TextAnalysis => analyzeTextWith(text, FILE_FORMAT);

/** Send params (a file's shape A, an A2A 0.3 MessageSendParams), analysed. */
export const analyzeSendParams = (value: Record<string, unknown>): Analysis => analyzeParamsWith(value, FILE_FORMAT);

export type { TextAnalysis };
