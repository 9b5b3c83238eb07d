// The account's webhook endpoints, and each one's delivery log.
import { useQuery } from '@tanstack/react-query';
import type {
  DeliveryAttempt,
  WebhookCreated,
  WebhookEndpoint,
} from '../../core/webhooks/schema.ts';
import { call } from './api.ts';
import { DELIVERIES_WAIT_MS } from './pacing.ts';
import { useSession } from './session.ts';

export type { DeliveryAttempt, WebhookCreated, WebhookEndpoint };

export const WEBHOOK_KEYS = {
  endpoints: ['webhooks'],
  deliveries: (endpointId: string) => ['deliveries', endpointId],
};

export function useWebhookEndpoints() {
  const session = useSession();
  return useQuery({
    queryKey: WEBHOOK_KEYS.endpoints,
    queryFn: () => call<WebhookEndpoint[]>('GET', '/app/api/webhooks'),
    enabled: !!session.data,
  });
}

/** An endpoint's delivery attempts, read again every 10 s while shown. */
export function useDeliveries(endpointId: string) {
  return useQuery({
    queryKey: WEBHOOK_KEYS.deliveries(endpointId),
    queryFn: () => call<DeliveryAttempt[]>('GET', `/app/api/webhooks/${endpointId}/deliveries`),
    // Every read counts against the request budget: each endpoint's log every 10 s, and at once
    // after a replay or from its Refresh button.
    refetchInterval: DELIVERIES_WAIT_MS,
  });
}
