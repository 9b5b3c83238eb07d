// /competitors through the dashboard session: a brand tracks up to 20 profiles, each once
// (a handle's leading @ and case do not make it another), lists and removes them; a free
// plan, a bearer credential and another account's brand or profile are refused.
import { describe, expect, it } from 'vitest';
import { call, makeKey, makeSignedInAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer();
const add = (cookie: string, body: unknown) =>
  call(server, 'POST', '/competitors', { body, headers: { cookie } });

describe('/competitors', () => {
  it('adds, lists and removes a brand profiles, each once and at most 20', async () => {
    const { acct, cookie } = await makeSignedInAccount(server, 'plus');
    const made = await add(cookie, { platform: 'mastodon', handle: '@Rival@Social.Example' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      brand_id: acct.brandId,
      platform: 'mastodon',
      handle: 'rival@social.example',
    });
    const again = await add(cookie, { platform: 'mastodon', handle: 'rival@social.example' });
    expect([again.status, again.body.code]).toEqual([409, 'competitor_exists']);
    // Another platform is another profile.
    expect((await add(cookie, { platform: 'bluesky', handle: 'rival.bsky.social' })).status).toBe(
      201,
    );
    for (let i = 0; i < 18; i++)
      expect((await add(cookie, { platform: 'bluesky', handle: `r${i}.bsky.social` })).status).toBe(
        201,
      );
    const over = await add(cookie, { platform: 'bluesky', handle: 'one-more.bsky.social' });
    expect([over.status, over.body.code]).toEqual([409, 'competitor_limit']);

    const list = await call(server, 'GET', '/competitors', { headers: { cookie } });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(20);
    expect(list.body[0]).toMatchObject({ id: made.body.id, handle: 'rival@social.example' });

    const gone = await call(server, 'DELETE', `/competitors/${made.body.id}`, {
      headers: { cookie },
    });
    expect(gone.status).toBe(204);
    expect((await call(server, 'GET', '/competitors', { headers: { cookie } })).body).toHaveLength(
      19,
    );
    expect(
      (await add(cookie, { platform: 'mastodon', handle: 'rival@social.example' })).status,
    ).toBe(201);
  });

  it('refuses bad handles, a free plan, a bearer key, and another account', async () => {
    const { cookie } = await makeSignedInAccount(server, 'plus');
    for (const handle of ['', '@', 'two words', 'x'.repeat(201), 'https://bsky.app/profile/a'])
      expect((await add(cookie, { platform: 'mastodon', handle })).status, handle).toBe(422);
    // A platform whose profiles are not read is refused, not kept to count against the 20.
    for (const platform of ['myspace', 'x', 'linkedin'])
      expect((await add(cookie, { platform, handle: 'a' })).status, platform).toBe(422);

    const free = await makeSignedInAccount(server, 'free');
    const refused = await add(free.cookie, { platform: 'mastodon', handle: 'rival@x.social' });
    expect([refused.status, refused.body.code]).toEqual([403, 'plan_required']);
    expect(refused.body.detail).toMatch(
      /^Competitor tracking needs the plus plan .*account plan --email E --plan plus/,
    );

    const key = await makeKey(server.pool, free.acct.accountId);
    const bearer = await call(server, 'GET', '/competitors', { key });
    expect(bearer.status).toBe(401);

    const mine = await add(cookie, { platform: 'mastodon', handle: 'mine@x.social' });
    const other = await makeSignedInAccount(server, 'plus');
    const foreign = await call(server, 'DELETE', `/competitors/${mine.body.id}`, {
      headers: { cookie: other.cookie },
    });
    expect(foreign.status).toBe(404);
    const foreignBrand = await call(server, 'GET', `/competitors?brand_id=${free.acct.brandId}`, {
      headers: { cookie: other.cookie },
    });
    expect(foreignBrand.status).toBe(404);
  });
});
