// What the log says about a GraphQL request: a client's mistake (variables of the wrong type, a
// missing variable) is the client's, not a fault of ours: no error line, no stack trace.
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.ts';
import { logSink } from '../support/logs.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const logged: string[] = [];
const server = useServer({
  logger: createLogger(
    'debug',
    logSink((line) => logged.push(line)),
  ),
});

let key: string;
beforeAll(async () => {
  const acct = await makeAccount(server.pool);
  key = await makeKey(server.pool, acct.accountId, ['read']);
});

const gql = (query: string, variables?: Record<string, unknown>) =>
  call(server, 'POST', '/graphql', { key, body: { query, variables } });

describe('a client error in GraphQL', () => {
  it('is answered, and logged below warn without a stack', async () => {
    logged.length = 0;
    const cases = [
      (await gql('query($n: Int) { posts(limit: $n) { id } }', { n: 'ten' })).body,
      (await gql('mutation($in: CreatePostInput!) { createPost(input: $in) { id } }', {})).body,
    ];
    for (const body of cases) expect(body.errors[0].message).toMatch(/^Variable "\$\w+"/);
    const lines = logged.map((l) => JSON.parse(l));
    const about = lines.filter((l) => /graphql/i.test(l.msg ?? ''));
    expect(about.length).toBeGreaterThan(0);
    for (const line of about) {
      expect(line.level, line.msg).toBeLessThan(40);
      expect(line.err?.stack, line.msg).toBeUndefined();
      expect(JSON.stringify(line), line.msg).not.toContain('    at ');
    }
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
