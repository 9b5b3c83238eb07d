// The account's API keys (never the secrets: a key is shown once, when it is made).
import { useQuery } from '@tanstack/react-query';
import type { ApiKeyCreated, ApiKeyInfo } from '../../core/apikeys/schema.ts';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type { ApiKeyCreated, ApiKeyInfo };

export const APIKEY_KEYS = { all: ['keys'] };

export function useApiKeys() {
  const session = useSession();
  return useQuery({
    queryKey: APIKEY_KEYS.all,
    queryFn: () => call<ApiKeyInfo[]>('GET', '/app/api/apikeys'),
    enabled: !!session.data,
  });
}
