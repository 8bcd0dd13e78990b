// An input file's text, analysed: JSON syntax, repeated keys, the three shapes, and each problem's line:column.
import { type Analysis, analyzeInput, type FileFormat, parseJsonText, refusedOf } from "./envelope.js";
import { duplicateKeyProblem, JsonTree, repeatsKeys } from "./json-document.js";
import { inTextOrder, type Problem } from "./problems.js";

export interface TextAnalysis {
  analysis: Analysis;
  /** The problem with the line and column of what it points at in the text, when that can be found. */
  locate(problem: Problem): Problem;
}

const BOM = 0xfeff;

/** An input file's text, its messages read as `format` reads them (src/a2a/input-file.ts). */
export function analyzeText(text: string, format: FileFormat): TextAnalysis {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { analysis: { valid: false, errors: [parsed.problem] }, locate: (problem) => problem };
  const body = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  // The tree takes many times the text's memory: it is built only when there is something to find in it.
  let tree: JsonTree | undefined | null = null;
  const treeOf = () => {
    if (tree === null) tree = JsonTree.of(body, parsed.value);
    return tree;
  };
  const locate = (problem: Problem): Problem => {
    if (problem.line !== undefined) return problem;
    const at = treeOf()?.locate(problem.path);
    return at ? { ...problem, ...at } : problem;
  };
  const repeated = repeatsKeys(body, parsed.value) ? (treeOf()?.duplicateKeys() ?? []) : [];
  const duplicates = repeated.map(duplicateKeyProblem);
  const analysis = analyzeInput(parsed.value, format);
  if (analysis.valid && duplicates.length === 0) return { analysis, locate };
  const errors = inTextOrder([...duplicates, ...(analysis.valid ? [] : analysis.errors)].map(locate));
  const refused = refusedOf(analysis);
  return {
    analysis: {
      valid: false,
      ...(analysis.dispatch ? { dispatch: analysis.dispatch } : {}),
      errors,
      ...(refused ? { refused } : {}),
    },
    locate,
  };
}
