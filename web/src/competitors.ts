// The competitor profiles a brand tracks.
import { useQuery } from '@tanstack/react-query';
import type { Competitor } from '../../core/competitors/schema.ts';
import { call } from './api.ts';

export type { Competitor };

export const COMPETITOR_KEYS = {
  all: ['competitors'],
  ofBrand: (brandId: string | undefined) => ['competitors', brandId],
};

export function useCompetitors(brandId: string | undefined) {
  return useQuery({
    queryKey: COMPETITOR_KEYS.ofBrand(brandId),
    queryFn: () => call<Competitor[]>('GET', `/app/api/competitors?brand_id=${brandId}`),
    enabled: !!brandId,
  });
}
