// The production log destination (core/logger.ts): standard output written a batch at a time,
// yet no line is held back for long and none is lost when the process ends, crash or not.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LOGGER = path.join(import.meta.dirname, '../core/logger.ts');

/** Runs `body` in a fresh node process with `log` a logger on standard output. */
function run(body: string) {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { createLogger } from ${JSON.stringify(LOGGER)};
       const log = createLogger('info');
       ${body}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: Array<{ msg: string; at: number }> = [];
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const part of parts) lines.push({ msg: JSON.parse(part).msg, at: Date.now() });
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { lines, exited, stderr: child.stderr };
}

describe('log lines on standard output', () => {
  it('writes every line by the time the process exits, a crash included', async () => {
    const clean = run(`for (let i = 0; i < 500; i++) log.info('line ' + i);`);
    expect(await clean.exited).toBe(0);
    expect(clean.lines.map((l) => l.msg)).toEqual(
      Array.from({ length: 500 }, (_, i) => `line ${i}`),
    );

    const crash = run(
      `log.info('before the crash'); setTimeout(() => { throw new Error('boom'); }, 10);`,
    );
    expect(await crash.exited).not.toBe(0);
    expect(crash.lines.map((l) => l.msg)).toEqual(['before the crash']);
  });

  it('does not hold a quiet line back until exit', async () => {
    // One short line, then 1 s later a mark on standard error (five flush periods on): the
    // line is out before the mark.
    const quiet = run(`log.info('quiet'); setTimeout(() => process.stderr.write('mark'), 1000);`);
    let markedAfter: number | undefined;
    quiet.stderr.once('data', () => {
      markedAfter = quiet.lines.length;
    });
    expect(await quiet.exited).toBe(0);
    expect(markedAfter).toBe(1);
  });
});
