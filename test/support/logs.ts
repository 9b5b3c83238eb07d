// A destination for a test's logger: each line the logger writes is handed to `write`, so a test
// can read what was logged (and check that a secret never was).
import { Writable } from 'node:stream';

export const logSink = (write: (line: string) => void): Writable =>
  new Writable({
    write(chunk, _enc, done) {
      write(String(chunk));
      done();
    },
  });
