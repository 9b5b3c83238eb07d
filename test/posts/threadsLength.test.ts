// Threads' 500 is counted the way Threads counts it (Posts: "emojis are counted as the number
// of UTF-8 bytes"): every character 1, an emoji its bytes (a plain one 4, a ZWJ family all of
// its joined bytes), and a carousel carries 2 to 20 items.
import { describe, expect, it } from 'vitest';
import { platformFitIssues } from '../../core/kernel/platformFit.ts';
import { textLength } from '../../core/kernel/platforms.ts';

const threadsIssues = (
  body: string,
  kind: 'text' | 'thread' | 'carousel' = 'text',
  media: ('image' | 'video')[] = [],
) => platformFitIssues({ platform: 'threads', kind, body, hashtags: null, media });

describe('Threads text length', () => {
  it('counts an emoji as its UTF-8 bytes: 125 fit, 126 are refused with the count', () => {
    expect(threadsIssues('😀'.repeat(125))).toEqual([]);
    const [issue] = threadsIssues('😀'.repeat(126));
    expect(issue?.loc).toEqual(['body', 'body']);
    expect(issue?.msg).toBe(
      'threads allows 500 characters (body and hashtags together; an emoji counts as its UTF-8 bytes, most of them 4); this post has 504',
    );
  });

  it('counts other characters 1 each, accented and CJK ones included', () => {
    expect(threadsIssues('é'.repeat(500))).toEqual([]);
    expect(threadsIssues('日'.repeat(500))).toEqual([]);
    expect(threadsIssues('日'.repeat(501))[0]?.msg).toMatch(/this post has 501$/);
  });

  it('counts a joined or modified emoji as all of its bytes, flags and keycaps too', () => {
    expect(textLength('👩‍👩‍👧', 'emoji-bytes')).toBe(18);
    expect(textLength('👍🏽', 'emoji-bytes')).toBe(8);
    expect(textLength('❤️', 'emoji-bytes')).toBe(6);
    expect(textLength('🇫🇷', 'emoji-bytes')).toBe(8);
    expect(textLength('1️⃣', 'emoji-bytes')).toBe(7);
    expect(textLength('a1 é', 'emoji-bytes')).toBe(4);
  });

  it('counts each part of a thread the same way', () => {
    expect(threadsIssues(`one\n---\n${'😀'.repeat(126)}`, 'thread')[0]?.msg).toBe(
      'part 2 of the thread is 504 characters; threads allows 500 (an emoji counts as its UTF-8 bytes, most of them 4)',
    );
  });
});

describe('Threads carousels', () => {
  it('carry 2 to 20 images or videos', () => {
    expect(threadsIssues('', 'carousel', ['image', 'video'])).toEqual([]);
    expect(threadsIssues('', 'carousel', Array(20).fill('image'))).toEqual([]);
    expect(threadsIssues('', 'carousel', ['image'])[0]?.msg).toBe(
      'a carousel post on threads needs 2 to 20 images or videos; it has 1',
    );
    expect(threadsIssues('', 'carousel', Array(21).fill('image'))[0]?.msg).toBe(
      'a carousel post on threads needs 2 to 20 images or videos; it has 21',
    );
  });
});
