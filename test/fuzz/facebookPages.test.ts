// Property-based fuzzing of the Facebook Page choice's session routes (GET
// /app/api/accounts/{id}/pages, PUT /app/api/accounts/{id}/page) against the Meta stand-in:
// any id in the path (the session's connection, another account's, missing, hostile text) and
// any body (a Page of the user's, one not theirs, hostile values, extra keys). Nothing answers
// 5xx, no answer carries a token, the connection always publishes as one of its user's Pages
// with that Page's name as its handle, and another account's connection never changes.
// FUZZ_RUNS and FUZZ_SEED tune the runs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configuredCredentialsKey, openCredentials } from '../../core/connections/service.ts';
import {
  encodeLoosely,
  fuzzParams,
  hostileString,
  hostileValue,
  pathSegment,
  toJson,
} from '../support/arbitraries.ts';
import {
  connectFacebook,
  facebookMetaEnv,
  useFacebookMeta,
} from '../support/facebookConnection.ts';
import { call, makeAccount, signedInDashboard } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const meta = useFacebookMeta();
const server = useServer(() => ({ env: facebookMetaEnv(meta) }));

const stateOf = async (id: string) => {
  const { rows } = await server.pool.query(
    'select handle, credentials from connected_accounts where id = $1',
    [id],
  );
  const credentials = openCredentials(configuredCredentialsKey(server.config), rows[0].credentials);
  return { handle: rows[0].handle as string, pageId: credentials.page_id as string };
};

describe('the Page choice routes, fuzzed', () => {
  it('never fail, never show a token, and leave the connection on one of its Pages', async () => {
    const d = await signedInDashboard(server);
    const own = await connectFacebook(server, meta, {
      accountId: d.acct.accountId,
      brandId: d.brand.id,
    });
    const stranger = await connectFacebook(server, meta, await makeAccount(server.pool));
    const strangerBefore = await stateOf(stranger.id);
    const pageIds = meta.pages.map((p) => p.id);

    const id = fc.oneof(
      { weight: 4, arbitrary: fc.constant(own.id) },
      { weight: 1, arbitrary: fc.constant(stranger.id) },
      { weight: 1, arbitrary: fc.constantFrom('999999999999', '0', '-1', '9'.repeat(30)) },
      { weight: 1, arbitrary: pathSegment(hostileValue) },
    );
    const pageId = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...pageIds) },
      { weight: 1, arbitrary: fc.stringMatching(/^\d{1,40}$/) },
      { weight: 1, arbitrary: hostileString },
      { weight: 1, arbitrary: hostileValue },
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: pageId.map((page_id) => ({ page_id })) },
      { weight: 1, arbitrary: fc.record({ page_id: pageId, extra: hostileValue }) },
      { weight: 1, arbitrary: hostileValue },
    );
    const request = fc.oneof(
      id.map((i) => ({ method: 'GET', path: `/accounts/${i}/pages`, body: undefined as unknown })),
      fc.tuple(id, body).map(([i, b]) => ({ method: 'PUT', path: `/accounts/${i}/page`, body: b })),
    );

    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const raw = r.method === 'PUT' ? (toJson(r.body) ?? 'null') : undefined;
        const res = await call(server, r.method, `/app/api${r.path}`, {
          headers: { ...d.headers, ...(raw ? { 'content-type': 'application/json' } : {}) },
          raw,
        });
        const said = `${r.method} ${r.path} ${raw ?? ''} → ${res.status}`;
        expect(res.status, said).toBeLessThan(500);
        statuses.add(res.status);
        const text = JSON.stringify(res.body);
        for (const token of meta.tokens.keys()) expect(text, said).not.toContain(token);
        const now = await stateOf(own.id);
        const page = meta.pages.find((p) => p.id === now.pageId);
        expect(page, said).toBeDefined();
        expect(now.handle, said).toBe(page!.name);
      }),
      fuzzParams(60),
    );
    // The runs reached past validation: Pages listed and chosen, strangers and bad input refused.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 404, 422]));
    expect(await stateOf(stranger.id)).toEqual(strangerBefore);
    // The valid choice still works after all that.
    const res = await d.send('PUT', `/accounts/${encodeLoosely(own.id)}/page`, {
      page_id: pageIds[1],
    });
    expect(res.status).toBe(200);
    expect(res.body.handle).toBe('Brand Shop');
  });
});
