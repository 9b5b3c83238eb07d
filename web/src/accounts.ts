// The connected platform accounts of a brand: the accounts page lists them, the composer warns
// of a platform without a working one.
import { useQuery } from '@tanstack/react-query';
import type { ConnectedAccount } from '../../core/connections/schema.ts';
import { call } from './api.ts';

export type { ConnectedAccount };

export const ACCOUNT_KEYS = {
  all: ['accounts'],
  ofBrand: (brandId: string | undefined) => ['accounts', brandId],
};

export function useConnectedAccounts(brandId: string | undefined) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.ofBrand(brandId),
    queryFn: () => call<ConnectedAccount[]>('GET', `/app/api/accounts?brand_id=${brandId}`),
    enabled: !!brandId,
  });
}
