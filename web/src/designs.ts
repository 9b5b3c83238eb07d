// The designs' queries: a brand's designs a page at a time, the template gallery, and one
// design with its pages and text layers.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { DesignCard, DesignDetail } from '../../core/designs/schema.ts';
import type { TemplateChoice } from '../../core/templates/schema.ts';
import type { VideoTemplateChoice } from '../../core/video/schema.ts';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type { DesignCard, DesignDetail };
/** A gallery template, with whether the caller's plan can use it. */
export type Template = TemplateChoice;
export type VideoTemplate = VideoTemplateChoice;

export const DESIGN_KEYS = {
  all: ['designs'],
  pages: (brandId: string | undefined) => ['designs', brandId],
  templates: (offset: number) => ['design-templates', offset],
  one: (designId: string) => ['design', designId],
};

/** A brand's designs, a page at a time. */
export function useDesignPages(brandId: string | undefined) {
  return useInfiniteQuery({
    queryKey: DESIGN_KEYS.pages(brandId),
    queryFn: ({ pageParam }) =>
      call<{ designs: DesignCard[]; next_offset: number | null }>(
        'GET',
        `/app/api/designs?brand_id=${brandId}&offset=${pageParam}`,
      ),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next_offset ?? undefined,
    enabled: !!brandId,
  });
}

/** A page of the template gallery, image and video templates. */
export function useDesignTemplates(offset: number) {
  const session = useSession();
  return useQuery({
    queryKey: DESIGN_KEYS.templates(offset),
    queryFn: () =>
      call<{ templates: Template[]; video_templates: VideoTemplate[] }>(
        'GET',
        `/app/api/design-templates?offset=${offset}`,
      ),
    enabled: !!session.data,
  });
}

/** One design: its rendered pages and its text layers. */
export function useDesign(designId: string) {
  const session = useSession();
  return useQuery({
    queryKey: DESIGN_KEYS.one(designId),
    queryFn: () => call<DesignDetail>('GET', `/app/api/designs/${designId}`),
    enabled: !!session.data,
  });
}
