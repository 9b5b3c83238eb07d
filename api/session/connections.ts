// /app/api/accounts: a brand's connected platform accounts, and connecting one (checked with
// the platform first), for the settings page. The operator CLI's `connect` does the same.
// /app/api/platforms: every platform with the brand's state on it; and
// /app/api/connections/{platform}/authorize: the start of an OAuth platform's connect flow,
// which ends at /connect/{platform}/callback (connectCallback.ts).
// /app/api/accounts/{id}/pages and /page: the Facebook Pages a connection may publish as, and
// the choice of one.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireBrandFor } from '../../core/brands/service.ts';
import { StartConnectInput, StartedConnect } from '../../core/connectFlows/schema.ts';
import { startConnectFlow } from '../../core/connectFlows/service.ts';
import {
  ChooseFacebookPageInput,
  ChosenFacebookPage,
  ConnectInput,
  FacebookPages,
  PlatformState,
} from '../../core/connections/schema.ts';
import {
  ConnectedAccount,
  chooseFacebookPage,
  connectAccount,
  listConnectedAccounts,
  listFacebookPages,
  listPlatformStates,
} from '../../core/connections/service.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import { OAUTH_PLATFORMS } from '../../core/platformApps.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { type DashboardDeps, requireSession } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

export const connectionRoutes: FastifyPluginAsync<DashboardDeps> = async (
  base,
  { pool, config, oauthApps },
) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const session = requireSession(pool);

  app.get(
    '/accounts',
    {
      preHandler: session,
      schema: {
        summary: "A brand's connected platform accounts and their health",
        tags,
        security,
        querystring: z.object({ brand_id: IdInput.optional() }).strict(),
        response: {
          200: z.array(ConnectedAccount),
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const brand = await requireBrandFor(pool, caller, req.query.brand_id);
      return listConnectedAccounts(pool, caller.accountId, brand.id);
    },
  );

  app.post(
    '/accounts',
    {
      preHandler: session,
      schema: {
        summary: 'Connect (or reconnect) a Bluesky or Mastodon account, checked with the platform',
        tags,
        security,
        body: ConnectInput,
        response: {
          201: z.object({ id: z.string(), platform: z.string(), handle: z.string() }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
          501: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const caller = principalOf(req);
      const brand = await requireBrandFor(pool, caller, req.body.brand_id);
      const connected = await connectAccount(
        pool,
        config,
        {
          accountId: caller.accountId,
          brandId: brand.id,
          platform: req.body.platform,
          config: req.body.config,
        },
        req.log,
      );
      return reply.code(201).send(connected);
    },
  );

  app.get(
    '/platforms',
    {
      preHandler: session,
      schema: {
        summary:
          "Every platform with the brand's state on it: connected (handle, expiry), needs_reconnect, not_connected, or not_configured (the variables to set)",
        tags,
        security,
        querystring: z.object({ brand_id: IdInput.optional() }).strict(),
        response: { 200: z.array(PlatformState), 401: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const brand = await requireBrandFor(pool, caller, req.query.brand_id);
      return listPlatformStates(pool, config, oauthApps, caller.accountId, brand.id);
    },
  );

  app.post(
    '/connections/:platform/authorize',
    {
      preHandler: session,
      schema: {
        summary:
          'Start connecting an OAuth platform: answers its authorize page, which returns to /connect/{platform}/callback',
        tags,
        security,
        params: z.object({ platform: z.enum(OAUTH_PLATFORMS) }),
        body: StartConnectInput.nullish(),
        response: {
          200: StartedConnect,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          501: ErrorBody,
        },
      },
    },
    async (req) =>
      startConnectFlow(
        { pool, config, apps: oauthApps, log: req.log },
        principalOf(req),
        req.params.platform,
        req.body ?? {},
      ),
  );

  app.get(
    '/accounts/:id/pages',
    {
      preHandler: session,
      schema: {
        summary:
          "The Facebook Pages a Facebook connection's user manages (ids and names) and the one it publishes as",
        tags,
        security,
        params: z.object({ id: IdInput }),
        response: {
          200: FacebookPages,
          401: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          502: ErrorBody,
        },
      },
    },
    async (req) =>
      listFacebookPages({ pool, config, log: req.log }, principalOf(req).accountId, req.params.id),
  );

  app.put(
    '/accounts/:id/page',
    {
      preHandler: session,
      schema: {
        summary:
          'Publish as another of the Pages the Facebook connection lists: its token is stored, the connection and its posts kept',
        tags,
        security,
        params: z.object({ id: IdInput }),
        body: ChooseFacebookPageInput,
        response: {
          200: ChosenFacebookPage,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          502: ErrorBody,
        },
      },
    },
    async (req) =>
      chooseFacebookPage(
        { pool, config, log: req.log },
        principalOf(req).accountId,
        req.params.id,
        req.body.page_id,
      ),
  );
};
