// The built-in generator (core/generation/offline.ts): every draft fits its platform as the
// platform counts, a long source becomes a numbered thread where the platform has threads,
// banned terms never appear, the memory's hashtags are kept or left out, and the same input
// gives the same drafts.
import { describe, expect, it } from 'vitest';
import {
  containsTerm,
  draftIssues,
  offlineDraft,
  TEXT_PLATFORMS,
} from '../../core/generation/offline.ts';
import { splitThread } from '../../core/kernel/platforms.ts';

const article = {
  title: 'Sourdough at scale: how our bakery ships 2,000 loaves a day',
  text: [
    'Our bakery started with one oven and a sourdough starter older than the shop.',
    'Today we bake two thousand sourdough loaves every morning for forty cafés.',
    'The starter is fed twice a day with rye flour and filtered water.',
    'Scaling sourdough is hard because fermentation depends on temperature and time.',
    'We built proofing rooms that hold the dough at exactly twenty-four degrees.',
    'Every batch is logged, so a baker can see how the starter behaved last week.',
    'Cheap flour ruins sourdough, so we mill our own wheat from two local farms.',
    'Delivery vans leave at five, and the loaves reach cafés still warm.',
    'Customers tell us the crust is what keeps them coming back.',
    'Next year we want to open a second bakery with the same starter and the same rooms.',
    'If you run a café and want our sourdough, write to us and we will bring a loaf.',
  ].join(' '),
};
const none = { banned: [], always: [], never: [] };

const fits = draftIssues;

describe('offlineDraft', () => {
  it('gives every platform that takes text a draft it would take', () => {
    expect(TEXT_PLATFORMS).toEqual(expect.arrayContaining(['x', 'bluesky', 'linkedin', 'threads']));
    expect(TEXT_PLATFORMS).not.toContain('instagram');
    for (const platform of TEXT_PLATFORMS) {
      const draft = offlineDraft(article, platform, none);
      expect(fits(draft), `${platform}: ${draft.body}`).toEqual([]);
      expect(draft.body.length).toBeGreaterThan(40);
    }
  });

  it('threads a long source where the platform has threads, in numbered parts', () => {
    const x = offlineDraft(article, 'x', none);
    expect(x.kind).toBe('thread');
    const parts = splitThread(x.body);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts.length).toBeLessThanOrEqual(5);
    // The title opens the first part on a line of its own.
    expect(parts[0]!.startsWith(`1/${parts.length} ${article.title}\n\n`)).toBe(true);
    for (const [i, p] of parts.entries())
      expect(p.startsWith(`${i + 1}/${parts.length} `)).toBe(true);
    // LinkedIn has no threads and room for the whole story in one post.
    const linkedin = offlineDraft(article, 'linkedin', none);
    expect(linkedin.kind).toBe('text');
    expect(linkedin.body).toContain('two thousand sourdough loaves');
    expect(linkedin.headline).toBe(article.title);
  });

  it('never writes a banned term, adds the always hashtags and leaves out the never ones', () => {
    const rules = { banned: ['cheap', 'sourdough'], always: ['#BakeryLife'], never: ['#loaves'] };
    for (const platform of ['x', 'bluesky', 'linkedin', 'mastodon'] as const) {
      const draft = offlineDraft(article, platform, rules);
      const all = `${draft.body} ${draft.hashtags ?? ''} ${draft.headline ?? ''}`;
      expect(containsTerm(all, 'cheap'), all).toBe(false);
      expect(containsTerm(all, 'sourdough'), all).toBe(false);
      expect(draft.hashtags?.split(' ')).toContain('#BakeryLife');
      expect(draft.hashtags?.toLowerCase()).not.toContain('#loaves');
      expect(fits(draft)).toEqual([]);
    }
  });

  it('gives the same drafts for the same input', () => {
    for (const platform of ['x', 'linkedin'] as const)
      expect(offlineDraft(article, platform, none)).toEqual(offlineDraft(article, platform, none));
  });

  it('keeps a short source as one post, and writes something for a source of nothing', () => {
    const short = offlineDraft(
      { title: null, text: 'We open at eight tomorrow morning.' },
      'x',
      none,
    );
    expect(short).toMatchObject({ kind: 'text' });
    expect(short.body).toContain('We open at eight tomorrow morning.');
    const empty = offlineDraft({ title: 'Opening hours', text: '' }, 'bluesky', none);
    expect(empty.body).toBe('Opening hours');
    expect(fits(empty)).toEqual([]);
  });

  it('counts as the platform counts: CJK weighs double on X', () => {
    const cjk = { title: null, text: '我们的面包店每天早上烤两千个面包。'.repeat(30) };
    const draft = offlineDraft(cjk, 'x', none);
    expect(fits(draft)).toEqual([]);
  });

  it('fits a long text without stops or spaces, every platform, within the default test time', () => {
    // 100,000 characters of words and no full stop, then 30,000 CJK characters without a
    // space: each must still become a draft its platform takes (a word-at-a-time cut once
    // held the event loop for seconds on a tenth of this).
    const words = Array.from({ length: 14_000 }, (_, i) => `word${i % 97}`).join(' ');
    const cjk = '面包'.repeat(15_000);
    for (const text of [words, cjk])
      for (const platform of TEXT_PLATFORMS) {
        const draft = offlineDraft({ title: null, text }, platform, none);
        expect(fits(draft), `${platform}: ${draft.body.slice(0, 80)}`).toEqual([]);
      }
  });

  it('links back to an article, and reads a paragraph without a stop as its own sentence', () => {
    const url = 'https://crumb.example/blog/rye';
    for (const platform of ['x', 'bluesky', 'linkedin'] as const) {
      const d = offlineDraft({ ...article, url }, platform, none);
      const last = splitThread(d.body).at(-1)!;
      expect(last.endsWith(`\n\n${url}`), `${platform}: ${d.body}`).toBe(true);
      expect(fits(d)).toEqual([]);
    }
    const notes = offlineDraft(
      { title: null, text: 'Holiday blend is back\n\nOur holiday coffee returns on Monday.' },
      'linkedin',
      none,
    );
    expect(notes.body).toBe('Holiday blend is back Our holiday coffee returns on Monday.');
    const word = offlineDraft({ title: null, text: 'decaf' }, 'x', none);
    expect(word.body).toBe('decaf');
  });
});
