// A field a caller chose, cut before it goes into a log line: a 900 000-character messageId must not be copied whole
// into stderr on every send (docs/security.md, "Bounded answers, a send run once, and small inputs").

/** Characters of a caller's field a log line keeps. */
const LOG_FIELD_CHARS = 100;

/** `text` cut to `max` characters, saying how long it was when it is longer. */
export function cutText(text: string, max = LOG_FIELD_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** `text` as JSON (so a control character cannot forge a line), cut to `max` characters. */
export function logField(text: string, max = LOG_FIELD_CHARS): string {
  return text.length <= max
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)`;
}
