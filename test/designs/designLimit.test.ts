// The design-count limit (CONTRACT.md "Plan limits": free 10, plus 200, pro 2,000, business
// unlimited): past it, every path that makes a design answers 403 plan_limit with `limit` and
// `plan_needed` (REST, MCP with the members in _meta, the dashboard) and writes nothing, and
// concurrent creates one short of the limit make exactly one. The frozen copy an edit keeps
// published posts' pages on is counted but never refused; and only one function inserts design
// rows, the one that checks the limit.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDesignService } from '../support/designService.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey, signedInDashboard } from '../support/server.ts';
import type { TestAccount } from '../support/service.ts';

const svc = useDesignService();
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

const PLUS_LIMIT = 200;
const refusal = (limit: number, plan_needed: string) => ({
  code: 'plan_limit',
  limit,
  plan_needed,
  detail: expect.stringMatching(/keeps .* designs, the most its plan allows/),
});

const counts = async (acct: TestAccount) =>
  (
    await svc.server.pool.query(
      `select (select count(*) from designs where account_id = $1)::int as designs,
              (select count(*) from posts where account_id = $1)::int as posts`,
      [acct.accountId],
    )
  ).rows[0] as { designs: number; posts: number };

/** A design made the ordinary way (a native post), then copies of it up to `total` designs. */
async function fillDesigns(acct: TestAccount, key: string, total: number) {
  const first = await nativePost(acct, key);
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  await svc.server.pool.query(
    `insert into designs (account_id, brand_id, template, layout)
     select account_id, brand_id, template, layout from designs, generate_series(2, $2)
     where id = $1`,
    [first.body.design_id, total],
  );
  return first.body as { id: string; design_id: string };
}

const nativePost = (acct: TestAccount, key: string, extra: Record<string, unknown> = {}) =>
  call(svc.server, 'POST', '/v1/posts', {
    key,
    body: {
      platform: 'bluesky',
      body: 'Ship faster',
      brand_id: acct.brandId,
      template: 'launch-big-type',
      layout: { canvas: { aspect: 'portrait' } },
      ...extra,
    },
  });

describe('an account at its plan’s design limit', () => {
  let acct: TestAccount, key: string, client: Client, shared: { id: string; design_id: string };
  beforeAll(async () => {
    acct = await makeAccount(svc.server.pool, 'plus');
    key = await makeKey(svc.server.pool, acct.accountId, ['read', 'publish', 'media']);
    shared = await fillDesigns(acct, key, PLUS_LIMIT);
    client = await connectMcp(svc.server, key, 'limit-test');
    clients.push(client);
  });

  it('REST POST /v1/posts with a layout answers 403 plan_limit and stores neither post nor design', async () => {
    const before = await counts(acct);
    const res = await nativePost(acct, key);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refusal(PLUS_LIMIT, 'pro'));
    expect(await counts(acct)).toEqual(before);
    // A post without a design of its own is still made.
    const plain = await call(svc.server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'bluesky', body: 'Words only' },
    });
    expect(plain.status).toBe(201);
  });

  it('MCP create_design and use_video_template answer plan_limit with limit and plan_needed in _meta', async () => {
    const before = await counts(acct);
    const made = await client.callTool({
      name: 'create_design',
      arguments: { brand_uuid: acct.brandUuid, template: 'launch-big-type', headline: 'One more' },
    });
    expect(made.isError).toBe(true);
    expect((made.content as { text: string }[])[0]!.text).toMatch(/^plan_limit: /);
    expect(made._meta).toEqual({ code: 'plan_limit', limit: PLUS_LIMIT, plan_needed: 'pro' });

    const video = await client.callTool({
      name: 'use_video_template',
      arguments: {
        template: 'clip-headline-square',
        platform: 'mastodon',
        brand_id: acct.brandId,
        texts: { headline: 'One more' },
      },
    });
    expect(video.isError).toBe(true);
    expect((video.content as { text: string }[])[0]!.text).toMatch(/^plan_limit: /);
    expect(video._meta).toMatchObject({ code: 'plan_limit', limit: PLUS_LIMIT });
    expect(await counts(acct)).toEqual(before);
  });

  it('a post’s own copy of a shared design (only_this_post) is a new design: refused, nothing changes', async () => {
    const second = await call(svc.server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Same picture',
        brand_id: acct.brandId,
        design_id: shared.design_id,
      },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const before = await counts(acct);
    const res = await call(svc.server, 'PATCH', `/v1/posts/${second.body.id}/design`, {
      key,
      body: { template: 'launch-big-type', only_this_post: true },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refusal(PLUS_LIMIT, 'pro'));
    expect(await counts(acct)).toEqual(before);
    const post = await svc.server.pool.query('select design_id::text from posts where id = $1', [
      second.body.id,
    ]);
    expect(post.rows[0].design_id).toBe(shared.design_id);

    const viaMcp = await client.callTool({
      name: 'design_post',
      arguments: {
        post_id: second.body.id,
        layout_version: 1,
        layout: { canvas: { aspect: 'portrait' }, layers: [] },
        only_this_post: true,
      },
    });
    expect((viaMcp.content as { text: string }[])[0]!.text).toMatch(/^plan_limit: /);
    expect(viaMcp._meta).toMatchObject({ code: 'plan_limit', limit: PLUS_LIMIT });
    expect(await counts(acct)).toEqual(before);
  });

  it('an edit of a shared design at the limit still moves published posts to a frozen copy: counted, never refused', async () => {
    // The first post went out: editing its design must keep its pages on a copy of the design.
    await svc.server.pool.query(
      `update posts set status = 'published', external_post_id = '1' where id = $1`,
      [shared.id],
    );
    const other = await call(svc.server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Also',
        brand_id: acct.brandId,
        design_id: shared.design_id,
      },
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const before = await counts(acct);
    const res = await call(svc.server, 'PATCH', `/v1/posts/${other.body.id}/design`, {
      key,
      body: { template: 'launch-big-type' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await counts(acct)).toEqual({ ...before, designs: before.designs + 1 });
    const published = await svc.server.pool.query(
      'select design_id::text from posts where id = $1',
      [shared.id],
    );
    expect(published.rows[0].design_id).not.toBe(shared.design_id);
  });

  it('20 concurrent creates one short of the limit make exactly one design', async () => {
    const other = await makeAccount(svc.server.pool, 'plus');
    const otherKey = await makeKey(svc.server.pool, other.accountId, ['read', 'publish']);
    await fillDesigns(other, otherKey, PLUS_LIMIT - 1);
    const racer = await connectMcp(svc.server, otherKey, 'limit-race');
    clients.push(racer);
    // A video design waits for no render, so no render slot holds any of the 20 back.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        racer.callTool({
          name: 'use_video_template',
          arguments: {
            template: 'clip-headline-square',
            platform: 'mastodon',
            brand_id: other.brandId,
            texts: { headline: `Race ${i}` },
          },
        }),
      ),
    );
    const made = answers.filter((a) => !a.isError);
    expect(made).toHaveLength(1);
    for (const a of answers.filter((x) => x.isError))
      expect(a._meta).toEqual({ code: 'plan_limit', limit: PLUS_LIMIT, plan_needed: 'pro' });
    expect(await counts(other)).toEqual({ designs: PLUS_LIMIT, posts: 2 });
  }, 120_000);
});

describe('the dashboard at the free plan’s limit', () => {
  it('refuses a design and a video design with 403 plan_limit naming plus, storing nothing', async () => {
    const me = await signedInDashboard(svc.server, 'free');
    const acct = me.acct;
    const key = await makeKey(svc.server.pool, acct.accountId, ['read', 'publish']);
    // The free plan has no API access: fill through the database, from one real design.
    await svc.server.pool.query("update accounts set plan = 'plus' where id = $1", [
      acct.accountId,
    ]);
    await fillDesigns(acct, key, 10);
    await svc.server.pool.query("update accounts set plan = 'free' where id = $1", [
      acct.accountId,
    ]);
    const before = await counts(acct);
    const design = await me.send('POST', '/designs', {
      brand_uuid: acct.brandUuid,
      template: 'launch-big-type',
      headline: 'Eleventh',
    });
    expect(design.status).toBe(403);
    expect(design.body).toEqual(refusal(10, 'plus'));
    const video = await me.send('POST', '/video-designs', {
      template: 'clip-headline-square',
      platform: 'mastodon',
      texts: { headline: 'Eleventh' },
    });
    expect(video.status).toBe(403);
    expect(video.body).toEqual(refusal(10, 'plus'));
    expect(await counts(acct)).toEqual(before);
  });
});

describe('where a design row is made', () => {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  const INSERT = /insert\s+into\s+(?:"?public"?\.)?"?designs"?[\s(]/gi;
  const sources = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(dir, f));

  it('only makeDesign in core/designs/db.ts (behind storeDesign) inserts into designs, so the limit holds on every path', () => {
    const writers = ['api', 'bin', 'core', 'workers']
      .flatMap(sources)
      .filter((f) => readFileSync(path.join(ROOT, f), 'utf8').match(INSERT));
    expect(writers).toEqual([path.join('core', 'designs', 'db.ts')]);
    const db = readFileSync(path.join(ROOT, 'core/designs/db.ts'), 'utf8');
    const start = db.indexOf('export async function makeDesign(');
    expect(start).toBeGreaterThan(-1);
    const body = db.slice(start, db.indexOf('\n}\n', start));
    expect(body.match(INSERT)?.length).toBe(db.match(INSERT)?.length);
  });
});
