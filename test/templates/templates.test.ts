// The template catalogue (core/templates/catalogue/, core/templates/listing.ts): enough
// templates over enough niches; each laid out for every aspect by its own rules (circles
// stay circles, text inside the safe area); no placeholder ever reaches a page (every text
// shown is a slot's given copy or glyph-only furniture); every template rendered at every
// aspect with short, long and no copy draws no text outside its frame and fits short copy
// without a warning; the listing filters and pages as SPEC.md says; each committed thumbnail
// is still what the template renders to, served without a credential.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ASPECT_NAMES, Layout } from '../../core/designs/schema.ts';
import {
  frameOf,
  instantiate,
  ListTemplatesQuery,
  listTemplates,
  NICHES,
  renderTemplateThumbnail,
  sampleFill,
  slotsOfSpec,
  TEMPLATES,
  THUMBNAILS_DIR,
} from '../../core/templates/service.ts';
import { isKnownFont } from '../../render/fontFamilies.ts';
import { useServer } from '../support/service.ts';

const all = [...TEMPLATES.values()];
const designed = all.filter((t) => t.name !== 'blank');
const takes = (t: (typeof all)[number], slot: string) =>
  slotsOfSpec(t).some((s) => s.name === slot && s.kind === 'image');

describe('the catalogue', () => {
  it('has at least 60 templates over 12 niches, half with a photo and a logo, some premium', () => {
    expect(designed.length).toBeGreaterThanOrEqual(60);
    const niches = NICHES.filter((n) => n !== 'basic');
    expect(niches.length).toBeGreaterThanOrEqual(12);
    for (const niche of niches)
      expect(designed.filter((t) => t.niche === niche).length, niche).toBeGreaterThanOrEqual(5);
    const photoAndLogo = designed.filter((t) => takes(t, 'photo') && takes(t, 'logo'));
    expect(photoAndLogo.length * 2).toBeGreaterThanOrEqual(designed.length);
    for (const aspect of ASPECT_NAMES)
      expect(designed.filter((t) => t.aspect === aspect).length, aspect).toBeGreaterThanOrEqual(8);
    expect(designed.some((t) => t.premium)).toBe(true);
    expect(designed.some((t) => !t.premium)).toBe(true);
    expect(new Set(all.map((t) => t.name)).size).toBe(all.length);
  });

  it.each(all.map((t) => [t.name, t] as const))(
    '%s lays out at every aspect by its rules: valid, known fonts, the same slots, circles stay circles, copy inside the safe area',
    (_n, t) => {
      const slots = slotsOfSpec(t);
      for (const aspect of ASPECT_NAMES) {
        const f = frameOf(aspect);
        const drafts = t.layout(f);
        const here = new Set(drafts.flatMap((l) => (l.slot ? [l.slot] : [])));
        for (const slot of slots) expect(here.has(slot.name), `${aspect} ${slot.name}`).toBe(true);
        const layout = Layout.parse(instantiate(t, aspect, sampleFill(t, 'short')).layout);
        for (const l of layout.layers ?? []) {
          if (l.kind === 'shape' && l.shape === 'ellipse')
            expect(Math.abs(l.w - l.h), `${aspect}: an ellipse ${l.w}×${l.h}`).toBeLessThan(0.5);
          if (l.kind === 'text') {
            expect(isKnownFont(l.font), l.font).toBe(true);
            expect(l.h, `${aspect}: text without a height`).toBeDefined();
          }
          const copy = (l.kind === 'text' && l.slot) || (l.kind === 'image' && l.slot === 'logo');
          if (copy) {
            const { x, y, w, h } = f.safe;
            const where = `${aspect}: ${l.slot} at ${l.x},${l.y} ${l.w}×${l.h}`;
            expect(l.x, where).toBeGreaterThanOrEqual(x - 0.5);
            expect(l.y, where).toBeGreaterThanOrEqual(y - 0.5);
            expect(l.x + l.w, where).toBeLessThanOrEqual(x + w + 0.5);
            expect(l.y + (l.h ?? 0), where).toBeLessThanOrEqual(y + h + 0.5);
          }
        }
      }
    },
  );
});

describe('listTemplates', () => {
  const list = (q: Record<string, unknown>) =>
    listTemplates(ListTemplatesQuery.parse(q), 'http://x').templates;

  it('filters by query, shape and niche', () => {
    expect(list({ shape: 'story', limit: 50 }).every((t) => t.aspect === 'story')).toBe(true);
    const hiring = list({ niche: 'hiring' });
    expect(hiring.length).toBe(designed.filter((t) => t.niche === 'hiring').length);
    expect(hiring.every((t) => t.niche === 'hiring')).toBe(true);
    const found = list({ query: 'launch BIG type' });
    expect(found.map((t) => t.name)).toEqual(['launch-big-type']);
    expect(found[0]).toMatchObject({
      premium: false,
      thumbnail_url: 'http://x/design-templates/launch-big-type/thumbnail.png',
    });
    // Each slot with its kind and where it is filled from when the request leaves it out.
    expect(found[0]!.slots).toEqual(
      expect.arrayContaining([
        { name: 'logo', kind: 'image', fallback: 'brand_logo' },
        { name: 'headline', kind: 'text', fallback: 'post_copy' },
        { name: 'date', kind: 'text', fallback: null },
      ]),
    );
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
    // Every template drawn on this thread: ~9 s on a quiet two-core machine, more beside others.
  }, 60_000);

  it('are served as PNG without a credential; an unknown name is 404', async () => {
    const res = await fetch(`${server.baseUrl}/design-templates/launch-big-type/thumbnail.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(PNG.sync.read(Buffer.from(await res.arrayBuffer())).width).toBe(320);
    const missing = await fetch(`${server.baseUrl}/design-templates/nope/thumbnail.png`);
    expect(missing.status).toBe(404);
  });
});
