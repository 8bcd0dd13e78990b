// The three standard streams a command works with: passed in, so front ends and bindings are tested with pipes.
export interface Io {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}
