// The agent cards: the 0.3 card of `agent/getCard`, and the 1.0 card served over HTTP, which also carries the three
// 0.3 fields because it declares a 0.3 interface (CONTRACT 5.3, 8.2).
import {
  ADAPTER_NAME,
  ADAPTER_URI,
  HITL_URI,
  IDEMPOTENCY_URI,
  MODES,
  RUNTIME_KIND,
  RUNTIME_LOADOUT,
  RUNTIME_PROVIDER,
  RUNTIME_URI,
} from "../core/uris.js";

const DESCRIPTION = "Runs allowlisted adapter-command/v1 envelopes under a deadline and reports truthful task state.";

/** How the runtime's own extensions are declared (CONTRACT 9.1, 9.2, 9.5). */
export interface RuntimeCard {
  /** `--require-extensions`: RUNTIME and IDEMPOTENCY are `required`. */
  requireExtensions: boolean;
  idempotencyTtlSeconds: number;
  maxCacheEntries: number;
  /** `serve --http --grpc-port`: the gRPC binding's port on the HTTP binding's host, once it listens. */
  grpcPort?: number;
}

export const DEFAULT_RUNTIME_CARD: RuntimeCard = {
  requireExtensions: false,
  idempotencyTtlSeconds: 86_400,
  maxCacheEntries: 10_000,
};

function extensions(instanceId: string, runtime: RuntimeCard) {
  return [
    {
      uri: ADAPTER_URI,
      description: "Bounded adapter execution",
      required: false,
      params: { adapters: [ADAPTER_NAME], modes: [...MODES], input_modes: ["text-line"], instance_id: instanceId },
    },
    {
      uri: HITL_URI,
      description: "Human-in-the-loop prompts on text-line adapter commands",
      required: false,
      params: {},
    },
    {
      uri: RUNTIME_URI,
      description: "Which runtime ran the task: on the card and in every task's metadata",
      required: runtime.requireExtensions,
      params: { runtime: RUNTIME_KIND, provider: RUNTIME_PROVIDER, loadout: RUNTIME_LOADOUT, instance_id: instanceId },
    },
    {
      uri: IDEMPOTENCY_URI,
      description: "A retried send (same messageId) returns the first answer and never runs twice",
      required: runtime.requireExtensions,
      params: {
        ttl_seconds: runtime.idempotencyTtlSeconds,
        canonicalization: "jcs-rfc8785",
        hash_algorithm: "sha-256",
        max_cache_entries: runtime.maxCacheEntries,
      },
    },
  ];
}

const SKILLS = [
  {
    id: "adapter-command",
    name: "Bounded adapter command",
    description: "Runs sandbox-agent-runner in plan or assess mode",
    tags: ["adapter", "sandbox"],
  },
];

/** The A2A 0.3 AgentCard; `url` names the transport the card was asked on. */
export function agentCard03(
  version: string,
  instanceId: string,
  url = `stdio://adapter-command/${instanceId}`,
  runtime = DEFAULT_RUNTIME_CARD,
) {
  return {
    name: "adapter-command",
    description: DESCRIPTION,
    url,
    version,
    protocolVersion: "0.3.0",
    preferredTransport: "JSONRPC",
    capabilities: { streaming: true, pushNotifications: true, extensions: extensions(instanceId, runtime) },
    supportsAuthenticatedExtendedCard: true,
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: SKILLS,
  };
}

/** The A2A 1.0 AgentCard for a server at `base` (http://host:port), with the 0.3 fields for 0.3 clients. */
export function agentCard10(version: string, instanceId: string, base: string, runtime = DEFAULT_RUNTIME_CARD) {
  const jsonrpc = `${base}/a2a/jsonrpc`;
  return {
    name: "adapter-command",
    description: DESCRIPTION,
    version,
    supportedInterfaces: [
      { url: jsonrpc, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      // A gRPC target is host:port (A2A 1.0 §10), on the host the client reached.
      ...(runtime.grpcPort === undefined || base === ""
        ? []
        : [{ url: `${new URL(base).hostname}:${runtime.grpcPort}`, protocolBinding: "GRPC", protocolVersion: "1.0" }]),
      { url: jsonrpc, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: extensions(instanceId, runtime),
    },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: SKILLS,
    url: jsonrpc,
    preferredTransport: "JSONRPC",
    protocolVersion: "0.3.0",
  };
}

/** What the operator set up, which only an authenticated caller sees (CONTRACT 8.2: the extended card). */
export interface OperatorSetup {
  /** The workspace directory, resolved. */
  workspace: string;
  limits: {
    max_concurrent: number;
    max_output_bytes: number;
    settle_ms: number;
    /** The stdio bridge's line limit; null over HTTP. */
    max_line_bytes: number | null;
    /** The HTTP body limit; null on stdio. */
    max_body_bytes: number | null;
  };
  /** Whether tasks are kept in a --state-dir. */
  state_dir: boolean;
  /** The containment guard in use (CONTRACT 3.2). */
  containment: string;
}

type Card = { capabilities: { extensions: Array<{ uri: string; params: Record<string, unknown> }> } };

/** The extended card: `card` with the operator's setup in the ADAPTER extension's params. */
export function extendedCard<C extends Card>(card: C, setup: OperatorSetup): C {
  const extensions = card.capabilities.extensions.map((extension) =>
    extension.uri === ADAPTER_URI ? { ...extension, params: { ...extension.params, ...setup } } : extension,
  );
  return { ...card, capabilities: { ...card.capabilities, extensions } };
}

/** The 1.0 card of the stdio bridge: its one JSON-RPC interface in both versions, and no HTTP security scheme. */
export function stdioCard10(version: string, instanceId: string, runtime = DEFAULT_RUNTIME_CARD) {
  const url = `stdio://adapter-command/${instanceId}`;
  const {
    securitySchemes: _schemes,
    securityRequirements: _requirements,
    ...card
  } = agentCard10(version, instanceId, "", runtime);
  return {
    ...card,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    url,
  };
}
