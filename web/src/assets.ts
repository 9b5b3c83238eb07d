// The media library's queries: a brand's assets a page at a time (the library page), and the
// newest few the composer attaches and the video templates fill their slots with.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { Asset, AssetList } from '../../core/assets/schema.ts';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type { Asset, AssetList };

export const ASSET_KEYS = {
  all: ['assets'],
  pages: (brandId: string | undefined) => ['assets', brandId],
  attachable: (brandId: string | undefined) => ['assets', brandId, 'attachable'],
  slots: (brandId: string | undefined) => ['assets', brandId, 'slots'],
};

const brandParam = (brandId: string | undefined) => (brandId ? `&brand_id=${brandId}` : '');

/** A brand's assets, 48 a page, with the account's storage use. */
export function useAssetPages(brandId: string | undefined) {
  const session = useSession();
  return useInfiniteQuery({
    queryKey: ASSET_KEYS.pages(brandId),
    queryFn: ({ pageParam }) =>
      call<AssetList>(
        'GET',
        `/app/api/assets?limit=48${brandParam(brandId)}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
      ),
    initialPageParam: '',
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    enabled: !!session.data,
  });
}

/** A brand's newest images and videos, which a post can carry (audio cannot). */
export function useAttachableAssets(brandId: string | undefined) {
  const session = useSession();
  return useQuery({
    queryKey: ASSET_KEYS.attachable(brandId),
    queryFn: () => call<AssetList>('GET', `/app/api/assets?limit=24${brandParam(brandId)}`),
    enabled: !!session.data,
    select: (list) => list.assets.filter((a) => a.kind !== 'audio'),
  });
}

/** A brand's newest media, for the video templates' clip and photo slots. */
export function useSlotAssets(brandId: string | undefined) {
  return useQuery({
    queryKey: ASSET_KEYS.slots(brandId),
    queryFn: () => call<AssetList>('GET', `/app/api/assets?limit=48&brand_id=${brandId}`),
    enabled: !!brandId,
  });
}
