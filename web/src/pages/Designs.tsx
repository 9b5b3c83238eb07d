// Designs: the selected brand's designs (their first rendered page), and the template gallery
// (the committed thumbnails) to start one from, with a headline; video templates start a video
// design and a draft post of it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { ApiError, call } from '../api.ts';
import { useSlotAssets } from '../assets.ts';
import { useBrand } from '../brand.ts';
import { LoadError, PlanNotice } from '../components.tsx';
import { DESIGN_KEYS, useDesignPages, useDesignTemplates, type VideoTemplate } from '../designs.ts';
import { sameOriginPath } from '../format.ts';
import { longDate } from '../time.ts';

export function Designs() {
  const { session, brand, timeZone } = useBrand();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [headline, setHeadline] = useState('');
  const [platform, setPlatform] = useState('bluesky');
  const [error, setError] = useState<string>();
  const [offset, setOffset] = useState(0);
  const designs = useDesignPages(brand?.id);
  const cards = designs.data?.pages.flatMap((p) => p.designs) ?? [];
  const templates = useDesignTemplates(offset);
  const library = useSlotAssets(brand?.id);
  const [clip, setClip] = useState('');
  const [photo, setPhoto] = useState('');
  const failed = (err: unknown) =>
    setError(err instanceof ApiError ? err.message : 'The design could not be made.');
  const create = useMutation({
    mutationFn: (template: string) =>
      call<{ design_id: string }>('POST', '/app/api/designs', {
        brand_uuid: brand!.uuid,
        template,
        ...(headline.trim() ? { headline: headline.trim() } : {}),
      }),
    onSuccess: async (made) => {
      await queries.invalidateQueries({ queryKey: DESIGN_KEYS.all });
      await navigate({ to: '/designs/$designId', params: { designId: made.design_id } });
    },
    onError: failed,
  });
  const useVideo = useMutation({
    mutationFn: (t: VideoTemplate) =>
      call<{ design_id: string }>('POST', '/app/api/video-designs', {
        template: t.name,
        platform,
        brand_id: brand!.id,
        texts: headline.trim() && t.text_slots[0] ? { [t.text_slots[0]]: headline.trim() } : {},
        media: {
          ...(clip && t.media_slots.includes('clip') ? { clip } : {}),
          ...(photo && t.media_slots.includes('photo') ? { photo } : {}),
        },
      }),
    onSuccess: async (made) => {
      await queries.invalidateQueries({ queryKey: DESIGN_KEYS.all });
      await navigate({ to: '/designs/$designId', params: { designId: made.design_id } });
    },
    onError: failed,
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  const plan = session.data.account.plan;
  const busy = create.isPending || useVideo.isPending;
  return (
    <section aria-labelledby="designs-title">
      <h1 id="designs-title">Designs</h1>
      <h2>Your designs</h2>
      <LoadError error={designs.error} what="list of designs" />
      {designs.isSuccess && !cards.length && (
        <p className="empty">No designs yet: pick a template below to start one.</p>
      )}
      <ul className="grid" aria-label="Your designs">
        {cards.map((d) => (
          <li key={d.design_id} className="tile">
            <Link to="/designs/$designId" params={{ designId: d.design_id }}>
              {d.thumbnail_url ? (
                <img className="thumb" src={sameOriginPath(d.thumbnail_url)} alt="" />
              ) : (
                <div className="thumb" aria-hidden="true">
                  {d.kind === 'video' ? '▶' : '…'}
                </div>
              )}
              <span className="name">
                {d.kind === 'video' ? 'Video' : 'Design'} {d.design_id} · {d.template}
              </span>
            </Link>
            <p className="meta">
              {d.render_error
                ? `Render failed: ${d.render_error}`
                : longDate(d.updated_at, timeZone)}
            </p>
          </li>
        ))}
      </ul>
      {designs.hasNextPage && (
        <button type="button" onClick={() => void designs.fetchNextPage()}>
          More designs
        </button>
      )}

      <h2>Start from a template</h2>
      <div className="card inline">
        <label htmlFor="design-headline">Headline</label>
        <input
          id="design-headline"
          value={headline}
          maxLength={300}
          onChange={(e) => setHeadline(e.target.value)}
          placeholder="Fills the template's headline"
        />
        <label htmlFor="video-platform">Video post for</label>
        <select id="video-platform" value={platform} onChange={(e) => setPlatform(e.target.value)}>
          {session.data.platforms.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </div>
      <PlanNotice plan={plan} needs="pro" what="Premium templates work" />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ul className="grid" aria-label="Templates">
        {templates.data?.templates.map((t) => (
          <li key={t.name} className="tile">
            <img
              className="thumb"
              src={sameOriginPath(t.thumbnail_url)}
              alt={`Preview of ${t.title}`}
              loading="lazy"
            />
            <p className="name">{t.title}</p>
            <p className="meta">
              {t.niche} · {t.aspect}
              {t.premium ? ' · premium' : ''}
            </p>
            <button
              type="button"
              className="small"
              disabled={busy || !t.allowed}
              onClick={() => create.mutate(t.name)}
              aria-label={`Use template ${t.title}`}
            >
              Use
            </button>
          </li>
        ))}
      </ul>
      <div className="toolbar">
        <button
          type="button"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - 50))}
        >
          Previous templates
        </button>
        <button
          type="button"
          disabled={(templates.data?.templates.length ?? 0) < 50}
          onClick={() => setOffset(offset + 50)}
        >
          More templates
        </button>
      </div>
      <h2>Video templates</h2>
      <div className="card inline">
        {(
          [
            ['clip', 'Clip (a video from the library)', 'video', clip, setClip],
            ['photo', 'Photo (an image from the library)', 'image', photo, setPhoto],
          ] as const
        ).map(([slot, label, kind, value, set]) => (
          <div key={slot} className="field">
            <label htmlFor={`slot-${slot}`}>{label}</label>
            <select id={`slot-${slot}`} value={value} onChange={(e) => set(e.target.value)}>
              <option value="">None: the slot is left out</option>
              {library.data?.assets
                .filter((a) => a.kind === kind)
                .map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.filename ?? `${a.kind} ${a.id}`}
                  </option>
                ))}
            </select>
          </div>
        ))}
      </div>
      <ul className="list-plain" aria-label="Video templates">
        {templates.data?.video_templates.map((t) => (
          <li key={t.name}>
            <strong>{t.title}</strong> · {t.aspect} · {t.duration_s} s
            {t.premium ? ' · premium' : ''}{' '}
            <button
              type="button"
              className="small"
              disabled={busy || !t.allowed}
              onClick={() => useVideo.mutate(t)}
              aria-label={`Use video template ${t.title}`}
            >
              Use
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
