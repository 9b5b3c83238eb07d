// The operator CLI's password input when --password is not given (a flag's value shows in
// npm's banner line, the shell's history and the process list): the first line of standard
// input, or, on a terminal, a prompt that does not echo what is typed.
import { UsageError } from '../core/admin/service.ts';

const MISSING =
  '--password: none given; send it on standard input (printf %s "$PASSWORD" | npm run admin -- account create ...) or type it at the prompt on a terminal';

export async function readPassword(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  if (!input.isTTY) {
    const line = await readFirstLine(input);
    if (!line) throw new UsageError(MISSING);
    return line;
  }
  const first = await promptHidden(input, output, 'Password: ');
  if (!first) throw new UsageError(MISSING);
  const again = await promptHidden(input, output, 'Password again: ');
  if (again !== first)
    throw new UsageError('the two passwords you typed differ; nothing was created');
  return first;
}

/**
 * Standard input up to its first newline, or to its end when none comes: a pipe whose writer
 * keeps it open (a wrapper that writes the line and then waits for the command) must not
 * leave the command waiting for an end that never arrives.
 */
async function readFirstLine(input: NodeJS.ReadStream): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return (text.split('\n', 1)[0] ?? '').replace(/\r$/, '');
}

/** One line typed on a terminal in raw mode, nothing echoed; Ctrl-C or Ctrl-D gives up. */
function promptHidden(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  question: string,
): Promise<string> {
  output.write(question);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (err?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('');
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}
