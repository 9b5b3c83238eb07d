// `npm run bench`: every benchmark, printed as figures. Traffic goes to loopback only.
import type { Connectors } from '../core/connectors/connector.ts';
import { benchCollect } from './collect.ts';
import { benchRenders } from './designs.ts';
import { benchDrawings } from './drawings.ts';
import { benchGenerate } from './generate.ts';
import { benchHeavyRender } from './heavyRender.ts';
import { benchInbound } from './inbound.ts';
import { benchInsight } from './insight.ts';
import { benchMcp } from './mcp.ts';
import { benchMe } from './me.ts';
import { benchChunkedMemory, benchRawUpload } from './media.ts';
import { benchPostsApi, benchPublicationDelay, benchRetryAfter, throttledOnce } from './posts.ts';
import { benchPromotion } from './promotion.ts';
import { startBenchService } from './support.ts';
import { benchThroughput } from './throughput.ts';
import { benchVideo } from './video.ts';
import { benchWebhookRetries, benchWebhooks } from './webhooks.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
// Runs of each side-by-side figure (me, posts, throughput), whose median is judged.
const runs = Number(process.env.BENCH_RUNS ?? 3);
// Webhook receivers run on loopback, which the outbound guard refuses unless allowed.
process.env.OUTBOUND_ALLOWLIST ??= '127.0.0.0/8';
process.env.OUTBOUND_ALLOW_HTTP ??= 'true';
// A platform that accepts every post at once: the delay measured is the service's own.
const instant = {
  publish: async (req: { idempotencyKey: string }) => ({
    externalPostId: req.idempotencyKey,
    permalinkUrl: null,
  }),
};
// `x` stands for a platform that throttles each post once (the Retry-After bench).
const connectors: Connectors = { mastodon: instant, x: throttledOnce };
const svc = await startBenchService({ connectors });
// BENCH_ONLY=heavyRender,me runs just those (names as below).
const benches: Record<string, () => Promise<unknown>> = {
  me: () => benchMe(svc, seconds, runs),
  throughput: () => benchThroughput(seconds, runs),
  posts: () => benchPostsApi(svc, seconds, runs),
  mcp: () => benchMcp(svc, seconds),
  publicationDelay: () => benchPublicationDelay(svc),
  retryAfter: () => benchRetryAfter(svc),
  webhooks: () => benchWebhooks(svc),
  webhookRetries: () => benchWebhookRetries(svc),
  rawUpload: () => benchRawUpload(svc, seconds),
  chunkedMemory: () => benchChunkedMemory(svc, 500),
  promotion: async () => benchPromotion(),
  renders: () => benchRenders(svc),
  heavyRender: () => benchHeavyRender(svc),
  drawings: () => benchDrawings(svc),
  insight: () => benchInsight(svc),
  collect: () => benchCollect(svc),
  inbound: () => benchInbound(svc),
  video: () => benchVideo(svc),
  generate: () => benchGenerate(svc),
};
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !(name in benches)) ?? [];
if (unknown.length) {
  await svc.stop();
  throw new Error(
    `BENCH_ONLY: unknown ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`,
  );
}
try {
  for (const [name, run] of Object.entries(benches)) if (!only || only.includes(name)) await run();
} finally {
  await svc.stop();
}
