// The account's API keys (never the secrets: a key is shown once, when it is made).
import { useQuery } from '@tanstack/react-query';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type ApiKey = {
  id: string;
  name: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
};

export const APIKEY_KEYS = { all: ['keys'] };

export function useApiKeys() {
  const session = useSession();
  return useQuery({
    queryKey: APIKEY_KEYS.all,
    queryFn: () => call<ApiKey[]>('GET', '/app/api/apikeys'),
    enabled: !!session.data,
  });
}
