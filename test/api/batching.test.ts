// Under load, requests share statements (core/db/batch.ts): remembered keys' plain drafts are
// inserted several to a statement (insertDraftAsKeyBatched), and API keys looked up several
// to a statement (useApiKeyBatched). What each request sees must be what it sees alone: its
// own post, audit row, 404 or 401, and a deleted key refused on its very next request.
import { DatabaseError } from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useApiKeyToRemember } from '../../core/apikeys/db.ts';
import { hashApiKey } from '../../core/apikeys/keys.ts';
import { deleteApiKey } from '../../core/apikeys/service.ts';
import { insertDraftAsKeyBatched } from '../../core/posts/db.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer();
const draft = { platform: 'mastodon', body: 'A draft among many' };
// A body that a shared statement's array parameter must carry unchanged.
const bodyOf = (i: number) => `draft ${i}: "NULL", {a,b} \\ NULL \u00e9 😀`;

afterEach(() => vi.restoreAllMocks());

async function keyed() {
  const acct = await makeAccount(server.pool, 'plus');
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  const { rows } = await server.pool.query('select id from api_keys where account_id = $1', [
    acct.accountId,
  ]);
  return { acct, key, keyId: rows[0].id as string };
}

/** Names of the statements run on the server's pool from now on. */
function statementNames() {
  const spy = vi.spyOn(server.pool, 'query');
  return () => spy.mock.calls.map(([q]) => (q as { name?: string }).name ?? 'unnamed');
}

/**
 * Sends `requests` at once, up to five rounds, until one round's statements include
 * `statement` (the round shared a statement): each round's replies, in order.
 */
async function untilShared<T>(statement: string, requests: () => Promise<T>[]) {
  const rounds: T[][] = [];
  for (let round = 0; round < 5; round++) {
    const names = statementNames();
    rounds.push(await Promise.all(requests()));
    const shared = names().includes(statement);
    vi.restoreAllMocks();
    if (shared) return rounds;
  }
  throw new Error(`no round of ${rounds[0]!.length} requests at once shared ${statement}`);
}

describe('drafts created at once by remembered keys', () => {
  it('share statements, and each keeps its own post, audit row or 404', async () => {
    const a = await keyed();
    const b = await keyed();
    // The first request looks each key up and remembers it.
    for (const k of [a, b])
      expect((await call(server, 'POST', '/v1/posts', { key: k.key, body: draft })).status).toBe(
        201,
      );
    const rounds = await untilShared('insert_drafts_as_keys', () =>
      Array.from({ length: 30 }, (_, i) => {
        const { k, brand_id } = [
          { k: a, brand_id: undefined },
          { k: b, brand_id: undefined },
          { k: a, brand_id: b.acct.brandId }, // another account's brand
        ][i % 3]!;
        return call(server, 'POST', '/v1/posts', {
          key: k.key,
          body: { ...draft, body: bodyOf(i), hashtags: i % 2 ? 'NULL' : undefined, brand_id },
        }).then((r) => ({ i, k, r }));
      }),
    );
    for (const round of rounds)
      for (const { i, k, r } of round) {
        if (i % 3 === 2) {
          expect(r.status).toBe(404);
          expect(r.body).toMatchObject({ code: 'not_found' });
          continue;
        }
        expect(r.status).toBe(201);
        expect(r.body).toMatchObject({
          body: bodyOf(i),
          hashtags: i % 2 ? 'NULL' : null,
          brand_id: k.acct.brandId,
        });
        const { rows } = await server.pool.query(
          `select p.account_id, p.body, p.hashtags, a.actor_id, a.to_status
           from posts p join audit_log a on a.post_id = p.id where p.id = $1`,
          [r.body.id],
        );
        expect(rows).toEqual([
          {
            account_id: k.acct.accountId,
            body: bodyOf(i),
            hashtags: i % 2 ? 'NULL' : null,
            actor_id: k.keyId,
            to_status: 'draft',
          },
        ]);
      }
    // Nothing for the foreign brand: each account has its first draft and its own 10 a round.
    const { rows } = await server.pool.query(
      `select account_id, count(*)::int as n from posts where account_id = any($1)
       group by account_id order by account_id`,
      [[a.acct.accountId, b.acct.accountId]],
    );
    expect(rows.map((r) => r.n)).toEqual([1 + 10 * rounds.length, 1 + 10 * rounds.length]);
  });

  it('refuse a deleted key on its very next request, every one of them', async () => {
    const a = await keyed();
    expect((await call(server, 'POST', '/v1/posts', { key: a.key, body: draft })).status).toBe(201);
    await deleteApiKey(server.pool, a.acct.accountId, a.keyId);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(server, 'POST', '/v1/posts', { key: a.key, body: draft }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 401));
    const { rows } = await server.pool.query(
      'select count(*)::int as n from posts where account_id = $1',
      [a.acct.accountId],
    );
    expect(rows[0].n).toBe(1);
  });

  it('are made one by one when Postgres refuses their shared statement', async () => {
    const a = await keyed();
    const check = (await useApiKeyToRemember(server.pool, hashApiKey(a.key)))!;
    const post = (body: string, brandId = a.acct.brandId) => ({
      accountId: a.acct.accountId,
      brandId,
      platform: 'mastodon' as const,
      kind: 'text' as const,
      body,
      hashtags: null,
      scheduleAt: null,
    });
    const names = statementNames();
    // Four statements run at once; the eight asked for meanwhile share the fifth, which an
    // id out of bigint's range makes Postgres refuse.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        insertDraftAsKeyBatched(server.pool, {
          post: i === 9 ? post('refused', '99999999999999999999') : post(`one of twelve ${i}`),
          check,
        }),
      ),
    );
    expect(names().filter((n) => n.startsWith('insert_draft'))).toEqual([
      ...Array(4).fill('insert_draft_as_key'),
      'insert_drafts_as_keys',
      ...Array(8).fill('insert_draft_as_key'),
    ]);
    const refused = outcomes[9];
    expect(refused?.status).toBe('rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseError);
    const made = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value?.body);
    expect(made.sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `one of twelve ${i}`)
        .filter((_, i) => i !== 9)
        .sort(),
    );
    // Each once, with its audit row: the refused statement wrote nothing.
    const { rows } = await server.pool.query(
      `select count(distinct p.id)::int as posts, count(a.id)::int as audits
       from posts p join audit_log a on a.post_id = p.id where p.account_id = $1`,
      [a.acct.accountId],
    );
    expect(rows[0]).toEqual({ posts: 11, audits: 11 });
  });
});

describe('API keys looked up at once', () => {
  it('share statements, and each request answers for its own key', async () => {
    const a = await keyed();
    const b = await keyed();
    const unknown = await makeKey(server.pool, a.acct.accountId);
    await server.pool.query('delete from api_keys where key_hash = $1', [hashApiKey(unknown)]);
    const keys = [
      { key: a.key, email: a.acct.email },
      { key: b.key, email: b.acct.email },
      { key: unknown, email: undefined },
    ];
    const rounds = await untilShared('authenticate_api_keys', () =>
      Array.from({ length: 30 }, (_, i) => {
        const k = keys[i % 3]!;
        return call(server, 'GET', '/v1/me', { key: k.key }).then((r) => ({ k, r }));
      }),
    );
    for (const round of rounds)
      for (const { k, r } of round) {
        if (!k.email) {
          expect(r.status).toBe(401);
          continue;
        }
        expect(r.status).toBe(200);
        expect(r.body.email).toBe(k.email);
      }
  });
});
