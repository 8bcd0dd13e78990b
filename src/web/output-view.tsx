// A task's output, drawn as lines in view only (CONTRACT section 10: a task of 100 000 lines stays responsive):
// every line is one row of fixed height, so the scroll position says which lines are in view; rows above and below
// are spacers whose height is set through the DOM (the CSP allows no style attribute in markup). The view follows
// the end while it is scrolled to the end. Text becomes text nodes only (src/web/ansi-spans.ts).
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ansiSpans } from "./ansi-spans.js";
import type { OutputLine, OutputLines } from "./output-lines.js";

/** Must match `.out-line` in console.css. */
const LINE_HEIGHT = 18;
const OVERSCAN = 20;
/** Spans of lines recently drawn, so that scrolling and new output do not parse the same lines again. */
const CACHE = 2000;

function Row({ line }: { line: OutputLine }) {
  const spans = spansOf(line);
  return (
    <div class={`out-line out-${line.stream}`}>
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

  const total = output.length;
  const visible = Math.ceil(scroll.height / LINE_HEIGHT);
  const first = follow.current
    ? Math.max(0, total - visible - OVERSCAN)
    : Math.max(0, Math.floor(scroll.top / LINE_HEIGHT) - OVERSCAN);
  const last = Math.min(total, first + visible + 2 * OVERSCAN);

  useLayoutEffect(() => {
    if (above.current) above.current.style.height = `${first * LINE_HEIGHT}px`;
    if (below.current) below.current.style.height = `${(total - last) * LINE_HEIGHT}px`;
    if (follow.current && box.current) box.current.scrollTop = box.current.scrollHeight;
  });

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setScroll({ top: element.scrollTop, height: element.clientHeight || 400 });
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
    if (line) rows.push(<Row key={output.dropped + index} line={line} />);
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
