// The counts of our LinkedIn posts, where LinkedIn gives them to this app: a member's posts
// through memberCreatorPostAnalytics (one call per post and metric, scope
// r_member_postAnalytics), a Page's through organizationalEntityShareStatistics (one call per
// kind of URN in a chunk, scope rw_organization_admin). Both scopes are granted per app by
// LinkedIn, so nothing is asked of a connection whose granted scope lacks the one needed, and
// a 403 (the grant withdrawn, the member no longer the Page's administrator) leaves the
// account without counts rather than failing the collection. An answer that does not say a
// count plainly (missing, negative, not the metric asked, not the post asked) gives that post
// no counts: none are better than wrong ones.
// Docs: learn.microsoft.com/linkedin/marketing/community-management/members/post-statistics,
// .../organizations/share-statistics (docs/platforms.md names the versions read).
import { z } from 'zod';
import type { ConnectedAccountAccess, PostCounts } from '../connector.ts';
import { SaidCount } from '../readings.ts';
import type { LinkedInCall } from './api.ts';

/** What memberCreatorPostAnalytics needs of the member's grant. */
export const MEMBER_ANALYTICS_SCOPE = 'r_member_postAnalytics';
/** What organizationalEntityShareStatistics needs (the member an ADMINISTRATOR of the Page). */
export const ORGANIZATION_ANALYTICS_SCOPE = 'rw_organization_admin';

const POST_URN = /^urn:li:(share|ugcPost):\d{1,40}$/;
const ORGANIZATION = /^urn:li:organization:\d{1,40}$/;

/** The scopes a connection was granted, as LinkedIn's token answer lists them (commas or spaces). */
export function grantedScopes(credentials: Record<string, unknown>): Set<string> {
  const { scope } = credentials;
  return new Set(typeof scope === 'string' ? scope.split(/[\s,]+/).filter(Boolean) : []);
}

const Views = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * The member metrics read, and what each becomes (MEMBERS_REACHED has no column; saves and
 * link clicks are not asked).
 */
const MEMBER_METRICS = ['REACTION', 'RESHARE', 'COMMENT', 'IMPRESSION'] as const;
type MemberMetric = (typeof MEMBER_METRICS)[number];

/**
 * One metric's answer with `aggregation=TOTAL`: one element with its `count`. `metricType` is
 * the metric's name from 202605, and an object holding it (keyed by its Rest.li type) before;
 * `targetEntity` names the post (`share` or `ugc`).
 */
const MemberAnswer = z.object({
  elements: z
    .array(
      z.object({
        count: z.unknown().optional(),
        metricType: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
        targetEntity: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .max(10),
});

const metricNameOf = (t: string | Record<string, unknown>) => {
  if (typeof t === 'string') return t;
  const values = Object.values(t);
  return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
};

/**
 * Rest.li 2.0's form of the entity finder's union: `(share:urn%3Ali%3Ashare%3A1)` or
 * `(ugc:urn%3Ali%3AugcPost%3A1)`, the URN's reserved characters encoded.
 */
const entityParam = (urn: string, kind: string) =>
  `(${kind === 'share' ? 'share' : 'ugc'}:${encodeURIComponent(urn)})`;

/**
 * One metric of one post: its count; undefined when the answer does not say it plainly or
 * LinkedIn has no such post (404); `forbidden` on a 403 (the app or the member may not read it).
 */
async function memberMetric(
  call: LinkedInCall,
  urn: string,
  kind: string,
  metric: MemberMetric,
): Promise<number | undefined | 'forbidden'> {
  const query = `q=entity&entity=${entityParam(urn, kind)}&queryType=${metric}&aggregation=TOTAL`;
  const res = await call(`/rest/memberCreatorPostAnalytics?${query}`, {
    method: 'GET',
    answer: [403, 404],
  });
  if (res.status === 403) return 'forbidden';
  const parsed = MemberAnswer.safeParse(res.json);
  const element = parsed.success && parsed.data.elements.length === 1 && parsed.data.elements[0];
  if (res.status === 404 || !element) return undefined;
  // The metric and the post asked are the answer's, unless it names others.
  if (element.metricType !== undefined && metricNameOf(element.metricType) !== metric)
    return undefined;
  if (element.targetEntity && !Object.values(element.targetEntity).includes(urn)) return undefined;
  const count = (metric === 'IMPRESSION' ? Views : SaidCount).safeParse(element.count);
  return count.success ? count.data : undefined;
}

/** One member post's counts: none when one of them is not said plainly (it is asked no more). */
async function memberPostCount(
  call: LinkedInCall,
  urn: string,
  kind: string,
): Promise<PostCounts | undefined | 'forbidden'> {
  const said: Partial<Record<MemberMetric, number>> = {};
  for (const metric of MEMBER_METRICS) {
    const count = await memberMetric(call, urn, kind, metric);
    if (count === undefined || count === 'forbidden') return count;
    said[metric] = count;
  }
  const { REACTION, RESHARE, COMMENT, IMPRESSION } = said as Record<MemberMetric, number>;
  return { likes: REACTION, reposts: RESHARE, replies: COMMENT, quotes: null, views: IMPRESSION };
}

/** A member's posts; an empty map once LinkedIn refuses the app (403). */
async function memberPostCounts(
  call: LinkedInCall,
  urns: string[],
): Promise<Map<string, PostCounts>> {
  const counts = new Map<string, PostCounts>();
  for (const urn of urns) {
    // An activity URN (a duplicate read back as one) is no entity the finder takes.
    const kind = POST_URN.exec(urn)?.[1];
    if (!kind) continue;
    const count = await memberPostCount(call, urn, kind);
    if (count === 'forbidden') return new Map();
    if (count) counts.set(urn, count);
  }
  return counts;
}

/** organizationalEntityShareStatistics' lifetime answer: one element per post it has counts of. */
const ShareStatistics = z.object({
  elements: z
    .array(
      z.object({
        share: z.unknown().optional(),
        ugcPost: z.unknown().optional(),
        totalShareStatistics: z.unknown().optional(),
      }),
    )
    .max(200),
});
const Totals = z.object({
  likeCount: SaidCount,
  commentCount: SaidCount,
  shareCount: SaidCount,
  impressionCount: Views.optional(),
});

/**
 * A Page's posts, one call per kind of URN (`shares=List(...)`, `ugcPosts=List(...)`, each URN
 * encoded); an empty map once LinkedIn refuses the app (403). LinkedIn leaves out a post with
 * no action and no impression yet, and one older than its 12 months: neither is counted.
 */
async function organizationPostCounts(
  call: LinkedInCall,
  organization: string,
  urns: string[],
): Promise<Map<string, PostCounts>> {
  const counts = new Map<string, PostCounts>();
  const byKind = { share: 'shares', ugcPost: 'ugcPosts' } as const;
  for (const [kind, param] of Object.entries(byKind) as [keyof typeof byKind, string][]) {
    const asked = urns.filter((u) => POST_URN.exec(u)?.[1] === kind);
    if (!asked.length) continue;
    const list = `List(${asked.map(encodeURIComponent).join(',')})`;
    const query = `q=organizationalEntity&organizationalEntity=${encodeURIComponent(organization)}&${param}=${list}`;
    const res = await call(`/rest/organizationalEntityShareStatistics?${query}`, {
      method: 'GET',
      answer: [403],
    });
    if (res.status === 403) return new Map();
    const parsed = ShareStatistics.safeParse(res.json);
    if (!parsed.success) continue;
    const seen = new Set<string>();
    for (const element of parsed.data.elements) {
      const urn = element[kind];
      if (typeof urn !== 'string' || !asked.includes(urn)) continue;
      const totals = Totals.safeParse(element.totalShareStatistics);
      // Two elements for one post: which one is right cannot be told, so neither is.
      if (seen.has(urn) || !totals.success) {
        seen.add(urn);
        counts.delete(urn);
        continue;
      }
      seen.add(urn);
      counts.set(urn, {
        likes: totals.data.likeCount,
        reposts: totals.data.shareCount,
        replies: totals.data.commentCount,
        quotes: null,
        views: totals.data.impressionCount ?? null,
      });
    }
  }
  return counts;
}

/**
 * The counts of `externalIds` (our posts' URNs) for `account`: a Page's when the connection
 * posts as one, the member's otherwise; nothing asked without the scope that reads them.
 */
export async function linkedinPostMetrics(
  call: LinkedInCall,
  account: ConnectedAccountAccess,
  externalIds: string[],
): Promise<Map<string, PostCounts>> {
  const scopes = grantedScopes(account.credentials);
  const { organization } = account.credentials;
  if (typeof organization === 'string' && organization) {
    if (!ORGANIZATION.test(organization) || !scopes.has(ORGANIZATION_ANALYTICS_SCOPE))
      return new Map();
    return organizationPostCounts(call, organization, externalIds);
  }
  if (!scopes.has(MEMBER_ANALYTICS_SCOPE)) return new Map();
  return memberPostCounts(call, externalIds);
}
