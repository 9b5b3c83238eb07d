// X's 280 is counted the way X counts it (twitter-text): a URL is 23 whatever its length, an
// emoji (even a ZWJ sequence) or a CJK character weighs 2, other characters 1.
import { describe, expect, it } from 'vitest';
import { platformFitIssues } from '../../core/kernel/platformFit.ts';

const xIssues = (body: string, kind: 'text' | 'thread' = 'text', hashtags: string | null = null) =>
  platformFitIssues({ platform: 'x', kind, body, hashtags, media: [] });

describe('X text length', () => {
  it('weighs emoji 2: 140 fit, 141 are refused with the weighted count', () => {
    expect(xIssues('😀'.repeat(140))).toEqual([]);
    const [issue] = xIssues('😀'.repeat(141));
    expect(issue?.loc).toEqual(['body', 'body']);
    expect(issue?.msg).toBe(
      'x allows 280 weighted characters (body and hashtags together; a URL counts 23, an emoji or a CJK character 2); this post has 282',
    );
  });

  it('weighs a skin-toned or ZWJ emoji 2 as a whole, and CJK characters 2', () => {
    expect(xIssues('👍🏽'.repeat(140))).toEqual([]);
    expect(xIssues('👩‍👩‍👧'.repeat(140))).toEqual([]);
    expect(xIssues('日'.repeat(140))).toEqual([]);
    expect(xIssues(`${'日'.repeat(140)}a`)[0]?.msg).toMatch(/this post has 281$/);
  });

  it('counts a URL 23 however long it is', () => {
    const url = `https://example.com/${'path/'.repeat(60)}`;
    expect(url.length).toBeGreaterThan(280);
    // 256 + a space + 23 = 280
    expect(xIssues(`${'a'.repeat(256)} ${url}`)).toEqual([]);
    expect(xIssues(`${'a'.repeat(257)} ${url}`)[0]?.msg).toMatch(/this post has 281$/);
    // A bare domain is a URL to X as well.
    expect(xIssues(`${'a'.repeat(256)} example.com`)).toEqual([]);
  });

  it('counts the hashtags and each part of a thread the same way', () => {
    // 268 + 2 newlines + 10 = 280; one more emoji is 282.
    expect(xIssues('😀'.repeat(134), 'text', '#abcdefghi')).toEqual([]);
    expect(xIssues('😀'.repeat(135), 'text', '#abcdefghi')[0]?.msg).toMatch(/this post has 282$/);
    expect(xIssues(`one\n---\n${'😀'.repeat(141)}`, 'thread')[0]?.msg).toBe(
      'part 2 of the thread is 282 weighted characters; x allows 280 (a URL counts 23, an emoji or a CJK character 2)',
    );
  });
});
