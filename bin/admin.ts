// Operator CLI: `npm run admin -- <command> [--flags]`. Prints JSON on stdout; on error a
// message on stderr and a non-zero exit. Uses DATABASE_URL, or the embedded Postgres of
// DATA_DIR (attached to when `npm start` already runs it).
import { parseArgs } from 'node:util';
import { COMMANDS, checkNewPassword, resolveCommand, UsageError } from '../core/admin/service.ts';
import { ConfigError, loadConfig } from '../core/config.ts';
import { DomainError } from '../core/kernel/errors.ts';
import { createLogger } from '../core/logger.ts';
import { type DatabaseSource, describeDatabase, openDatabase } from '../core/runtime.ts';
import { readPassword } from './password.ts';

/** Every flag any command takes; each command validates the ones it uses. */
const STRING_FLAGS =
  'email password plan brand feature add per-minute name timezone scopes brand-id platform config id handle ratio floor';
const FLAGS: Record<string, { type: 'string' | 'boolean' }> = {
  off: { type: 'boolean' },
  ...Object.fromEntries(STRING_FLAGS.split(' ').map((f) => [f, { type: 'string' as const }])),
};

function usage(): string {
  return `usage: npm run admin -- <command>\ncommands:\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage}`)
    .join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const resolved = resolveCommand(argv);
  if (!resolved) {
    const given = argv
      .filter((a) => !a.startsWith('-'))
      .slice(0, 2)
      .join(' ');
    console.error(given ? `error: unknown command "${given}"\n${usage()}` : usage());
    return 2;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: resolved.rest, options: FLAGS, strict: true })
      .values as typeof values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${usage()}`);
  }
  const command = COMMANDS[resolved.name]!;
  // Whatever can be refused is refused before the operator is asked for a password.
  command.check?.(values);
  const config = loadConfig();
  const asksPassword = command.readsPassword && values.password === undefined;
  if (command.readsPassword && !asksPassword)
    checkNewPassword(String(values.password), '--password');
  // Piped input is read before the database opens: nothing there is refused without starting
  // Postgres. A terminal is prompted only once the database has found nothing to refuse.
  if (asksPassword && !process.stdin.isTTY) values.password = await passwordFromInput();
  const log = createLogger('warn', process.stderr);
  const db = await openDatabase(config, log, { poolSize: 2 });
  // On standard error (standard output is the JSON), so a command run from another folder or
  // with another DATA_DIR than the service's says it used, or just made, another database.
  console.error(databaseNote(db.source));
  try {
    if (asksPassword && values.password === undefined) {
      await command.checkBeforePassword?.(db.pool, values);
      values.password = await passwordFromInput();
    }
    const out = await command.run(db.pool, values, { config, log });
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } finally {
    await db.close();
  }
}

/** The password from standard input or the terminal, checked as --password would be. */
async function passwordFromInput(): Promise<string> {
  return checkNewPassword(await readPassword(), 'the password');
}

/** describeDatabase, with what to do when the one used was made just now. */
function databaseNote(source: DatabaseSource): string {
  const said = describeDatabase(source);
  if (source.kind !== 'embedded' || source.state !== 'created') return said;
  return (
    `${said}. The service uses it only when started with the same DATA_DIR (default ./data ` +
    'of the folder it starts in): if npm start runs elsewhere, run this command from its ' +
    'folder or with its DATA_DIR'
  );
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError || err instanceof DomainError || err instanceof ConfigError) {
      console.error(`error: ${err.message}`);
    } else {
      console.error(err);
    }
    process.exit(1);
  },
);
