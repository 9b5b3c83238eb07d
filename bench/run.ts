// `npm run bench`: every benchmark, printed as figures. Traffic goes to loopback only.
import type { Connectors } from '../core/connectors/connector.ts';
import { benchRenders } from './designs.ts';
import { benchHeavyRender } from './heavyRender.ts';
import { benchMcp } from './mcp.ts';
import { benchMe } from './me.ts';
import { benchChunkedMemory, benchRawUpload } from './media.ts';
import { benchPostsApi, benchPublicationDelay } from './posts.ts';
import { startBenchService } from './support.ts';
import { benchWebhooks } from './webhooks.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
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
const connectors: Connectors = { mastodon: instant };
const svc = await startBenchService({ connectors });
try {
  await benchMe(svc, seconds);
  await benchPostsApi(svc, seconds);
  await benchMcp(svc, seconds);
  await benchPublicationDelay(svc);
  await benchWebhooks(svc);
  await benchRawUpload(svc, seconds);
  await benchChunkedMemory(svc, 500);
  await benchRenders(svc);
  await benchHeavyRender(svc);
} finally {
  await svc.stop();
}
