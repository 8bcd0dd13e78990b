// Maps working_dir onto the local workspace and proves, after symlinks, that nothing escapes it.
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { REQUEST_ROOTS, RUNNER_PATH } from "../uris.js";
import type { Envelope } from "./envelope-schema.js";
import { joinPointer } from "./json-pointer.js";
import { isRecord } from "./json-value.js";
import type { Problem } from "./problems.js";

export interface Placement {
  /** The workspace, symlinks resolved. */
  workspace: string;
  /** Where the command runs, symlinks resolved as far as it exists. */
  workingDir: string;
  runnerPath: string;
  requestPath: string;
}

export type PlacementResult =
  | { ok: true; placement: Placement; warnings: Problem[] }
  | { ok: false; errors: Problem[]; warnings: Problem[] };

const SANDBOX_ROOT = "/workspace";

/** `working_dir` → a path under the workspace (CONTRACT 3.1), or undefined when it can't be mapped. */
export function mapWorkingDir(workspace: string, workingDir: string | undefined): string | undefined {
  const root = resolve(workspace);
  const wd = workingDir ?? "";
  let mapped: string;
  if (wd === "") mapped = root;
  else if (wd === SANDBOX_ROOT || wd.startsWith(`${SANDBOX_ROOT}/`))
    mapped = resolve(root, `.${wd.slice(SANDBOX_ROOT.length)}`);
  else if (!isAbsolute(wd)) mapped = resolve(root, wd);
  else mapped = resolve(wd);
  return isInside(root, mapped) ? mapped : undefined;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** realpath of the longest existing prefix, with the rest appended: symlinks are resolved wherever they exist. */
function realpathNearest(path: string): string {
  const missing: string[] = [];
  let current = resolve(path);
  while (!existsSync(current)) {
    const parent = dirname(current);
    if (parent === current) break;
    missing.unshift(basename(current));
    current = parent;
  }
  try {
    return join(realpathSync(current), ...missing);
  } catch {
    return resolve(path);
  }
}

/** Places a valid envelope in the workspace; escapes are errors, missing files are warnings. */
export function place(workspace: string, envelope: Envelope, envelopePath: string): PlacementResult {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const wdPath = joinPointer(envelopePath, "working_dir");
  const requestPointer = joinPointer(envelopePath, "command", 3);
  if (!existsSync(workspace)) {
    errors.push({
      path: "",
      code: "workspace_missing",
      message: `expected a workspace directory, found nothing at ${workspace}`,
    });
    return { ok: false, errors, warnings };
  }
  const given = resolve(workspace);
  const root = realpathSync(workspace);
  // An absolute working_dir may name the workspace as given or as it resolves (when DIR is reached by a symlink).
  const mapped = mapWorkingDir(given, envelope.working_dir) ?? mapWorkingDir(root, envelope.working_dir);
  if (!mapped) {
    const inside = given === root ? given : `${given} (${root})`;
    errors.push({
      path: wdPath,
      code: "working_dir_outside",
      message: `expected /workspace, /workspace/SUB, a relative path or an absolute path inside ${inside}, found ${JSON.stringify(envelope.working_dir)}`,
    });
    return { ok: false, errors, warnings };
  }
  const workingDir = realpathNearest(mapped);
  if (!isInside(root, workingDir)) {
    errors.push({
      path: wdPath,
      code: "working_dir_escape",
      message: `expected the working directory to stay inside the workspace, found that it resolves to ${workingDir}`,
    });
    return { ok: false, errors, warnings };
  }
  if (!existsSync(workingDir)) {
    warnings.push({
      path: wdPath,
      code: "working_dir_missing",
      message: `the working directory ${workingDir} does not exist`,
    });
  }

  const request = envelope.command[3];
  const requestPath = join(workingDir, request);
  const requestReal = realpathNearest(requestPath);
  const allowed = REQUEST_ROOTS.map((folder) => join(workingDir, folder.replace(/\/$/, "")));
  if (!allowed.some((root) => isInside(root, requestReal) && requestReal !== root)) {
    errors.push({
      path: requestPointer,
      code: "request_escape",
      message: `expected the request to stay under ${REQUEST_ROOTS.join(" or ")} of the working directory, found that it resolves to ${requestReal}`,
    });
  } else if (!existsSync(requestPath)) {
    warnings.push({ path: requestPointer, code: "request_missing", message: `no request file at ${requestPath}` });
  }

  const runnerPath = join(workingDir, RUNNER_PATH);
  const runnerReal = realpathNearest(runnerPath);
  if (!isInside(workingDir, runnerReal)) {
    errors.push({
      path: joinPointer(envelopePath, "command", 1),
      code: "runner_escape",
      message: `expected the runner to stay inside the working directory, found that it resolves to ${runnerReal}`,
    });
  } else if (!existsSync(runnerPath)) {
    warnings.push({
      path: joinPointer(envelopePath, "command", 1),
      code: "runner_missing",
      message: `no runner at ${runnerPath}`,
    });
  }

  if (errors.length > 0) return { ok: false, errors, warnings };
  return { ok: true, placement: { workspace: root, workingDir, runnerPath, requestPath }, warnings };
}

/** Stands in for a request the schema refused, so the working directory is still checked; its problems are left out. */
const NO_REQUEST = ".aiwg/ops/runs/request.json";

/**
 * The workspace's errors for an envelope the schema refused (`reported` are its problems), so a file with a bad
 * request path and a bad working_dir hears of both (CONTRACT section 2: every problem): what of `working_dir` and
 * the request is readable is checked as `place` checks it; a field the schema already refused is not checked again.
 */
export function placementProblems(
  workspace: string,
  refused: { raw: unknown; path: string },
  reported: readonly Problem[],
): Problem[] {
  const { raw, path } = refused;
  if (!isRecord(raw)) return [];
  const refusedAt = (key: string) => {
    const at = joinPointer(path, key);
    return reported.some((problem) => problem.path === at || problem.path.startsWith(`${at}/`));
  };
  const workingDir = raw.working_dir;
  if (workingDir !== undefined && (typeof workingDir !== "string" || refusedAt("working_dir"))) return [];
  const command = Array.isArray(raw.command) ? raw.command : [];
  const request = typeof command[3] === "string" && !refusedAt("command") ? command[3] : undefined;
  const envelope = { working_dir: workingDir, command: ["", "", "", request ?? NO_REQUEST] } as unknown as Envelope;
  const placed = place(workspace, envelope, path);
  if (placed.ok) return [];
  const requestAt = joinPointer(path, "command");
  return placed.errors.filter(
    (problem) => problem.code !== "workspace_missing" && (request !== undefined || !problem.path.startsWith(requestAt)),
  );
}
