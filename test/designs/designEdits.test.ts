// Shared designs and their edits (SPEC.md "Native layout rules" 4-6): posts linked with
// design_id show the design's pages; PATCH /v1/posts/{id}/design changes the shared design for
// every unpublished linked post, never a published one; only_this_post copies first; a stale
// layout_version is 409 and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATES } from '../../core/templates/service.ts';
import { useDesignService } from '../support/designService.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string;
beforeAll(() => ({ server, acct, key } = svc));

const headline = (text: string) => ({
  canvas: { aspect: 'square', bg: '#ffffff' },
  layers: [
    { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 1080, h: 200, fill: '#e4572e', cid: 'band' },
    { kind: 'text', text, x: 80, y: 300, w: 900, size: 90, cid: 'title' },
  ],
});

const create = (body: Record<string, unknown>, k = key) =>
  call(server, 'POST', '/v1/posts', {
    key: k,
    body: { platform: 'bluesky', body: 'Caption', brand_id: acct.brandId, ...body },
  });
const patch = (postId: string, body: Record<string, unknown>) =>
  call(server, 'PATCH', `/v1/posts/${postId}/design`, { key, body });

/** A post's attachments and design as stored. */
async function stored(postId: string) {
  const { rows } = await server.pool.query(
    `select design_id::text, kind,
            array(select asset_id::text from post_assets where post_id = p.id order by position) as assets
     from posts p where id = $1`,
    [postId],
  );
  return rows[0] as { design_id: string; kind: string; assets: string[] };
}
const designRow = async (id: string) =>
  (await server.pool.query('select * from designs where id = $1', [id])).rows[0];

async function sharedDesign() {
  const first = await create({ layout: headline('Version one') });
  expect(first.status).toBe(201);
  const second = await create({ design_id: first.body.design_id, body: 'Another caption' });
  expect(second.status, JSON.stringify(second.body)).toBe(201);
  return { first: first.body, second: second.body };
}

describe('design_id links a new post to a shared design (rule 4)', () => {
  it('answers 201 with the design pages, captions kept separate', async () => {
    const { first, second } = await sharedDesign();
    expect(second).toMatchObject({
      design_id: first.design_id,
      layout_version: 1,
      body: 'Another caption',
      kind: 'image',
      render_error: null,
    });
    expect(second.media_paths).toEqual(first.media_paths);
    expect(second.asset_ids).toEqual(first.asset_ids);
    expect((await stored(second.id)).assets).toEqual(first.asset_ids);
  });

  it.each([
    ['layout', { layout: headline('x') }],
    ['template', { template: 'blank' }],
    ['asset_ids', { asset_ids: ['1'] }],
  ])('refuses %s beside design_id, storing nothing', async (field, extra) => {
    const { first } = await sharedDesign();
    const before = (await server.pool.query('select count(*)::int as n from posts')).rows[0].n;
    const res = await create({ design_id: first.design_id, ...extra });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain(`"${field}"`);
    expect((await server.pool.query('select count(*)::int as n from posts')).rows[0].n).toBe(
      before,
    );
  });

  it("refuses another account's design (404) and a design of another brand (422)", async () => {
    const other = await makeAccount(server.pool);
    const otherKey = await makeKey(server.pool, other.accountId, ['read', 'publish']);
    const theirs = await call(server, 'POST', '/v1/posts', {
      key: otherKey,
      body: { platform: 'bluesky', body: 'x', brand_id: other.brandId, layout: headline('x') },
    });
    expect(theirs.status).toBe(201);
    expect((await create({ design_id: theirs.body.design_id })).status).toBe(404);

    const brand = await server.pool.query(
      `insert into brands (account_id, name) values ($1, 'Second') returning id::text`,
      [acct.accountId],
    );
    const res = await create({ design_id: theirs.body.design_id, brand_id: brand.rows[0].id });
    expect(res.status).toBe(404);
    const mine = await create({ layout: headline('mine') });
    const cross = await create({ design_id: mine.body.design_id, brand_id: brand.rows[0].id });
    expect(cross.status).toBe(422);
    expect(cross.body.detail[0].msg).toMatch(/another brand/);
  });
});

describe('PATCH /v1/posts/{id}/design (rules 5 and 6)', () => {
  it('updates the shared design and every unpublished linked post; the published one keeps its pages', async () => {
    const { first, second } = await sharedDesign();
    const third = await create({ design_id: first.design_id });
    // The first post went out: it must never change again.
    await server.pool.query(
      `update posts set status = 'published', external_post_id = '1' where id = $1`,
      [first.id],
    );

    const res = await patch(second.id, { layout: headline('Version two'), layout_version: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      design_id: first.design_id,
      post_id: second.id,
      layout_version: 2,
      render_error: null,
    });
    expect(res.body.layout.layers[1]).toMatchObject({ cid: 'title', text: 'Version two' });
    expect(res.body.linked_post_ids.sort()).toEqual([second.id, third.body.id].sort());
    expect(res.body.media_paths).toHaveLength(1);
    expect(res.body.media_paths).not.toEqual(first.media_paths);

    const newPages = res.body.media_paths.map((p: string) => p.split('/').at(-2));
    expect((await stored(second.id)).assets).toEqual(newPages);
    expect((await stored(third.body.id)).assets).toEqual(newPages);

    const published = await stored(first.id);
    expect(published.assets).toEqual(first.asset_ids);
    expect(published.design_id).not.toBe(first.design_id);
    const frozen = await designRow(published.design_id);
    expect(frozen.layout_version).toBe(1);
    expect(frozen.layout.layers[1].text).toBe('Version one');
    const page = await fetch(`${server.baseUrl}/v1/assets/${first.asset_ids[0]}/content`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(page.status).toBe(200);
  });

  it('with only_this_post gives the post its own copy and leaves the others alone', async () => {
    const { first, second } = await sharedDesign();
    const res = await patch(second.id, {
      layout: headline('Just mine'),
      layout_version: 1,
      only_this_post: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.design_id).not.toBe(first.design_id);
    expect(res.body.layout_version).toBe(2);
    expect(res.body.linked_post_ids).toEqual([second.id]);
    expect((await stored(second.id)).design_id).toBe(res.body.design_id);
    expect(await stored(first.id)).toMatchObject({
      design_id: first.design_id,
      assets: first.asset_ids,
    });
    const original = await designRow(first.design_id);
    expect(original.layout_version).toBe(1);
    expect(original.layout.layers[1].text).toBe('Version one');
  });

  it('a stale layout_version is refused with 409 and the current version, changing nothing', async () => {
    const { first } = await sharedDesign();
    expect((await patch(first.id, { layout: headline('Two'), layout_version: 1 })).status).toBe(
      200,
    );
    const before = await designRow(first.design_id);
    const res = await patch(first.id, { layout: headline('Stale'), layout_version: 1 });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'version_conflict', current_version: 2 });
    expect(await designRow(first.design_id)).toEqual(before);
  });

  it('of two concurrent edits from the same version, exactly one wins', async () => {
    const { first, second } = await sharedDesign();
    const results = await Promise.all([
      patch(first.id, { layout: headline('From A'), layout_version: 1 }),
      patch(second.id, { layout: headline('From B'), layout_version: 1 }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!;
    const design = await designRow(first.design_id);
    expect(design.layout_version).toBe(2);
    expect(design.layout.layers[1].text).toBe(winner.body.layout.layers[1].text);
  });

  it('a layout is a whole replacement, not a merge (rule 6)', async () => {
    const { first } = await sharedDesign();
    const res = await patch(first.id, {
      layout: { layers: [{ kind: 'text', text: 'Only me', x: 10, y: 10, w: 500 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.layout.layers).toHaveLength(1);
    expect(res.body.layout.canvas).toEqual({ aspect: 'square', bg: '#ffffff' });
  });

  it('re-lays the design from a template with the post copy, keeping the aspect', async () => {
    const made = await create({
      body: 'Big news\nMore below',
      layout: { canvas: { aspect: 'landscape' }, layers: [] },
    });
    const res = await patch(made.body.id, { template: 'launch-big-type' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.template).toBe('launch-big-type');
    expect(res.body.layout.canvas.aspect).toBe('landscape');
    const texts = res.body.layout.layers.filter((l: { kind: string }) => l.kind === 'text');
    expect(texts.map((t: { text: string }) => t.text)).toContain('Big news');
  });

  it('with nothing to change renders the current layout again', async () => {
    const { first } = await sharedDesign();
    const res = await patch(first.id, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ layout_version: 1, render_error: null });
    expect(res.body.media_paths).toHaveLength(1);
  });

  it('refuses a published post (409), a post without a design (409) and bad layouts (422)', async () => {
    const { first, second } = await sharedDesign();
    await server.pool.query(
      `update posts set status = 'published', external_post_id = '1' where id = $1`,
      [first.id],
    );
    expect((await patch(first.id, {})).body.code).toBe('invalid_status');
    const plain = await create({ body: 'plain text, no design' });
    const noDesign = await patch(plain.body.id, {});
    expect([noDesign.status, noDesign.body.code]).toEqual([409, 'no_design']);
    const before = await designRow(first.design_id);
    const bad = await patch(second.id, {
      layout: { layers: [{ kind: 'text', text: 'x', x: 0, y: 0, w: 10, font: 'Comic' }] },
    });
    expect(bad.status).toBe(422);
    expect((await patch('999999', {})).status).toBe(404);
    expect(await designRow(first.design_id)).toEqual(before);
  });

  it('linked posts follow the page count, and an edit their platform cannot show is refused', async () => {
    const { first, second } = await sharedDesign();
    const page = { layers: [] };
    // Bluesky takes up to four images on one post: three pages stay an image post.
    const three = await patch(first.id, { layout: { pages: [page, page, page] } });
    expect(three.status, JSON.stringify(three.body)).toBe(200);
    expect(await stored(second.id)).toMatchObject({ kind: 'image' });
    expect((await stored(second.id)).assets).toHaveLength(3);
    // Five pages would be a carousel, which Bluesky does not take.
    const five = await patch(first.id, { layout: { pages: [page, page, page, page, page] } });
    expect(five.status).toBe(422);
    expect(five.body.detail[0].msg).toMatch(/bluesky/);
    expect((await designRow(first.design_id)).layout_version).toBe(2);
  });
});

describe('a render that fails (rule 3)', () => {
  it('answers 201 with the draft and render_error; a PATCH renders it again', async () => {
    const asset = { id: await uploadPng(server, key, { width: 8, height: 8 }, '#00f') };
    // The asset's bytes vanish from storage: the worker cannot draw it.
    const { rows } = await server.pool.query('select storage_key from assets where id = $1', [
      asset.id,
    ]);
    await svc.storage.delete(rows[0].storage_key);
    const made = await create({
      layout: { layers: [{ kind: 'image', asset_id: asset.id, x: 0, y: 0, w: 100, h: 100 }] },
    });
    expect(made.status).toBe(201);
    expect(made.body.render_error).toMatch(/Rendering failed/);
    expect(made.body.media_paths).toEqual([]);
    expect((await stored(made.body.id)).design_id).toBe(made.body.design_id);

    const retried = await patch(made.body.id, {
      layout: headline('No image this time'),
      layout_version: 1,
    });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ layout_version: 2, render_error: null });
    expect((await stored(made.body.id)).assets).toHaveLength(1);
  });
});

describe('premium templates', () => {
  it('need the pro plan: 403 plan_required on plus, nothing stored; 201 on pro', async () => {
    const premium = [...TEMPLATES.values()].find((t) => t.premium)!;
    const before = (await server.pool.query('select count(*)::int as n from designs')).rows[0].n;
    const refused = await create({ template: premium.name });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('plan_required');
    expect(refused.body.detail).toMatch(/pro plan/);
    expect((await server.pool.query('select count(*)::int as n from designs')).rows[0].n).toBe(
      before,
    );
    const pro = await makeAccount(server.pool, 'pro');
    const proKey = await makeKey(server.pool, pro.accountId, ['publish']);
    const made = await call(server, 'POST', '/v1/posts', {
      key: proKey,
      body: { platform: 'bluesky', body: 'Sale', brand_id: pro.brandId, template: premium.name },
    });
    expect(made.status).toBe(201);
    expect(made.body.render_error).toBeNull();
  });
});
