// The JWS payloads of a signed card (docs/reference.md, "Signed cards"). A2A 1.0 §8.4.1: the card without
// `signatures`, with the proto3 defaults of fields without presence left out, as RFC 8785 canonical JSON. The
// A2A SDKs compute another payload on verifying (the card read as the proto message, so without the fields it
// does not know, then without empty values): the card carries a signature over each, so both kinds of verifier
// accept it.
import canonicalize from "canonicalize";

/**
 * How a field of the AgentCard messages (a2a.proto) is written: `scalar` has no presence (its default is left
 * out), `optional` and `required` are always kept, `message:X` is a singular message (kept, its fields stripped),
 * `list` / `list:X` repeated, `map` / `map:X` a map (left out when empty), `struct` a google.protobuf.Struct
 * (kept as it is). A `required` message, list or map is kept even when empty.
 */
type Kind = "scalar" | "optional" | "required" | "struct" | `${"message" | "list" | "map"}${"" | `:${string}`}`;
type Message = Record<string, Kind | `required ${Kind}`>;

const SECURITY_REQUIREMENT: Message = { schemes: "map:StringList" };
const FLOW: Message = {
  authorizationUrl: "required",
  deviceAuthorizationUrl: "required",
  tokenUrl: "required",
  refreshUrl: "scalar",
  scopes: "required map",
  pkceRequired: "scalar",
};
const MESSAGES: Record<string, Message> = {
  AgentCard: {
    name: "required",
    description: "required",
    supportedInterfaces: "required list:AgentInterface",
    provider: "message:AgentProvider",
    version: "required",
    documentationUrl: "optional",
    capabilities: "required message:AgentCapabilities",
    securitySchemes: "map:SecurityScheme",
    securityRequirements: "list:SecurityRequirement",
    defaultInputModes: "required list",
    defaultOutputModes: "required list",
    skills: "required list:AgentSkill",
    iconUrl: "optional",
  },
  AgentInterface: { url: "required", protocolBinding: "required", tenant: "scalar", protocolVersion: "required" },
  AgentProvider: { url: "required", organization: "required" },
  AgentCapabilities: {
    streaming: "optional",
    pushNotifications: "optional",
    extensions: "list:AgentExtension",
    extendedAgentCard: "optional",
  },
  AgentExtension: { uri: "scalar", description: "scalar", required: "scalar", params: "struct" },
  AgentSkill: {
    id: "required",
    name: "required",
    description: "required",
    tags: "required list",
    examples: "list",
    inputModes: "list",
    outputModes: "list",
    securityRequirements: "list:SecurityRequirement",
  },
  SecurityRequirement: SECURITY_REQUIREMENT,
  StringList: { list: "list" },
  SecurityScheme: {
    apiKeySecurityScheme: "message:APIKeySecurityScheme",
    httpAuthSecurityScheme: "message:HTTPAuthSecurityScheme",
    oauth2SecurityScheme: "message:OAuth2SecurityScheme",
    openIdConnectSecurityScheme: "message:OpenIdConnectSecurityScheme",
    mtlsSecurityScheme: "message:MutualTlsSecurityScheme",
  },
  APIKeySecurityScheme: { description: "scalar", location: "required", name: "required" },
  HTTPAuthSecurityScheme: { description: "scalar", scheme: "required", bearerFormat: "scalar" },
  OAuth2SecurityScheme: { description: "scalar", flows: "required message:OAuthFlows", oauth2MetadataUrl: "scalar" },
  OpenIdConnectSecurityScheme: { description: "scalar", openIdConnectUrl: "required" },
  MutualTlsSecurityScheme: { description: "scalar" },
  OAuthFlows: {
    authorizationCode: "message:Flow",
    clientCredentials: "message:Flow",
    implicit: "message:Flow",
    password: "message:Flow",
    deviceCode: "message:Flow",
  },
  Flow: FLOW,
};

const OMIT = Symbol("omit");
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A message's fields with their defaults left out; a field the message does not have is kept as it is. */
function stripped(value: Record<string, unknown>, message: Message): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const kind = message[name];
    const result = kind === undefined ? item : strippedField(item, kind);
    if (result !== OMIT) kept[name] = result;
  }
  return kept;
}

function strippedField(value: unknown, declared: string): unknown {
  const required = declared.startsWith("required");
  const [shape = "", type] = (required ? declared.slice("required".length).trim() || "required" : declared).split(":");
  const inner = (item: unknown) => {
    const message = type === undefined ? undefined : MESSAGES[type];
    return message && isObject(item) ? stripped(item, message) : item;
  };
  switch (shape) {
    case "list":
      if (!Array.isArray(value)) return value;
      return value.length === 0 && !required ? OMIT : value.map(inner);
    case "map":
      if (!isObject(value)) return value;
      if (Object.keys(value).length === 0 && !required) return OMIT;
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inner(item)]));
    case "message":
      return inner(value);
    case "scalar":
      return value === "" || value === false || value === 0 ? OMIT : value;
    default:
      return value;
  }
}

/** The payload of A2A 1.0 §8.4.1 (the one its conformance kit verifies): every field of the card is covered. */
export function cardPayload(card: Record<string, unknown>): string {
  const { signatures: _signatures, ...unsigned } = card;
  return canonicalize(stripped(unsigned, MESSAGES.AgentCard as Message)) as string;
}

/** The fields of the 1.0 AgentCard message: the only ones the SDKs' payload holds. */
const AGENT_CARD_FIELDS = Object.keys(MESSAGES.AgentCard as Message);

/**
 * The payload the A2A SDKs verify (`canonicalizeAgentCard` of @a2a-js/sdk, the Python SDK's): the card read as the
 * AgentCard message, so without the fields it does not have (the 0.3 fields; the cards here have no unknown field
 * further down), proto3 defaults left out, then every "", null, [] and {} left out, recursively.
 */
export function sdkCardPayload(card: Record<string, unknown>): string {
  const fields: Record<string, unknown> = {};
  for (const name of AGENT_CARD_FIELDS) if (card[name] !== undefined) fields[name] = card[name];
  return canonicalize(withoutEmpty(stripped(fields, MESSAGES.AgentCard as Message)) ?? {}) as string;
}

function withoutEmpty(value: unknown): unknown {
  if (value === "" || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isObject(value)) {
    const kept: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleaned = withoutEmpty(item);
      if (cleaned !== undefined) kept[key] = cleaned;
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  }
  return value;
}
