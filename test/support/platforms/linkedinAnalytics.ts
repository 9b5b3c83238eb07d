// The LinkedIn stand-in's post statistics, written from LinkedIn's documentation (not from the
// connector): memberCreatorPostAnalytics' entity finder (learn.microsoft.com/linkedin/
// marketing/community-management/members/post-statistics, li-lms-2025-11 and 2026-03: q=entity,
// entity a share or ugcPost URN as a Rest.li 2.0 union `(share:urn%3Ali%3Ashare%3A1)` /
// `(ugc:...)`, queryType, aggregation; r_member_postAnalytics; one element with `count`,
// `metricType` and `targetEntity`; `metricType` a plain string from 202605, an object keyed
// by its Rest.li type before, as clients of both versions read it) and
// organizationalEntityShareStatistics (.../organizations/share-statistics:
// q=organizationalEntity, `shares=List(...)` or `ugcPosts=List(...)` of encoded URNs;
// rw_organization_admin with the member an ADMINISTRATOR; one element per post with
// `totalShareStatistics`, leaving out posts with no action or impression). A query not of
// that form is answered 400, a missing permission 403, as LinkedIn answers them.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A post's statistics as LinkedIn counts them (zero for a post the test gave none). */
export type LinkedInPostStats = {
  impressions: number;
  membersReached: number;
  reactions: number;
  comments: number;
  reshares: number;
  clicks: number;
};

export type AnalyticsContext = {
  /** The posts LinkedIn has: their URN, author and statistics. */
  posts: () => { urn: string; author: string; stats?: Partial<LinkedInPostStats> }[];
  /** The scopes the member's token was granted. */
  scopesOf: (sub: string) => Set<string>;
  /** Whether the member is an ADMINISTRATOR of the organization. */
  administers: (sub: string, organization: string) => boolean;
  send: (res: ServerResponse, status: number, body?: unknown) => void;
  refuse: (res: ServerResponse, status: number, message: string, extra?: object) => void;
};

const MEMBER_METRICS = ['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT'] as const;
const URN = '(urn%3Ali%3A(share|ugcPost)%3A\\d+)';
const ENTITY = new RegExp(`^\\((share|ugc):${URN}\\)$`, 'i');
const LIST = new RegExp(`^List\\(${URN}(?:,${URN})*\\)$`, 'i');
const ORGANIZATION = /^urn:li:organization:\d+$/;

/** The query as sent, its values still encoded (Rest.li 2.0 reads them so). */
function rawQuery(req: IncomingMessage): Map<string, string> {
  const query = (req.url ?? '').split('?')[1] ?? '';
  const params = new Map<string, string>();
  for (const pair of query.split('&').filter(Boolean)) {
    const at = pair.indexOf('=');
    params.set(at < 0 ? pair : pair.slice(0, at), at < 0 ? '' : pair.slice(at + 1));
  }
  return params;
}

const invalidParam = (ctx: AnalyticsContext, res: ServerResponse, name: string) =>
  ctx.refuse(res, 400, `Invalid value for param: ${name}`, { code: 'ILLEGAL_ARGUMENT' });
const denied = (ctx: AnalyticsContext, res: ServerResponse, resource: string) =>
  ctx.refuse(res, 403, `Not enough permissions to access: ${resource}.GET.20260501`, {
    serviceErrorCode: 100,
    code: 'ACCESS_DENIED',
  });

const statsOf = (p: { stats?: Partial<LinkedInPostStats> }): LinkedInPostStats => ({
  impressions: 0,
  membersReached: 0,
  reactions: 0,
  comments: 0,
  reshares: 0,
  clicks: 0,
  ...p.stats,
});

function memberAnalytics(
  ctx: AnalyticsContext,
  req: IncomingMessage,
  res: ServerResponse,
  sub: string,
  version: string,
) {
  const q = rawQuery(req);
  if (q.get('q') !== 'entity') return invalidParam(ctx, res, 'q');
  const entity = ENTITY.exec(q.get('entity') ?? '');
  const metric = q.get('queryType') as (typeof MEMBER_METRICS)[number];
  if (!entity || (entity[1] === 'share') !== (entity[3] === 'share'))
    return invalidParam(ctx, res, 'entity');
  if (!MEMBER_METRICS.includes(metric)) return invalidParam(ctx, res, 'queryType');
  if (q.get('aggregation') !== 'TOTAL') return invalidParam(ctx, res, 'aggregation');
  if (!ctx.scopesOf(sub).has('r_member_postAnalytics'))
    return denied(ctx, res, 'memberCreatorPostAnalytics');
  const urn = decodeURIComponent(entity[2]!);
  const post = ctx.posts().find((p) => p.urn === urn);
  if (!post) return ctx.refuse(res, 404, `Entity ${urn} not found`);
  if (post.author !== `urn:li:person:${sub}`) return denied(ctx, res, 'memberCreatorPostAnalytics');
  const s = statsOf(post);
  const count = {
    IMPRESSION: s.impressions,
    MEMBERS_REACHED: s.membersReached,
    RESHARE: s.reshares,
    REACTION: s.reactions,
    COMMENT: s.comments,
  }[metric];
  const metricType =
    version >= '202605'
      ? metric
      : {
          'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1': metric,
        };
  ctx.send(res, 200, {
    paging: { start: 0, count: 10, links: [] },
    elements: [{ count, metricType, targetEntity: { [entity[1]!.toLowerCase()]: urn } }],
  });
}

function shareStatistics(
  ctx: AnalyticsContext,
  req: IncomingMessage,
  res: ServerResponse,
  sub: string,
) {
  const q = rawQuery(req);
  if (q.get('q') !== 'organizationalEntity') return invalidParam(ctx, res, 'q');
  const organization = decodeURIComponent(q.get('organizationalEntity') ?? '');
  if (!ORGANIZATION.test(organization)) return invalidParam(ctx, res, 'organizationalEntity');
  const asked: { urn: string; kind: 'share' | 'ugcPost' }[] = [];
  for (const [param, kind] of [
    ['shares', 'share'],
    ['ugcPosts', 'ugcPost'],
  ] as const) {
    const list = q.get(param);
    if (list === undefined) continue;
    if (!LIST.test(list)) return invalidParam(ctx, res, param);
    for (const item of list.slice(5, -1).split(',')) {
      const urn = decodeURIComponent(item);
      if (!urn.startsWith(`urn:li:${kind}:`)) return invalidParam(ctx, res, param);
      asked.push({ urn, kind });
    }
  }
  if (!ctx.scopesOf(sub).has('rw_organization_admin') || !ctx.administers(sub, organization))
    return denied(ctx, res, 'organizationalEntityShareStatistics');
  const posts = ctx.posts().filter((p) => p.author === organization);
  const totals = (list: LinkedInPostStats[]) => {
    const sum = (k: keyof LinkedInPostStats) => list.reduce((n, s) => n + s[k], 0);
    const impressionCount = sum('impressions');
    const engaged = sum('reactions') + sum('comments') + sum('reshares') + sum('clicks');
    return {
      uniqueImpressionsCount: sum('membersReached'),
      shareCount: sum('reshares'),
      engagement: impressionCount ? engaged / impressionCount : 0,
      clickCount: sum('clicks'),
      likeCount: sum('reactions'),
      impressionCount,
      commentCount: sum('comments'),
    };
  };
  // Without a list: the Page's lifetime totals, one element.
  if (!asked.length)
    return ctx.send(res, 200, {
      paging: { start: 0, count: 10, links: [] },
      elements: [
        { organizationalEntity: organization, totalShareStatistics: totals(posts.map(statsOf)) },
      ],
    });
  const elements = asked.flatMap(({ urn, kind }) => {
    const post = posts.find((p) => p.urn === urn);
    if (!post) return [];
    const s = statsOf(post);
    // Documented: shares with no actions or impressions are not included.
    if (!s.impressions && !s.reactions && !s.comments && !s.reshares && !s.clicks) return [];
    return [{ organizationalEntity: organization, [kind]: urn, totalShareStatistics: totals([s]) }];
  });
  ctx.send(res, 200, { paging: { start: 0, count: 10, links: [] }, elements });
}

/** Answers `GET /rest/{memberCreatorPostAnalytics,organizationalEntityShareStatistics}`; false for others. */
export function answerAnalytics(
  ctx: AnalyticsContext,
  req: IncomingMessage,
  res: ServerResponse,
  sub: string,
): boolean {
  const path = (req.url ?? '').split('?')[0];
  const version = String(req.headers['linkedin-version']);
  if (req.method !== 'GET') return false;
  if (path === '/rest/memberCreatorPostAnalytics') {
    memberAnalytics(ctx, req, res, sub, version);
    return true;
  }
  if (path === '/rest/organizationalEntityShareStatistics') {
    shareStatistics(ctx, req, res, sub);
    return true;
  }
  return false;
}
