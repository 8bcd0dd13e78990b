// What the "new task" form sends: a pasted input file (any of the three shapes of CONTRACT section 2, which use A2A
// 0.3 names) as the 1.0 SendMessage body of the REST binding (CONTRACT 7.2), and where the pasted text sits in that
// body, so that problems the server finds are shown at the pasted text's fields too. Pure.
import { shapeOf } from "../a2a/input-file.js";
import { joinPointer } from "../core/envelope/json-pointer.js";
import { isRecord } from "../core/envelope/json-value.js";
import { ADAPTER_URI } from "../core/uris.js";

export interface SendBody {
  body: Record<string, unknown>;
  /** JSON Pointer of the pasted value inside `body`. */
  prefix: string;
}

const ROLES: Record<string, string> = { user: "ROLE_USER", agent: "ROLE_AGENT" };

/** A 0.3 part (`kind` text, data, file) as a 1.0 part; the 1.0 decoder ignores what it does not know. */
function part10(part: unknown): unknown {
  if (!isRecord(part)) return part;
  const { kind: _kind, ...rest } = part;
  return rest;
}

function message10(message: Record<string, unknown>, messageId: string): Record<string, unknown> {
  const { kind: _kind, role, parts, ...rest } = message;
  return {
    ...rest,
    messageId: typeof message.messageId === "string" ? message.messageId : messageId,
    role: typeof role === "string" ? (ROLES[role] ?? role) : "ROLE_USER",
    parts: Array.isArray(parts) ? parts.map(part10) : parts,
  };
}

/**
 * The body for a value that the validator accepted. `text` is the message text used for a bare envelope (what
 * becomes AIWG_A2A_MESSAGE); `messageId` a fresh id for a message that brings none. The console follows the task
 * itself, so the send returns at once.
 */
export function sendBody(value: Record<string, unknown>, text: string, messageId: string): SendBody {
  const shape = shapeOf(value);
  if (shape === "envelope") {
    const { $schema: _schema, ...envelope } = value;
    return {
      body: {
        message: {
          messageId,
          role: "ROLE_USER",
          parts: [{ text }],
          metadata: { [ADAPTER_URI]: envelope },
        },
        configuration: { returnImmediately: true },
      },
      prefix: joinPointer("/message/metadata", ADAPTER_URI),
    };
  }
  if (shape === "message") {
    const { $schema: _schema, ...message } = value;
    return {
      body: { message: message10(message, messageId), configuration: { returnImmediately: true } },
      prefix: "/message",
    };
  }
  const { $schema: _schema, message, configuration, ...rest } = value;
  const { blocking: _blocking, ...kept } = isRecord(configuration) ? configuration : {};
  return {
    body: {
      ...rest,
      message: message10(isRecord(message) ? message : {}, messageId),
      configuration: { ...kept, returnImmediately: true },
    },
    prefix: "",
  };
}

/** A pointer into the sent body as a pointer into the pasted value (unchanged when it points elsewhere). */
export function pastedPointer(field: string, prefix: string): string {
  if (prefix === "") return field;
  if (field === prefix) return "";
  return field.startsWith(`${prefix}/`) ? field.slice(prefix.length) : field;
}
