// Types of scripts/bench/h2load.mjs, for its unit test (TypeScript reads no types from a .mjs).
export interface H2loadSummary {
  seconds: number;
  rps: number;
  requests: {
    total: number;
    started: number;
    done: number;
    succeeded: number;
    failed: number;
    errored: number;
    timeout: number;
  };
  status: { "2xx": number; "3xx": number; "4xx": number; "5xx": number };
  dataBytes: number;
}

export interface H2loadRow {
  startUs: number;
  status: number;
  latencyUs: number;
}

export interface H2loadRun {
  requests: number;
  seconds: number;
  rps: number;
  p99_ms: number;
  error: string | undefined;
}

export function findH2load(path?: string, choice?: string): string | undefined;
export function grpcFrame(message: Uint8Array): Buffer;
export function parseH2loadSummary(text: string): H2loadSummary;
export function parseH2loadLog(text: string): H2loadRow[];
export function judgeH2load(summary: H2loadSummary, rows: H2loadRow[], answerBytes: number): H2loadRun;
export function runH2load(
  h2load: string,
  options: {
    url: string;
    bodyFile: string;
    headers: Record<string, string>;
    clients: number;
    streams: number;
    seconds: number;
    h1?: boolean;
    logFile: string;
  },
): Promise<{ summary: string; log: string }>;
