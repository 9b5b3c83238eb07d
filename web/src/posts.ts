// The posts' queries: the board, one post with its audit trail, and a range of the calendar.
// Their keys live here only; a page that changes a post refreshes them through `POST_KEYS`.
import { useQuery } from '@tanstack/react-query';
import type { AuditEntry } from '../../core/audit/schema.ts';
import { type Board, call, type Post, type PostView } from './api.ts';
import { useSession } from './session.ts';

export const POST_KEYS = {
  board: ['board'],
  post: (postId: string) => ['post', postId],
  calendar: ['calendar'],
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
