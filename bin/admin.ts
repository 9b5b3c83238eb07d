// Operator CLI: `npm run admin -- <command> [--flags]`. Prints JSON on stdout; on error a
// message on stderr and a non-zero exit. Uses DATABASE_URL, or the embedded Postgres of
// DATA_DIR (attached to when `npm start` already runs it).
import { parseArgs } from 'node:util';
import { COMMANDS, resolveCommand, UsageError } from '../core/admin/commands.ts';
import { ConfigError, loadConfig } from '../core/config.ts';
import { DomainError } from '../core/errors.ts';
import { createLogger } from '../core/logger.ts';
import { openDatabase } from '../core/runtime.ts';
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
  // Asked before the database opens: a prompt should not wait behind Postgres starting.
  if (command.readsPassword && values.password === undefined)
    values.password = await readPassword();
  const config = loadConfig();
  const log = createLogger('warn', process.stderr);
  const db = await openDatabase(config, log, { poolSize: 2 });
  try {
    const out = await command.run(db.pool, values, { config, log });
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } finally {
    await db.close();
  }
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
