// Every 6 hours: the idle connections' long-lived tokens renewed before they expire
// (core/connections/renew.ts). A worker without the credentials key has none to renew.
import type { Task } from 'graphile-worker';
import {
  type CredentialsKey,
  type OAuthDeps,
  renewIdleConnections,
} from '../core/connections/service.ts';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';

export const renewConnections =
  (deps: { pool: Pool; credentialsKey?: CredentialsKey; oauth?: OAuthDeps }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const { pool, credentialsKey, oauth } = deps;
    if (!credentialsKey || !oauth) return;
    const done = await renewIdleConnections(
      { pool, credentialsKey, oauth },
      { signal: helpers.abortSignal },
    );
    if (!done.length) return;
    const count = (outcome: string) => done.filter((r) => r.outcome === outcome).length;
    helpers.logger.info(
      `renewing connections' tokens: ${count('renewed')} renewed, ${count('unchanged')} unchanged, ` +
        `${count('busy')} busy, ${count('refused')} refused, ${count('failed')} failed`,
    );
    for (const r of done)
      if (r.reason) helpers.logger.warn(`connection ${r.id} (${r.platform}): ${r.reason}`);
  };
