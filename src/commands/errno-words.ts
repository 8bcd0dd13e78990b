// A file-system error said in words: a person reading `validate` output should not need to know ENOENT.
const WORDS: Record<string, string> = {
  ENOENT: "nothing at that path",
  EACCES: "a file it has no permission to read",
  EPERM: "a file it is not permitted to read",
  EISDIR: "a directory",
  ENOTDIR: "a path through something that is not a directory",
  ELOOP: "a loop of symbolic links",
  ENAMETOOLONG: "a name too long for the file system",
  EMFILE: "too many files open already",
  ENFILE: "too many files open on the system",
  EIO: "an input/output error",
  ENXIO: "a device or socket that cannot be read",
  EAGAIN: "a file that is not ready to be read",
  EBUSY: "a file that is busy",
};

/** `error` in words, e.g. "nothing at that path"; its message when it has no errno code we know. */
export function errnoWords(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code !== undefined && WORDS[code]) return WORDS[code];
  return `an error (${(error as Error)?.message ?? String(error)})`;
}
