// One e-mail schema (core/accounts/schema.ts, EmailInput) for sign-up, sign-in and the
// operator CLI: an e-mail an account can be made with through one is one the others take,
// and what one refuses the others refuse.
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandContext, UsageError } from '../../core/admin/commands.ts';
import { call } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer({ env: { SIGNUP: 'open' } });

const PASSWORD = 'a long password';

/** What each way in does with `email`: 'taken' or 'refused'. */
async function outcomes(email: string) {
  const signUp = await call(server, 'POST', '/auth/signup', {
    body: { email, password: PASSWORD },
  });
  const signIn = await call(server, 'POST', '/auth/login', {
    body: { email, password: PASSWORD },
  });
  const cli = await COMMANDS['account plan']!.run(
    server.pool,
    { email, plan: 'plus' },
    {} as CommandContext,
  ).then(
    () => 'taken',
    (e: Error) => (e instanceof UsageError ? 'refused' : 'taken'),
  );
  const of = (status: number, ok: number) =>
    status === ok ? 'taken' : status === 422 ? 'refused' : status;
  return { signUp: of(signUp.status, 201), signIn: of(signIn.status, 200), cli };
}

describe('an e-mail is taken or refused alike by sign-up, sign-in and the CLI', () => {
  const cases: [string, string, 'taken' | 'refused'][] = [
    ['spaces around it (trimmed)', '  Padded@Example.com ', 'taken'],
    ['320 characters', `${'a'.repeat(308)}@example.com`, 'taken'],
    ['321 characters', `${'b'.repeat(309)}@example.com`, 'refused'],
    ['no domain', 'nobody@', 'refused'],
    ['not an address', 'not an address', 'refused'],
  ];
  for (const [what, email, expected] of cases)
    it(what, async () => {
      expect(await outcomes(email)).toEqual({ signUp: expected, signIn: expected, cli: expected });
    });
});
