// The Canvas tests' service: a render worker beside the server, so designs render for real,
// through the job path, into the server's storage; and an account with a key that may post and
// upload.
import type { Scope } from '../../core/kernel/plans.ts';
import type { RenderPoolOptions } from '../../render/renderPool.ts';
import { type Service, useService } from './service.ts';

const DESIGN_SCOPES: Scope[] = ['read', 'publish', 'media'];

/** useService with a render worker and an account whose key has DESIGN_SCOPES. */
export const useDesignService = (opts: { render?: RenderPoolOptions } = {}): Service =>
  useService({
    account: { scopes: DESIGN_SCOPES },
    worker: { storage: true, render: opts.render },
  });
