// The account's usage (plan, credits, storage, this minute's request budget, posts by status)
// and a brand's analytics with its best hours of the week.
import { useQuery } from '@tanstack/react-query';
import type { Analytics, BestTimes } from '../../core/metrics/schema.ts';
import type { Usage } from '../../core/usage/schema.ts';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type { Analytics, BestTimes, Usage };

export const USAGE_KEYS = {
  usage: ['usage'],
  analytics: (brandId: string | undefined) => ['analytics', brandId],
};

export function useUsage() {
  const session = useSession();
  return useQuery({
    queryKey: USAGE_KEYS.usage,
    queryFn: () => call<Usage>('GET', '/app/api/usage'),
    enabled: !!session.data,
  });
}

/** A brand's last 30 days and its best hours, in one request. */
export function useAnalytics(brandId: string | undefined) {
  return useQuery({
    queryKey: USAGE_KEYS.analytics(brandId),
    queryFn: () =>
      call<{ analytics: Analytics; best_times: BestTimes }>(
        'GET',
        `/app/api/analytics?brand_id=${brandId}`,
      ),
    enabled: !!brandId,
  });
}
