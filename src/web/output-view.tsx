// A task's output, drawn as lines in view only (CONTRACT section 10: a task of 100 000 lines stays responsive):
// a line is one row of LINE_HEIGHT unless it is too long for the width, then it wraps (never cut) and its measured
// height is kept (src/web/row-heights.ts), so the scroll position still says which lines are in view; rows above and
// below are spacers whose height is set through the DOM (the CSP allows no style attribute in markup). The view
// follows the end while it is scrolled to the end. Text becomes text nodes only (src/web/ansi-spans.ts).
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ansiSpans } from "./ansi-spans.js";
import type { OutputLine, OutputLines } from "./output-lines.js";
import { LINE_HEIGHT, RowHeights } from "./row-heights.js";

const OVERSCAN = 20;
/** Spans of lines recently drawn, so that scrolling and new output do not parse the same lines again. */
const CACHE = 2000;

function Row({ line, at }: { line: OutputLine; at: number }) {
  const spans = spansOf(line);
  return (
    <div class={`out-line out-${line.stream}`} data-at={at}>
      {line.stream === "stderr" ? <span class="out-tag">err </span> : <span class="out-tag">out </span>}
      {spans.map((span, index) =>
        span.className === "" ? (
          span.text
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: spans of a line never move
          <span key={index} class={span.className}>
            {span.text}
          </span>
        ),
      )}
    </div>
  );
}

const spanCache = new Map<OutputLine, ReturnType<typeof ansiSpans>>();
function spansOf(line: OutputLine) {
  let spans = spanCache.get(line);
  if (!spans) {
    spans = ansiSpans(line.text, line.sgr);
    spanCache.set(line, spans);
    if (spanCache.size > CACHE) spanCache.delete(spanCache.keys().next().value as OutputLine);
  }
  return spans;
}

export function OutputView({ output, version }: { output: OutputLines; version: number }) {
  const box = useRef<HTMLElement>(null);
  const above = useRef<HTMLDivElement>(null);
  const below = useRef<HTMLDivElement>(null);
  const [scroll, setScroll] = useState({ top: 0, height: 400 });
  const follow = useRef(true);
  const heights = useRef(new RowHeights());
  const [, remeasured] = useState(0);

  const total = output.length;
  const base = output.dropped;
  const visible = Math.ceil(scroll.height / LINE_HEIGHT);
  const first = follow.current
    ? Math.max(0, total - visible - OVERSCAN)
    : Math.max(0, heights.current.indexAt(base, scroll.top) - OVERSCAN);
  const last = Math.min(total, first + visible + 2 * OVERSCAN);

  useLayoutEffect(() => {
    // The rows drawn now say how tall a wrapped line is; a change draws the spacers (and the window) again.
    let changed = false;
    for (const row of box.current?.querySelectorAll<HTMLElement>(".out-line") ?? [])
      changed = heights.current.set(Number(row.dataset.at), row.offsetHeight) || changed;
    heights.current.forgetBefore(base);
    if (above.current) above.current.style.height = `${heights.current.span(base, base + first)}px`;
    if (below.current) below.current.style.height = `${heights.current.span(base + last, base + total)}px`;
    if (follow.current && box.current) box.current.scrollTop = box.current.scrollHeight;
    if (changed) remeasured((n) => n + 1);
  });

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let width = element.clientWidth;
    const measure = () => {
      // Another width wraps lines differently: what was measured no longer holds.
      if (element.clientWidth !== width) heights.current.clear();
      width = element.clientWidth;
      setScroll({ top: element.scrollTop, height: element.clientHeight || 400 });
    };
    const onScroll = () => {
      follow.current = element.scrollTop + element.clientHeight >= element.scrollHeight - LINE_HEIGHT;
      measure();
    };
    measure();
    element.addEventListener("scroll", onScroll, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => {
      element.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, []);

  const rows = [];
  for (let index = first; index < last; index++) {
    const line = output.line(index);
    if (line) rows.push(<Row key={base + index} at={base + index} line={line} />);
  }
  return (
    <section
      class="output"
      ref={box}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard
      tabIndex={0}
      aria-label="Output, stdout and stderr in the order written"
      data-lines={output.completed}
      data-version={version}
    >
      <div ref={above} />
      {rows}
      <div ref={below} />
      {total === 0 ? <p class="muted">No output yet.</p> : null}
    </section>
  );
}
