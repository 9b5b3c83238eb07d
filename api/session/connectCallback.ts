// GET /connect/{platform}/callback (CONTRACT.md): where an OAuth platform sends the browser back
// from its authorize page. A top-level GET carries the SameSite=Lax session cookie, so the flow
// is finished for the session that started it; the browser then goes back to the Accounts page,
// with the connected platform or a short reason of ours (never the platform's words or a token).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ConnectCallbackQuery } from '../../core/connectFlows/schema.ts';
import { ConnectFailed, finishConnectFlow } from '../../core/connectFlows/service.ts';
import { OAUTH_PLATFORMS } from '../../core/platformApps.ts';
import type { DashboardDeps } from './sessionCookie.ts';

const ACCOUNTS_PAGE = '/settings/accounts';

export const connectCallbackRoutes: FastifyPluginAsync<DashboardDeps> = async (
  base,
  { pool, config, oauthApps },
) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/connect/:platform/callback',
    {
      schema: {
        summary:
          "An OAuth platform's redirect back: finishes the session's connect flow, then 303 to the Accounts page (?connected=platform, or ?connect_error=reason)",
        tags: ['dashboard'],
        params: z.object({ platform: z.enum(OAUTH_PLATFORMS) }),
        querystring: ConnectCallbackQuery,
      },
      // A malformed query (an oversized or repeated code or state) is a failed connection like
      // any other: the browser goes back to the Accounts page, not to a JSON error.
      attachValidation: true,
    },
    async (req, reply) => {
      const { platform } = req.params;
      // The budget's hook found the session (and counted this request against it).
      const principal = req.principal;
      const session =
        principal?.credential.kind === 'session' ? { id: principal.credential.id } : undefined;
      // Nothing of this address (its code and state) is worth keeping in a later page's Referer.
      reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store');
      if (req.validationError) {
        req.log.info({ platform }, 'connect: the callback carried a malformed code or state');
        return reply.redirect(
          `${ACCOUNTS_PAGE}?connect_error=invalid_state&platform=${platform}`,
          303,
        );
      }
      try {
        await finishConnectFlow(
          { pool, config, apps: oauthApps, log: req.log },
          session,
          platform,
          req.query,
        );
      } catch (err) {
        if (err instanceof ConnectFailed)
          req.log.info({ platform, reason: err.code }, 'connect: the callback did not connect');
        else req.log.error({ err, platform }, 'connect: the callback failed');
        const code = err instanceof ConnectFailed ? err.code : 'failed';
        return reply.redirect(`${ACCOUNTS_PAGE}?connect_error=${code}&platform=${platform}`, 303);
      }
      return reply.redirect(`${ACCOUNTS_PAGE}?connected=${platform}`, 303);
    },
  );
};
