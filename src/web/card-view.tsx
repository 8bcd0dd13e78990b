// The agent card (public), and the extended card when the server has one (it needs the token).
import { useEffect, useState } from "preact/hooks";
import type { Api } from "./api.js";
import { type Json, record, records } from "./task-fields.js";

export function CardView({ api }: { api: Api }) {
  const [card, setCard] = useState<Json | undefined>();
  const [extended, setExtended] = useState<Json | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api
      .json("GET", "/.well-known/agent-card.json")
      .then(setCard)
      .catch((e: Error) => setError(e.message));
    api
      .json("GET", "/a2a/rest/extendedAgentCard")
      .then(setExtended)
      .catch(() => setExtended(undefined));
  }, [api]);
  if (error)
    return (
      <p class="note problem" role="alert">
        {error}
      </p>
    );
  if (!card) return <p class="muted">Loading the card…</p>;
  const capabilities = record(card.capabilities);
  const extensions = records(capabilities.extensions);
  const interfaces = records(card.supportedInterfaces);
  const skills = records(card.skills);
  return (
    <section class="card" aria-labelledby="card-title">
      <h2 id="card-title">Agent card</h2>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{String(card.name ?? "")}</dd>
        <dt>Version</dt>
        <dd>{String(card.version ?? "")}</dd>
        <dt>Description</dt>
        <dd>{String(card.description ?? "")}</dd>
      </dl>
      <h3>Interfaces</h3>
      <ul>
        {interfaces.map((item) => (
          <li key={`${item.url}-${item.protocolBinding}-${item.protocolVersion}`}>
            {String(item.protocolBinding)} {String(item.protocolVersion)} <code>{String(item.url)}</code>
          </li>
        ))}
      </ul>
      <h3>Extensions</h3>
      <ul>
        {extensions.map((item) => (
          <li key={String(item.uri)}>
            <code>{String(item.uri)}</code>
            {item.required ? " (required)" : ""}
          </li>
        ))}
      </ul>
      <h3>Skills</h3>
      <ul>
        {skills.map((item) => (
          <li key={String(item.id)}>
            <strong>{String(item.name ?? item.id)}</strong>: {String(item.description ?? "")}
          </li>
        ))}
      </ul>
      <details>
        <summary>{extended ? "Extended card (JSON)" : "Card (JSON)"}</summary>
        <pre>{JSON.stringify(extended ?? card, null, 2)}</pre>
      </details>
    </section>
  );
}
