// The selected brand of the session (its id and time zone), for every page that shows posts.
import { useSession } from './session.ts';

export function useBrand() {
  const session = useSession();
  const brand =
    session.data?.brands.find((b) => b.id === session.data?.selected_brand_id) ??
    session.data?.brands[0];
  return { session, brand, timeZone: brand?.timezone ?? 'UTC' };
}
