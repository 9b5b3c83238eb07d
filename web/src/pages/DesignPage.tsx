// One design: its rendered pages, its text layers to edit and re-render (at the version read;
// a stale one is refused and the typed texts stay), and for a video design its poster frames
// and an export whose progress is followed on the job record.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError, call, type Job } from '../api.ts';
import { useBrand } from '../brand.ts';
import { JobProgress, LoadError, SaveError } from '../components.tsx';
import { DESIGN_KEYS, type DesignDetail, useDesign } from '../designs.ts';
import { sameOriginPath } from '../format.ts';
import { JOBS_KEY } from '../jobs.ts';

export function DesignPage() {
  const { designId } = useParams({ from: '/designs/$designId' });
  const { session } = useBrand();
  const queries = useQueryClient();
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  // Saved elsewhere meanwhile: the texts typed here stay while the latest version loads.
  const [stale, setStale] = useState(false);
  const [frames, setFrames] = useState<string[]>();
  const [exportJob, setExportJob] = useState<string>();
  const key = DESIGN_KEYS.one(designId);
  const design = useDesign(designId);
  const save = useMutation({
    mutationFn: (d: DesignDetail) =>
      call('POST', `/app/api/designs/${d.design_id}/layers`, {
        layout_version: d.layout_version,
        ops: Object.entries(edits).map(([cid, text]) => ({ op: 'set', cid, fields: { text } })),
      }),
    onSuccess: async () => {
      setEdits({});
      await queries.invalidateQueries({ queryKey: key });
    },
    onError: (err) => {
      setStale(err instanceof ApiError && err.status === 409);
      setError(err instanceof Error ? err.message : String(err));
    },
  });
  const preview = useMutation({
    mutationFn: () =>
      call<{ images: string[] }>('POST', `/app/api/designs/${designId}/preview`, {
        times: [0, 1, 2],
      }),
    onSuccess: (p) => setFrames(p.images),
    onError: (err) => setError(err instanceof Error ? err.message : String(err)),
  });
  const startExport = useMutation({
    mutationFn: () => call<Job>('POST', `/app/api/designs/${designId}/export`),
    onSuccess: (job) => {
      setExportJob(job.job_id);
      void queries.invalidateQueries({ queryKey: JOBS_KEY });
    },
    onError: (err) => setError(err instanceof Error ? err.message : String(err)),
  });
  if (session.isPending || design.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  if (!design.data)
    return (
      <>
        <LoadError error={design.error} what="design" />
        <Link to="/designs">Back to designs</Link>
      </>
    );
  const d = design.data;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    if (Object.keys(edits).length) save.mutate(d);
  };
  return (
    <section aria-labelledby="design-title">
      <h1 id="design-title">
        {d.kind === 'video' ? 'Video design' : 'Design'} {d.design_id}
      </h1>
      <p className="meta">
        Template {d.template} · version {d.layout_version} · {d.layers.width}×{d.layers.height}
        {d.kind === 'video'
          ? ' · a video: export it to make the file'
          : d.render_error
            ? ''
            : d.rendered
              ? ' · rendered'
              : ' · rendering…'}
      </p>
      {d.render_error && (
        <p className="error" role="alert">
          The render failed: {d.render_error}
        </p>
      )}
      {d.kind === 'image' && (
        <div className="pages">
          {d.page_urls.map((url, i) => (
            <img
              key={url}
              className="page"
              src={sameOriginPath(url)}
              alt={`Page ${i + 1} of ${d.page_urls.length} as rendered`}
            />
          ))}
          {!d.page_urls.length && <p className="empty">No rendered page yet.</p>}
        </div>
      )}
      {d.kind === 'video' && (
        <div className="card">
          <div className="toolbar">
            <button type="button" onClick={() => preview.mutate()} disabled={preview.isPending}>
              {preview.isPending ? 'Drawing poster frames…' : 'Show poster frames'}
            </button>
            <button
              type="button"
              onClick={() => startExport.mutate()}
              disabled={startExport.isPending}
            >
              Export video
            </button>
          </div>
          {frames && (
            <div className="pages">
              {frames.map((src, i) => (
                <img key={src.slice(-32)} className="page" src={src} alt={`Frame at ${i} s`} />
              ))}
            </div>
          )}
          {exportJob && <JobProgress jobId={exportJob} label="Export" />}
        </div>
      )}
      <form onSubmit={submit} className="card" noValidate>
        <h2>Text layers</h2>
        {!d.texts.length && <p className="empty">This design has no text layer.</p>}
        {d.texts.map((t, i) => (
          <div key={t.cid} className="field">
            <label htmlFor={`text-${t.cid}`}>
              Text {i + 1}
              {d.layers.pages > 1 ? ` (page ${t.page + 1})` : ''}
            </label>
            <textarea
              id={`text-${t.cid}`}
              rows={2}
              value={edits[t.cid] ?? t.text}
              onChange={(e) => setEdits({ ...edits, [t.cid]: e.target.value })}
            />
          </div>
        ))}
        <SaveError
          error={error}
          stale={stale}
          kept="Your texts are kept here:"
          reload={async () => {
            await design.refetch();
            setStale(false);
            setError(undefined);
          }}
        />
        {!!d.texts.length && (
          <button type="submit" disabled={save.isPending || !Object.keys(edits).length}>
            {save.isPending ? 'Saving and rendering…' : 'Save and re-render'}
          </button>
        )}
      </form>
    </section>
  );
}
