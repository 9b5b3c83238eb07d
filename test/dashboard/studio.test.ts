// The dashboard's making routes: the media library through the session (raw image,
// chunked video, delete, storage), designs from a template rendered by a real render worker
// and edited, a video design and its export job on the jobs list, drawings, and usage. Every
// change needs our Origin and the CSRF token, and a refused one stores nothing.
import { describe, expect, it } from 'vitest';
import { useDesignService } from '../support/designService.ts';
import { testPatternVideo } from '../support/noiseVideo.ts';
import { call, makeKey, signedInDashboard } from '../support/server.ts';
import { solidPng } from '../support/uploads.ts';
import { awayFromMinuteBoundary } from '../support/wait.ts';

const service = useDesignService();

async function signedIn(plan: 'free' | 'plus' | 'pro' = 'free') {
  const me = await signedInDashboard(service.server, plan);
  const raw = (
    method: string,
    path: string,
    bytes: Uint8Array<ArrayBuffer>,
    type: string,
    token = me.csrf,
  ) =>
    fetch(`${service.server.baseUrl}/app/api${path}`, {
      method,
      headers: { ...me.headers, 'x-csrf-token': token, 'content-type': type },
      body: bytes,
    });
  return { ...me, raw };
}

describe('/app/api library, designs, drawings, jobs and usage', () => {
  it('uploads an image and a chunked video into the library, lists them with storage and deletes', async () => {
    const me = await signedIn();
    const png = new Uint8Array(await solidPng({ width: 40, height: 30 }, '#336699'));
    // Without the CSRF token nothing is stored.
    const refused = await me.raw('POST', '/assets/upload', png, 'image/png', 'stale');
    expect(refused.status).toBe(403);
    expect((await me.send('GET', '/assets')).body.assets).toEqual([]);

    const image = await me.raw('POST', '/assets/upload', png, 'image/png');
    expect(image.status).toBe(201);
    const imageId = ((await image.json()) as { id: string }).id;

    const video = new Uint8Array(await testPatternVideo());
    const init = await me.send('POST', '/assets/upload/init', {
      filename: 'clip.mp4',
      size_bytes: video.byteLength,
    });
    expect(init.status).toBe(200);
    const part = await me.raw(
      'PUT',
      `/assets/upload/part?upload_id=${encodeURIComponent(init.body.upload_id)}&index=0`,
      video,
      'application/octet-stream',
    );
    expect(part.status).toBe(200);
    const finished = await me.send('POST', '/assets/upload/finish', {
      upload_id: init.body.upload_id,
      parts: 1,
    });
    expect([finished.status, finished.body.kind]).toEqual([201, 'video']);

    const listed = await me.send('GET', '/assets');
    expect(listed.body.assets.map((a: { id: string }) => a.id).sort()).toEqual(
      [imageId, finished.body.id].sort(),
    );
    expect(listed.body.storage.used_bytes).toBe(png.byteLength + video.byteLength);
    const thumb = await fetch(`${service.server.baseUrl}/app/api/assets/${imageId}/thumbnail`, {
      headers: { cookie: me.cookie },
    });
    expect([thumb.status, thumb.headers.get('content-type')]).toEqual([200, 'image/webp']);

    expect((await me.send('DELETE', `/assets/${imageId}`)).status).toBe(204);
    expect((await me.send('GET', '/assets')).body.assets).toHaveLength(1);
    // Another account's session sees none of it.
    const other = await signedIn();
    expect((await other.send('DELETE', `/assets/${finished.body.id}`)).status).toBe(404);
  });

  it('creates a design from a template, shows its rendered page and re-renders an edited text', async () => {
    const me = await signedIn();
    const templates = await me.send('GET', '/design-templates');
    expect(templates.status).toBe(200);
    expect(templates.body.templates.length).toBeGreaterThan(0);
    // The next page holds the rest of the catalogue, none twice.
    const rest = await me.send(
      'GET',
      `/design-templates?offset=${templates.body.templates.length}`,
    );
    const names = [...templates.body.templates, ...rest.body.templates].map((t: any) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(templates.body.templates[0].thumbnail_url).toMatch(/\/design-templates\/.+\.png$/);
    expect(templates.body.video_templates.length).toBeGreaterThan(0);

    const template = templates.body.templates.find(
      (t: { premium: boolean; slots: { name: string }[] }) =>
        !t.premium && t.slots.some((slot) => slot.name === 'headline'),
    );
    const made = await me.send('POST', '/designs', {
      brand_uuid: me.brand.uuid,
      template: template.name,
      headline: 'Spring sale',
    });
    expect([made.status, made.body.render_error]).toEqual([201, null]);
    const listed = await me.send('GET', '/designs');
    expect([listed.body.designs.length, listed.body.next_offset]).toEqual([1, null]);
    const card = listed.body.designs[0];
    expect([card.design_id, card.kind, card.rendered]).toEqual([
      made.body.design_id,
      'image',
      true,
    ]);
    // Signed at PUBLIC_BASE_URL's address; fetched where the test server listens.
    const signed = new URL(card.thumbnail_url);
    const page = await fetch(`${service.server.baseUrl}${signed.pathname}${signed.search}`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'image/png']);

    const detail = await me.send('GET', `/designs/${made.body.design_id}`);
    const text = detail.body.layers.layers.find((l: { summary: string }) =>
      l.summary.includes('Spring sale'),
    );
    expect(text).toBeDefined();
    expect(detail.body.page_urls).toHaveLength(1);

    const edited = await me.send('POST', `/designs/${made.body.design_id}/layers`, {
      layout_version: detail.body.layout_version,
      ops: [{ op: 'set', cid: text.cid, fields: { text: 'Summer sale' } }],
    });
    expect([edited.status, edited.body.layout_version]).toEqual([
      200,
      detail.body.layout_version + 1,
    ]);
    const after = await me.send('GET', `/designs/${made.body.design_id}`);
    expect(after.body.rendered).toBe(true);
    expect(
      after.body.layers.layers.some((l: { summary: string }) => l.summary.includes('Summer')),
    ).toBe(true);
    // A stale version is refused and changes nothing.
    const stale = await me.send('POST', `/designs/${made.body.design_id}/layers`, {
      layout_version: detail.body.layout_version,
      ops: [{ op: 'set', cid: text.cid, fields: { text: 'Lost' } }],
    });
    expect(stale.status).toBe(409);
    // Another account's session finds no such design.
    const other = await signedIn();
    expect((await other.send('GET', `/designs/${made.body.design_id}`)).status).toBe(404);
    const foreignEdit = await other.send('POST', `/designs/${made.body.design_id}/layers`, {
      layout_version: after.body.layout_version,
      ops: [{ op: 'set', cid: text.cid, fields: { text: 'Taken' } }],
    });
    expect(foreignEdit.status).toBe(404);
  });

  it('says of each template whether the account may use it: premium ones need pro, or the video feature', async () => {
    type Listed = { premium: boolean; allowed: boolean };
    const pages = async (me: Awaited<ReturnType<typeof signedIn>>) => {
      const first = await me.send('GET', '/design-templates');
      const rest = await me.send('GET', `/design-templates?offset=${first.body.templates.length}`);
      return {
        templates: [...first.body.templates, ...rest.body.templates] as Listed[],
        video: first.body.video_templates as Listed[],
      };
    };
    const free = await pages(await signedIn('free'));
    expect(free.templates.some((t) => t.premium)).toBe(true);
    expect(free.templates.every((t) => t.allowed === !t.premium)).toBe(true);
    expect(free.video.some((t) => t.premium)).toBe(true);
    expect(free.video.every((t) => t.allowed === !t.premium)).toBe(true);
    const pro = await pages(await signedIn('pro'));
    expect(pro.templates.every((t) => t.allowed)).toBe(true);
  });

  it('makes a video design, queues its export and shows the job on the jobs list', async () => {
    const me = await signedIn();
    const templates = await me.send('GET', '/design-templates');
    const template = templates.body.video_templates.find((t: { premium: boolean }) => !t.premium);
    const used = await me.send('POST', '/video-designs', {
      template: template.name,
      platform: 'bluesky',
      texts: { [template.text_slots[0]]: 'Hello video' },
    });
    expect(used.status).toBe(201);
    const cards = await me.send('GET', '/designs');
    expect(cards.body.designs[0]).toMatchObject({ design_id: used.body.design_id, kind: 'video' });
    const exported = await me.send('POST', `/designs/${used.body.design_id}/export`);
    expect([exported.status, exported.body.kind]).toEqual([202, 'video_export']);
    const jobs = await me.send('GET', '/jobs');
    expect(jobs.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([exported.body.job_id]);
    // Another account can neither export it nor see the job.
    const other = await signedIn();
    expect((await other.send('POST', `/designs/${used.body.design_id}/export`)).status).toBe(404);
    expect((await other.send('GET', '/jobs')).body.jobs).toEqual([]);
  });

  it('refuses a change without the token before reading its body, and answers no-store', async () => {
    const me = await signedIn();
    // An invalid body: refused for the missing token (403), not validated (422).
    const noToken = await call(service.server, 'POST', '/app/api/drawings', {
      headers: { cookie: me.cookie, origin: me.headers.origin },
      body: { title: '', width: -1 },
    });
    expect([noToken.status, noToken.body.code]).toEqual([403, 'csrf_required']);
    const noSession = await call(service.server, 'POST', '/app/api/drawings', {
      body: { title: '', width: -1 },
    });
    expect(noSession.status).toBe(401);
    const listed = await me.send('GET', '/designs');
    expect(listed.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps drawings with pen pressure and refuses a stale version', async () => {
    const me = await signedIn();
    const made = await me.send('POST', '/drawings', { title: 'Sketch', width: 400, height: 300 });
    expect(made.status).toBe(201);
    const stroke = {
      points: [
        [10, 10, 0.2],
        [50, 40, 0.9],
        [90, 60, 0.5],
      ],
      size: 12,
    };
    const updated = await me.send('PATCH', `/drawings/${made.body.id}`, {
      expected_version: made.body.version,
      add_strokes: [stroke],
    });
    expect([updated.status, updated.body.strokes[0].points[1]]).toEqual([200, [50, 40, 0.9]]);
    const stale = await me.send('PATCH', `/drawings/${made.body.id}`, {
      expected_version: made.body.version,
      add_strokes: [stroke],
    });
    expect(stale.status).toBe(409);
    const listed = await me.send('GET', `/drawings?brand_id=${me.brand.id}`);
    expect(listed.body.drawings.map((d: { stroke_count: number }) => d.stroke_count)).toEqual([1]);
    const other = await signedIn();
    expect((await other.send('GET', `/drawings/${made.body.id}`)).status).toBe(404);
    expect((await other.send('DELETE', `/drawings/${made.body.id}`)).status).toBe(404);
    const read = await me.send('GET', `/drawings/${made.body.id}`);
    expect(read.body.strokes).toHaveLength(1);
    expect((await me.send('DELETE', `/drawings/${made.body.id}`)).status).toBe(200);
    expect((await me.send('GET', '/drawings')).body.drawings).toEqual([]);
  });

  it('pages a drawing by size, a stroke too large for a page in parts the drawing page joins', async () => {
    const me = await signedIn();
    const decimals = (n: number, k: number) =>
      Array.from({ length: n }, (_, i) => [
        (i * 7.123456789 + k) % 400,
        (i * 3.987654321) % 300,
        0.123456789,
      ]);
    const strokes = [
      { sid: 'before', points: decimals(40, 1) },
      { sid: 'long', points: decimals(5_000, 2) },
      { sid: 'after', points: decimals(40, 3) },
    ];
    const made = await me.send('POST', '/drawings', {
      title: 'Long',
      width: 400,
      height: 300,
      strokes,
    });
    expect(made.status).toBe(201);
    // What wholeDrawing (web/src/pages/DrawingPage.tsx) does: follow both offsets, join parts.
    const read: { sid: string; points: number[][] }[] = [];
    let query = '';
    for (let pages = 0; pages < 100; pages++) {
      const page = await me.send('GET', `/drawings/${made.body.id}${query}`);
      expect(page.status).toBe(200);
      const [first, ...rest] = page.body.strokes;
      if (page.body.point_offset > 0) read.at(-1)!.points.push(...first.points);
      else if (first) read.push(first);
      read.push(...rest);
      if (page.body.next_stroke_offset === null) break;
      query = `?stroke_offset=${page.body.next_stroke_offset}&point_offset=${page.body.next_point_offset ?? 0}`;
    }
    expect(read.map((s) => [s.sid, s.points])).toEqual(strokes.map((s) => [s.sid, s.points]));
  });

  it("shows usage: this minute's requests, the API's and the dashboard's own alike", async () => {
    await awayFromMinuteBoundary();
    const me = await signedIn('plus'); // its /app/api/session counts
    const key = await makeKey(service.server.pool, me.acct.accountId, ['read']);
    for (let i = 0; i < 3; i++)
      expect((await call(service.server, 'GET', '/v1/me', { key })).status).toBe(200);
    const usage = await me.send('GET', '/usage');
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      plan: 'plus',
      credits: expect.any(Number),
      storage: { used_bytes: 0 },
      request_budget: { limit: 600, used: 5, remaining: 595 },
    });
    expect((await me.send('GET', '/usage')).body.request_budget.used).toBe(6);
  });
});
