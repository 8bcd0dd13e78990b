// Every task of this runtime, newest first, live (src/web/task-list-source.ts), with the filters of ListTasks.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Api } from "./api.js";
import { useNow } from "./hooks.js";
import { summary, type Task } from "./task-fields.js";
import { type ListFilters, TaskListSource } from "./task-list-source.js";
import { StateBadge } from "./task-view.js";
import { duration, STATES } from "./words.js";

function Filters({ filters, onChange }: { filters: ListFilters; onChange: (filters: ListFilters) => void }) {
  const [contextId, setContextId] = useState(filters.contextId);
  return (
    <form
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        onChange({ ...filters, contextId: contextId.trim() });
      }}
    >
      {/* A label and its box stay on one row: the row breaks between the filters, never inside one. */}
      <span class="filter">
        <label for="filter-status">State</label>
        <select
          id="filter-status"
          value={filters.status}
          onChange={(event) => onChange({ ...filters, status: (event.target as HTMLSelectElement).value })}
        >
          <option value="">any</option>
          {Object.entries(STATES).map(([name, state]) => (
            <option key={name} value={name}>
              {state.word}
            </option>
          ))}
        </select>
      </span>
      <span class="filter">
        <label for="filter-context">Context</label>
        <input
          id="filter-context"
          value={contextId}
          placeholder="any"
          autoComplete="off"
          onInput={(event) => setContextId((event.target as HTMLInputElement).value)}
        />
      </span>
      <button type="submit">Filter</button>
    </form>
  );
}

function Item({ task, selected, now, onOpen }: { task: Task; selected: boolean; now: number; onOpen: () => void }) {
  const at = Date.parse(task.status.timestamp ?? "");
  return (
    <li>
      <button
        type="button"
        class={`task-item${selected ? " selected" : ""}`}
        aria-current={selected ? "true" : undefined}
        data-task-id={task.id}
        onClick={onOpen}
      >
        <StateBadge state={task.status.state} />
        <span class="task-summary">{summary(task)}</span>
        <span class="task-age">{Number.isNaN(at) ? "" : `${duration(now - at)} ago`}</span>
        <code class="task-id">{task.id.slice(0, 8)}</code>
      </button>
    </li>
  );
}

export function TaskList({ api, selected, onOpen }: { api: Api; selected?: string; onOpen: (id: string) => void }) {
  const [filters, setFilters] = useState<ListFilters>({ status: "", contextId: "" });
  const [, redraw] = useState(0);
  const source = useRef<TaskListSource | undefined>(undefined);
  useEffect(() => {
    const list = new TaskListSource(api, filters, () => redraw((n) => n + 1));
    source.current = list;
    redraw((n) => n + 1);
    return () => list.stop();
  }, [api, filters]);
  const now = useNow(true);
  const list = source.current;
  return (
    <section class="tasks" aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <Filters filters={filters} onChange={setFilters} />
      {list?.error ? (
        <p class="note problem" role="alert">
          {list.error}
        </p>
      ) : null}
      {list && !list.loaded && !list.error ? <p class="muted">Loading…</p> : null}
      {list?.loaded && list.tasks.length === 0 ? <p class="muted">No task yet.</p> : null}
      <ul class="task-list" aria-live="polite" aria-relevant="additions" data-count={list?.tasks.length ?? 0}>
        {(list?.tasks ?? []).map((task) => (
          <Item key={task.id} task={task} selected={task.id === selected} now={now} onOpen={() => onOpen(task.id)} />
        ))}
      </ul>
      {list && list.nextPageToken !== "" ? (
        <button type="button" onClick={() => void list.more().catch(() => {})}>
          Show older tasks
        </button>
      ) : null}
    </section>
  );
}
