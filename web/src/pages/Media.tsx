// The media library: the selected brand's images, videos and audio as a grid, the storage
// bar, an upload (an image in one request; video and audio in chunks, with a progress bar and
// resume), import by URL, and delete.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from '@tanstack/react-router';
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { ASSET_KEYS, type Asset, useAssetPages } from '../assets.ts';
import { useBrand } from '../brand.ts';
import { LoadError } from '../components.tsx';
import { byteSize } from '../format.ts';
import { chunkSender, pendingUpload, uploadImage, uploadInChunks } from '../upload.ts';

const describe = (a: Asset) =>
  [
    a.kind,
    a.width && a.height ? `${a.width}×${a.height}` : null,
    a.duration_s !== null ? `${a.duration_s.toFixed(1)} s` : null,
    byteSize(a.bytes),
  ]
    .filter(Boolean)
    .join(' · ');

type Progress = { name: string; sent: number; total: number; resumed: boolean };

export function Media() {
  const { session, brand } = useBrand();
  const queries = useQueryClient();
  const [progress, setProgress] = useState<Progress>();
  const [error, setError] = useState<string>();
  const [importError, setImportError] = useState<ApiError>();
  const [done, setDone] = useState<string>();
  const list = useAssetPages(brand?.id);
  const refresh = () => queries.invalidateQueries({ queryKey: ASSET_KEYS.all });
  const remove = useMutation({
    mutationFn: (id: string) => call('DELETE', `/app/api/assets/${id}`),
    onSuccess: refresh,
    onError: (err) => setError(err instanceof Error ? err.message : String(err)),
  });
  const importUrl = useMutation({
    mutationFn: (url: string) =>
      call<Asset>('POST', '/app/api/assets', { url, ...(brand ? { brand_id: brand.id } : {}) }),
    onSuccess: (asset) => {
      setDone(`Imported ${asset.filename ?? `asset ${asset.id}`}.`);
      void refresh();
    },
    onError: (err) => setImportError(err instanceof ApiError ? err : undefined),
  });
  // A mutation, so a 401 or a stale CSRF token is handled as for every other change.
  const send = useMutation({
    mutationFn: async (file: File) => {
      const resumed = !file.type.startsWith('image/') && !!pendingUpload(localStorage, file);
      const show = (sent: number, total: number) =>
        setProgress({ name: file.name, sent, total, resumed });
      show(0, file.size);
      if (file.type.startsWith('image/')) await uploadImage(file, (sent) => show(sent, file.size));
      else await uploadInChunks(file, chunkSender, localStorage, show);
      return file;
    },
    onSuccess: (file) => {
      setDone(`Uploaded ${file.name}.`);
      void refresh();
    },
    onError: (err, file) =>
      setError(
        `${file.name}: ${err instanceof Error ? err.message : String(err)}${
          pendingUpload(localStorage, file) ? ' Choose the same file again to resume.' : ''
        }`,
      ),
    onSettled: () => setProgress(undefined),
  });
  if (session.isPending) return <p role="status">Loading…</p>;
  if (!session.data) return <Navigate to="/sign-in" replace />;

  const upload = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setError(undefined);
    setImportError(undefined);
    setDone(undefined);
    send.mutate(file);
  };
  const submitUrl = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setImportError(undefined);
    setDone(undefined);
    importUrl.mutate(String(new FormData(e.currentTarget).get('url') ?? ''));
  };

  const pages = list.data?.pages ?? [];
  const assets = pages.flatMap((p) => p.assets);
  const storage = pages[0]?.storage;
  return (
    <section aria-labelledby="media-title">
      <h1 id="media-title">Media library</h1>
      {storage && (
        <div className="storage">
          <label htmlFor="storage-used">
            Storage: {byteSize(storage.used_bytes)} of {byteSize(storage.quota_bytes)}
          </label>
          <meter
            id="storage-used"
            min={0}
            max={storage.quota_bytes}
            value={storage.used_bytes}
            high={storage.quota_bytes * 0.9}
          />
        </div>
      )}
      <div className="card">
        <label htmlFor="upload-file">Upload an image, a video or audio</label>
        <input
          id="upload-file"
          type="file"
          accept="image/*,video/*,audio/*"
          onChange={upload}
          disabled={!!progress}
        />
        <p className="hint">
          Images up to 15 MB go in one request; videos and audio go in chunks and resume where they
          stopped if you choose the same file again.
        </p>
        {progress && (
          <div>
            <label htmlFor="upload-progress">
              {progress.resumed ? 'Resuming' : 'Uploading'} {progress.name}:{' '}
              {Math.floor((100 * progress.sent) / Math.max(1, progress.total))}%
            </label>
            <progress id="upload-progress" max={progress.total} value={progress.sent} />
          </div>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {done && <p role="status">{done}</p>}
      </div>
      <form onSubmit={submitUrl} className="card inline" noValidate>
        <label htmlFor="import-url">Import from a URL</label>
        <input
          id="import-url"
          name="url"
          type="url"
          placeholder="https://…/photo.jpg"
          aria-invalid={importError ? true : undefined}
          aria-describedby={importError ? 'import-url-error' : undefined}
        />
        <button type="submit" disabled={importUrl.isPending}>
          Import
        </button>
        {importError && (
          <p className="error" id="import-url-error" role="alert">
            {importError.fields.url ?? importError.message}
          </p>
        )}
      </form>
      <LoadError error={list.error} what="library" />
      {list.isSuccess && !assets.length && (
        <p className="empty">
          No media yet: upload an image or a video above, or import one from a public URL.
        </p>
      )}
      <ul className="grid" aria-label="Assets">
        {assets.map((a) => (
          <li key={a.id} className="tile">
            {a.kind === 'audio' ? (
              <div className="thumb audio" aria-hidden="true">
                ♪
              </div>
            ) : (
              <img
                className="thumb"
                src={`/app/api/assets/${a.id}/thumbnail`}
                // The caption names the file; only real alternative text is read out.
                alt={a.alt_text ?? ''}
                loading="lazy"
              />
            )}
            <p className="name">{a.filename ?? `${a.kind} ${a.id}`}</p>
            <p className="meta">{describe(a)}</p>
            <button
              type="button"
              className="quiet"
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(`Delete ${a.filename ?? `this ${a.kind}`}?`))
                  remove.mutate(a.id);
              }}
              aria-label={`Delete ${a.filename ?? `${a.kind} ${a.id}`}`}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()}>
          More
        </button>
      )}
    </section>
  );
}
