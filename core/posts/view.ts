// A post row as every surface shows it (the Post schema): dates as ISO strings, a rejection
// only on a rejected post.
import { isoTime } from '../kernel/time.ts';
import type { PostRow } from './db.ts';
import type { Post } from './schema.ts';

const iso = (d: Date | null) => (d ? isoTime(d) : null);

export const toPost = (r: PostRow): Post => ({
  id: r.id,
  uuid: r.uuid,
  platform: r.platform,
  kind: r.kind,
  status: r.status,
  body: r.body,
  hashtags: r.hashtags,
  headline: r.headline,
  scheduled_for: iso(r.scheduled_for),
  brand_id: r.brand_id,
  brand_uuid: r.brand_uuid,
  asset_ids: r.asset_ids,
  design_id: r.design_id ?? null,
  source_id: r.source_id ?? null,
  suggested_for: iso(r.suggested_for ?? null),
  favorited_at: iso(r.favorited_at),
  approved_at: iso(r.approved_at),
  rejection:
    r.status === 'rejected' ? { reason: r.rejection_reason, code: r.rejection_code } : null,
  external_post_id: r.external_post_id,
  permalink_url: r.permalink_url,
  published_at: iso(r.published_at),
  error: r.error,
  created_at: isoTime(r.created_at),
  updated_at: isoTime(r.updated_at),
});
