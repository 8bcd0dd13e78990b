// The console: first the token (CONTRACT section 10: a page without one asks for it; a wrong one is said so and no
// data is loaded), then the task list beside the view chosen: a task, a new task, or the agent card.
import { useEffect, useMemo, useState } from "preact/hooks";
import { Api, ApiError } from "./api.js";
import { CardView } from "./card-view.js";
import { NewTask } from "./new-task.js";
import { TaskList } from "./task-list.js";
import { TaskView } from "./task-view.js";
import { forgetToken, keepToken } from "./token.js";

type Access =
  | { phase: "checking" }
  | { phase: "ready" }
  | { phase: "ask"; refused: boolean }
  | { phase: "down"; words: string };

type View = { kind: "welcome" } | { kind: "task"; id: string } | { kind: "new" } | { kind: "card" };

function TokenForm({ refused, onToken }: { refused: boolean; onToken: (token: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <section class="token" aria-labelledby="token-title">
      <h2 id="token-title">{refused ? "The token was refused" : "This console needs the server's token"}</h2>
      {refused ? (
        <p class="note problem" role="alert">
          The server answered 401 Unauthenticated: the token this page had is not the one <code>serve --http</code>{" "}
          uses. No data was loaded. Open the <code>console</code> address from the server's start line again, or paste
          the token from its <code>tokenFile</code>.
        </p>
      ) : (
        <p role="status">
          No token was given. Open the <code>console</code> address printed in the server's start line, or paste the
          token from the file its <code>tokenFile</code> names.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim() !== "") onToken(value.trim());
        }}
      >
        <label for="token-input">Token</label>
        <input
          id="token-input"
          type="password"
          autoComplete="off"
          value={value}
          onInput={(event) => setValue((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          Use this token
        </button>
      </form>
    </section>
  );
}

export function App({ initialToken }: { initialToken: string | undefined }) {
  const [token, setToken] = useState(initialToken);
  const [access, setAccess] = useState<Access>({ phase: "checking" });
  const [view, setView] = useState<View>({ kind: "welcome" });
  const api = useMemo(() => new Api(token), [token]);

  // One small authenticated request says whether the token is good before anything else is asked for; with
  // --no-auth it passes without one.
  useEffect(() => {
    setAccess({ phase: "checking" });
    api
      .json("GET", "/a2a/rest/tasks?pageSize=1&historyLength=0")
      .then(() => setAccess({ phase: "ready" }))
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.http === 401) {
          if (token !== undefined) forgetToken();
          setAccess({ phase: "ask", refused: token !== undefined });
        } else setAccess({ phase: "down", words: (error as Error).message });
      });
  }, [api, token]);

  const header = (
    <header class="top">
      <h1>adapter-command console</h1>
      {access.phase === "ready" ? (
        <nav aria-label="Views">
          <button type="button" onClick={() => setView({ kind: "new" })} aria-pressed={view.kind === "new"}>
            New task
          </button>
          <button type="button" onClick={() => setView({ kind: "card" })} aria-pressed={view.kind === "card"}>
            Agent card
          </button>
        </nav>
      ) : null}
    </header>
  );
  if (access.phase !== "ready")
    return (
      <>
        {header}
        <main class="single">
          {access.phase === "checking" ? <p class="muted">Connecting…</p> : null}
          {access.phase === "down" ? (
            <p class="note problem" role="alert">
              {access.words}
            </p>
          ) : null}
          {access.phase === "ask" ? (
            <TokenForm
              refused={access.refused}
              onToken={(value) => {
                keepToken(value);
                setToken(value);
              }}
            />
          ) : null}
        </main>
      </>
    );
  return (
    <>
      {header}
      <main class="layout">
        <aside class="side">
          <TaskList
            api={api}
            {...(view.kind === "task" ? { selected: view.id } : {})}
            onOpen={(id) => setView({ kind: "task", id })}
          />
        </aside>
        <div class="detail">
          {view.kind === "task" ? <TaskView key={view.id} api={api} id={view.id} /> : null}
          {view.kind === "new" ? <NewTask api={api} onSent={(id) => setView({ kind: "task", id })} /> : null}
          {view.kind === "card" ? <CardView api={api} /> : null}
          {view.kind === "welcome" ? <p class="muted">Choose a task to follow it, or start a new one.</p> : null}
        </div>
      </main>
    </>
  );
}
