// The bytes the `binary` fixture writes (test/fixtures/README.md), rebuilt here to compare against.
export const BINARY_STDOUT_BYTES = 344_505;

export function binaryFixtureBytes(): { stdout: Buffer; stderr: Buffer } {
  const stdout = Buffer.alloc(BINARY_STDOUT_BYTES);
  for (let i = 0; i < BINARY_STDOUT_BYTES - 3; i++) stdout[i] = (i * 131 + (i >> 8)) & 0xff;
  stdout.set([0xf0, 0x9f, 0x98], BINARY_STDOUT_BYTES - 3);
  return { stdout, stderr: Buffer.from([0xe2, 0x82, 0xac, 0xff, 0x0a]) };
}
