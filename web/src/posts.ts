// The posts' queries: the board, one post with its audit trail, a range of the calendar, and a
// text's length on each platform.
// Their keys live here only; a page that changes a post refreshes them through `POST_KEYS`.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { AuditEntry } from '../../core/audit/schema.ts';
import { type Board, call, type Post, type PostView } from './api.ts';
import { useSession } from './session.ts';

export const POST_KEYS = {
  board: ['board'],
  post: (postId: string) => ['post', postId],
  calendar: ['calendar'],
  measure: (text: string) => ['measure', text],
  calendarRange: (brandId: string | undefined, from: string, to: string) => [
    'calendar',
    brandId,
    from,
    to,
  ],
};

/** The selected brand's posts by status (the newest 50 of each), each with its actions. */
export function useBoard() {
  const session = useSession();
  return useQuery({
    queryKey: POST_KEYS.board,
    queryFn: () => call<Board>('GET', '/app/api/board'),
    enabled: !!session.data,
  });
}

/** One post, with its actions and its audit trail. */
export function usePost(postId: string) {
  const session = useSession();
  return useQuery({
    queryKey: POST_KEYS.post(postId),
    queryFn: () => call<{ post: PostView; audit: AuditEntry[] }>('GET', `/app/api/posts/${postId}`),
    enabled: !!session.data,
  });
}

/** A brand's scheduled and published posts between two times. */
export function useCalendar(brandId: string | undefined, from: string, to: string) {
  const session = useSession();
  return useQuery({
    queryKey: POST_KEYS.calendarRange(brandId, from, to),
    queryFn: () =>
      call<{ posts: Post[] }>(
        'GET',
        `/app/api/calendar?${new URLSearchParams({ from, to, ...(brandId ? { brand_id: brandId } : {}) })}`,
      ),
    enabled: !!session.data,
  });
}

/** A text's length on each platform, counted its way by the service, beside its limit. */
export type TextLengths = Record<string, { length: number; max: number; unit: string }>;

/** The composer's counters: `text` measured 150 ms after the last keystroke. */
export function useTextLengths(text: string) {
  const session = useSession();
  const [debounced, setDebounced] = useState(text);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(text), 150);
    return () => clearTimeout(t);
  }, [text]);
  return useQuery({
    queryKey: POST_KEYS.measure(debounced),
    queryFn: () => call<TextLengths>('POST', '/app/api/measure', { text: debounced }),
    placeholderData: (previous) => previous,
    // The CSRF token comes with the session: counting waits for it.
    enabled: !!session.data,
  });
}
