// A Threads or Instagram account as its connector calls it: its user id kept when it
// connected, Graph calls as the account, and its containers' platform (../meta/container.ts)
// under the paths and status fields each names its own way.
import type { OutboundPolicy } from '../../outbound/guard.ts';
import { type ConnectedAccountAccess, PublicationError } from '../connector.ts';
import { PLATFORM_TIMEOUT_MS } from '../http.ts';
import type { ContainerPlatform } from './container.ts';
import { type GraphCall, GraphId, graphClient } from './graph.ts';

/** Within one attempt (a minute at most), a container is read every 3 s for up to 30 s. */
export const CONTAINER_POLL = { intervalMs: 3_000, boundMs: 30_000 };

/** The account's user id: kept when it connected (CONTRACT's `user_id`). */
export function userIdOf(platform: string, account: ConnectedAccountAccess): string {
  const id = account.credentials.user_id;
  if (typeof id === 'string' && GraphId.safeParse(id).success) return id;
  throw new PublicationError(
    `The ${platform} connection lacks its user id (user_id); reconnect it.`,
    { retryable: false, reconnect: true },
  );
}

/** What a container platform's connector is given. */
export type ContainerDeps = {
  outbound: OutboundPolicy;
  /** The platform's API URL, without a trailing slash. */
  apiUrl: string;
  requestTimeoutMs?: number;
  /** How often a container's status is read in one attempt, and for how long; tests shorten it. */
  containerPoll?: { intervalMs: number; boundMs: number };
};

/** How a platform names its container calls (the rest of ContainerPlatform). */
export type ContainerNaming = Pick<
  ContainerPlatform,
  'name' | 'statusFields' | 'readStatus' | 'fetchFailed'
> & {
  /** The version prefix every path is written against (`/v1.0`). */
  version: string;
  /** The user's creation and publishing edges (`threads`, `threads_publish`). */
  createEdge: string;
  publishEdge: string;
};

/** Graph calls as an account (`callAs`) and its containers' platform (`platformOf`). */
export function containerAccounts(deps: ContainerDeps, naming: ContainerNaming) {
  const { version, createEdge, publishEdge, ...named } = naming;
  const callAs = (account: ConnectedAccountAccess) =>
    graphClient({
      policy: deps.outbound,
      platform: naming.name,
      apiUrl: deps.apiUrl,
      account,
      timeoutMs: deps.requestTimeoutMs ?? PLATFORM_TIMEOUT_MS,
      paramsInQuery: true,
    });
  const platformOf = (call: GraphCall, userId: string, signal: AbortSignal): ContainerPlatform => ({
    ...named,
    call,
    createPath: `${version}/${userId}/${createEdge}`,
    publishPath: `${version}/${userId}/${publishEdge}`,
    containerPath: (id) => `${version}/${id}`,
    poll: deps.containerPoll ?? CONTAINER_POLL,
    signal,
  });
  return { callAs, platformOf };
}
