// The template catalogue (core/designs/templates.ts): every JSON template is a valid layout in
// known fonts, the catalogue spans the aspects and niches, a template serves any aspect, the
// listing filters and pages as SPEC.md says, and each committed thumbnail is still what the
// template renders to, served without a credential.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ASPECT_NAMES, ASPECTS, Layout } from '../../core/designs/layout.ts';
import {
  ListTemplatesQuery,
  layoutFromTemplate,
  listTemplates,
  NICHES,
  TEMPLATES,
  THUMBNAILS_DIR,
} from '../../core/designs/templates.ts';
import { renderTemplateThumbnail } from '../../core/designs/templateThumbnail.ts';
import { isKnownFont } from '../../render/fontFamilies.ts';
import { useServer } from '../support/service.ts';

const all = [...TEMPLATES.values()];

describe('the catalogue', () => {
  it('has at least 40 templates over the four aspects and seven niches, some premium', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    for (const aspect of ASPECT_NAMES)
      expect(all.filter((t) => t.aspect === aspect).length).toBeGreaterThanOrEqual(8);
    expect(NICHES.length).toBeGreaterThanOrEqual(7);
    expect(all.some((t) => t.premium)).toBe(true);
    expect(all.some((t) => !t.premium)).toBe(true);
  });

  it.each(all.map((t) => [t.name, t] as const))('%s is a valid layout in known fonts', (_n, t) => {
    const layout = Layout.parse(layoutFromTemplate(t, undefined, {}));
    expect(layout.canvas.aspect).toBe(t.aspect);
    for (const layer of layout.layers ?? [])
      if (layer.kind === 'text') expect(isKnownFont(layer.font), layer.font).toBe(true);
  });
});

describe('layoutFromTemplate', () => {
  it('fills slots and scales a template to another aspect, its layers staying on the canvas', () => {
    const t = TEMPLATES.get('tip-square')!;
    const layout = Layout.parse(
      layoutFromTemplate(t, 'story', { headline: 'New headline', body: '' }),
    );
    const { width, height } = ASPECTS.story;
    const texts = layout.layers!.filter((l) => l.kind === 'text');
    expect(texts.find((l) => l.slot === 'headline')!.text).toBe('New headline');
    // An empty text keeps the template's own.
    expect(texts.find((l) => l.slot === 'body')!.text).toBe(
      'Explain the tip in a sentence or two.',
    );
    for (const l of layout.layers!) {
      expect(l.x).toBeGreaterThanOrEqual(0);
      expect(l.x + l.w).toBeLessThanOrEqual(width);
      expect(l.y + ('h' in l && l.h ? l.h : 0)).toBeLessThanOrEqual(height);
    }
    const original = t.layers.find((l) => l.kind === 'text' && l.slot === 'headline')!;
    const scaled = texts.find((l) => l.slot === 'headline')!;
    expect(scaled.y).toBeCloseTo((original.y * height) / ASPECTS.square.height, 1);
  });
});

describe('listTemplates', () => {
  const list = (q: Record<string, unknown>) =>
    listTemplates(ListTemplatesQuery.parse(q), 'http://x').templates;

  it('filters by query, shape and niche', () => {
    expect(list({ shape: 'story', limit: 50 }).every((t) => t.aspect === 'story')).toBe(true);
    const hiring = list({ niche: 'hiring' });
    expect(hiring.length).toBe(4);
    expect(hiring.every((t) => t.niche === 'hiring')).toBe(true);
    const found = list({ query: 'REVIEW landscape' });
    expect(found.map((t) => t.name)).toEqual(['testimonial-landscape']);
    expect(found[0]).toMatchObject({
      premium: true,
      slots: ['headline', 'author'],
      thumbnail_url: 'http://x/design-templates/testimonial-landscape/thumbnail.png',
    });
  });

  it('pages by offset until an empty page, returning each template once', () => {
    const seen: string[] = [];
    for (let offset = 0; ; ) {
      const page = list({ offset, limit: 7 });
      if (!page.length) break;
      seen.push(...page.map((t) => t.name));
      offset += page.length;
    }
    expect(seen.sort()).toEqual(all.map((t) => t.name).sort());
  });

  it('refuses a limit above 50', () => {
    expect(ListTemplatesQuery.safeParse({ limit: 51 }).success).toBe(false);
    expect(ListTemplatesQuery.safeParse({ limit: 50 }).success).toBe(true);
  });
});

describe('thumbnails', () => {
  const server = useServer();

  it('the committed thumbnails match fresh renders of their templates', async () => {
    for (const t of all) {
      const committed = PNG.sync.read(readFileSync(path.join(THUMBNAILS_DIR, `${t.name}.png`)));
      const fresh = PNG.sync.read(await renderTemplateThumbnail(t));
      expect([fresh.width, fresh.height], t.name).toEqual([committed.width, committed.height]);
      const differing = pixelmatch(
        committed.data,
        fresh.data,
        undefined,
        fresh.width,
        fresh.height,
        { threshold: 0.1 },
      );
      expect(differing / (fresh.width * fresh.height), t.name).toBeLessThan(0.01);
    }
  });

  it('are served as PNG without a credential; an unknown name is 404', async () => {
    const res = await fetch(`${server.baseUrl}/design-templates/quote-card/thumbnail.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(PNG.sync.read(Buffer.from(await res.arrayBuffer())).width).toBe(320);
    const missing = await fetch(`${server.baseUrl}/design-templates/nope/thumbnail.png`);
    expect(missing.status).toBe(404);
  });
});
