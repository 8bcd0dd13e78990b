// The composition root of every `serve`: the task store (--state-dir), the dispatcher, the one A2A service, the one
// operations table and its JSON-RPC face (CONTRACT 5.5, 7), made once per process. The bindings add only their
// transport. Called the serve root, as "runtime" names the runtime/v1 extension (CONTRACT 9.2).
import { resolve } from "node:path";
import { AnswerCache, DEFAULT_TTL_SECONDS, MAX_ENTRIES } from "../a2a/answer-cache.js";
import type { OperatorSetup, RuntimeCard } from "../a2a/card.js";
import { CardSigner } from "../a2a/card-signature.js";
import { Idempotency } from "../a2a/idempotency.js";
import { DEFAULT_PUSH_TIMEOUT_MS } from "../a2a/push/deliverer.js";
import { PushService } from "../a2a/push/push-service.js";
import { allowedHostOf, WebhookHosts } from "../a2a/push/webhook-hosts.js";
import { A2aService } from "../a2a/service.js";
import { SigningKeyError } from "../a2a/signing-key.js";
import { DEFAULT_SETTLE_MS } from "../core/hitl/prompt.js";
import { MemoryPushConfigs } from "../core/push-configs.js";
import { DEFAULT_KEPT_ENDED, DEFAULT_KEPT_ENDED_BYTES, type TaskStore } from "../core/store.js";
import { DEFAULT_OUTPUT_LIMIT, Dispatcher } from "../core/task/dispatcher.js";
import { DEFAULT_MAX_LINE_BYTES } from "../io/line-splitter.js";
import { createMethods } from "../jsonrpc/methods.js";
import { answerLimitOf } from "../operations/answer-budget.js";
import { createOperations, type Operations } from "../operations/table.js";
import { MemoryStore } from "../store/memory.js";
import { openStateStore } from "../store/open.js";
import { obtainSigningKey } from "../store/signing-key-file.js";

export interface ServeRootOptions {
  workspace: string;
  instance?: string;
  maxConcurrent: number;
  stateDir?: string;
  /** `--keep-tasks`: ended tasks kept (in memory, or in the state dir). */
  keepTasks?: number;
  /** `--keep-bytes`: bytes the kept ended tasks hold together (output and messages). */
  keepBytes?: number;
  settleMs?: number;
  maxOutputBytes?: number;
  /** stdio: the longest request line. */
  maxLineBytes?: number;
  /** HTTP: the largest request body. */
  maxBodyBytes?: number;
  /** Which binding serves: its limit is the one the extended card names. */
  binding?: "stdio" | "http";
  version: string;
  /** --allow-webhook-host: hosts push deliveries may go to besides loopback (CONTRACT 9.3). */
  allowWebhookHost?: string[];
  pushTimeoutMs?: number;
  /** `--require-extensions` (CONTRACT 9.5). */
  requireExtensions?: boolean;
  /** `--idempotency-ttl-seconds` (CONTRACT 9.1). */
  idempotencyTtlSeconds?: number;
  /** `--signing-key`: the card signing key's file (else the state dir's kept key, else a fresh one). */
  signingKey?: string;
  /** `serve --http --grpc-port`: the port the gRPC binding listens on, which the cards name. */
  grpcPort?: number;
}

export interface ServeRoot {
  dispatcher: Dispatcher;
  service: A2aService;
  /** The one operations table every binding calls (src/operations/table.ts). */
  operations: Operations;
  /** Its JSON-RPC face, which stdio and HTTP JSON-RPC answer with. */
  methods: ReturnType<typeof createMethods>;
  push: PushService;
  /** Signs the cards (docs/reference.md, "Signed cards"). */
  signer: CardSigner;
  /** How the cards declare the runtime/v1 and idempotency/v1 extensions (CONTRACT 9). */
  runtimeCard: RuntimeCard;
  /** The bound of an answer and of a batch's answer, from --max-output-bytes (docs/reference.md, "Answer size"). */
  maxAnswerBytes: number;
  /** What the extended card tells an authenticated caller (CONTRACT 8.2). */
  operator: Omit<OperatorSetup, "containment">;
  /** Stops push deliveries (what is pending is dropped and counted) and lets go of the store (its last writes, its lock). */
  close(): void;
}

/** The bound of an answer and of a batch's answer under these options (docs/reference.md, "Answer size"). */
export const maxAnswerBytesOf = (options: Pick<ServeRootOptions, "maxOutputBytes">): number =>
  answerLimitOf(options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT);

/** The serve root, or the reason it can't start (a --state-dir that can't be used, or that another process holds). */
export async function createServeRoot(
  options: ServeRootOptions,
  log: (line: string) => void,
): Promise<ServeRoot | { error: string; exitCode: number }> {
  const outputLimit = options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT;
  const allowed: string[] = [];
  for (const value of options.allowWebhookHost ?? []) {
    const host = allowedHostOf(value);
    if ("problem" in host) return { error: host.problem, exitCode: 2 };
    allowed.push(host.host);
  }
  const keptEnded = options.keepTasks ?? DEFAULT_KEPT_ENDED;
  const keptEndedBytes = options.keepBytes ?? DEFAULT_KEPT_ENDED_BYTES;
  let store: TaskStore = new MemoryStore(keptEnded, keptEndedBytes);
  let instanceId = options.instance;
  if (options.stateDir) {
    // The SQLite store is loaded only here, so commands without --state-dir start as fast as before.
    const opened = await openStateStore(options.stateDir, {
      outputLimit,
      log,
      keptEnded,
      keptEndedBytes,
      ...(options.instance ? { instance: options.instance } : {}),
    });
    if (!opened.ok) return { error: opened.message, exitCode: opened.exitCode };
    store = opened.store;
    instanceId = opened.instanceId;
  }
  let signer: CardSigner;
  try {
    const obtained = await obtainSigningKey(options);
    for (const warning of obtained.warnings) log(warning);
    signer = new CardSigner(obtained.key);
    log(`signing the agent cards with key ${obtained.key.kid} (${obtained.key.alg}, ${obtained.source})`);
  } catch (error) {
    store.close?.();
    if (error instanceof SigningKeyError) return { error: error.message, exitCode: 2 };
    throw error;
  }
  const dispatcher = new Dispatcher({
    workspace: resolve(options.workspace),
    maxConcurrent: options.maxConcurrent,
    outputLimitBytes: outputLimit,
    ...(instanceId ? { instanceId } : {}),
    store,
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    onListenerError: (error) => log(`internal error while sending an event: ${(error as Error)?.stack ?? error}`),
  });
  const push = new PushService(dispatcher, store.pushConfigs ?? new MemoryPushConfigs(), {
    hosts: new WebhookHosts(allowed),
    timeoutMs: options.pushTimeoutMs ?? DEFAULT_PUSH_TIMEOUT_MS,
    maxQueuedBytes: outputLimit,
    log,
  });
  const service = new A2aService(dispatcher, push);
  const ttlSeconds = options.idempotencyTtlSeconds ?? DEFAULT_TTL_SECONDS;
  const cache = new AnswerCache({
    ttlMs: ttlSeconds * 1000,
    ...(store.keptAnswers ? { rows: store.keptAnswers } : {}),
    warn: log,
  });
  const http = options.binding === "http";
  const operator = {
    workspace: resolve(options.workspace),
    limits: {
      max_concurrent: options.maxConcurrent,
      max_output_bytes: outputLimit,
      settle_ms: options.settleMs ?? DEFAULT_SETTLE_MS,
      max_line_bytes: http ? null : (options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES),
      max_body_bytes: http ? (options.maxBodyBytes ?? null) : null,
    },
    state_dir: options.stateDir !== undefined,
  };
  const runtimeCard: RuntimeCard = {
    requireExtensions: options.requireExtensions === true,
    idempotencyTtlSeconds: ttlSeconds,
    maxCacheEntries: MAX_ENTRIES,
    ...(options.grpcPort === undefined ? {} : { grpcPort: options.grpcPort }),
  };
  const operations = createOperations({
    service,
    version: options.version,
    log,
    operator,
    runtime: runtimeCard,
    idempotency: new Idempotency(cache),
    signer,
  });
  const methods = createMethods(operations);
  const close = () => {
    push.close();
    store.close?.();
  };
  const maxAnswerBytes = maxAnswerBytesOf(options);
  return { dispatcher, service, operations, methods, runtimeCard, operator, push, signer, maxAnswerBytes, close };
}
