// Small hooks shared by the views.
import { useEffect, useState } from "preact/hooks";

/** The time now, redrawn every `ms` while `running`. */
export function useNow(running: boolean, ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [running, ms]);
  return running ? now : Date.now();
}
