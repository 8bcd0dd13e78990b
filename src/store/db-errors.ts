// What went wrong with the state dir, in words: SQLite's result codes and the file system's errno codes.

const DISK_FULL = /^(SQLITE_FULL|ENOSPC|EDQUOT)$/;

const WORDS: ReadonlyArray<[RegExp, string]> = [
  [DISK_FULL, "the disk is full"],
  [/^(SQLITE_READONLY.*|EROFS)$/, "it is read-only"],
  [/^(EACCES|EPERM|SQLITE_PERM|SQLITE_AUTH)$/, "permission denied"],
  [/^(SQLITE_CORRUPT.*)$/, "the database is damaged"],
  [/^SQLITE_NOTADB$/, "the file is not an SQLite database"],
  [/^(SQLITE_CANTOPEN.*)$/, "it cannot be opened"],
  [/^ENOTDIR$/, "a part of the path is a file, not a directory"],
  [/^EISDIR$/, "a directory stands where a file should be"],
  [/^SQLITE_IOERR.*$/, "a read or write failed"],
];

/** "the disk is full (SQLITE_FULL: database or disk is full)" and the like. */
export function describeDbError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = (error as Error)?.message ?? String(error);
  if (typeof code !== "string") return message;
  const words = WORDS.find(([pattern]) => pattern.test(code))?.[1];
  return words ? `${words}: ${code}, ${message}` : `${code}: ${message}`;
}

export function isDamaged(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^(SQLITE_CORRUPT.*|SQLITE_NOTADB)$/.test(code);
}

export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && DISK_FULL.test(code);
}
