// Media uploads from the library page: an image as its raw bytes in one request, a video or
// audio file in chunks (init, parts from index 0 upward, finish) whose progress is reported
// byte by byte and which resumes where it stopped: the session and the next chunk are kept in
// localStorage under the file's name, size and date, so choosing the same file again after a
// failure (or a closed tab) sends only the chunks not yet acknowledged.
import { ApiError, csrfHeader } from './api.ts';

export type UploadSession = {
  upload_id: string;
  part_bytes: number;
  parts: number;
  expires_at: string;
};
export type Uploaded = { id: string; kind: string };
/** A chunked upload under way: its session and the first chunk not yet acknowledged. */
export type Pending = UploadSession & { next: number };

/** What a chunked upload needs from the network (the page's XHR, or a test's stand-in). */
export type ChunkSender = {
  init(file: { name: string; size: number }): Promise<UploadSession>;
  part(
    uploadId: string,
    index: number,
    chunk: Blob,
    progress: (sent: number) => void,
  ): Promise<void>;
  finish(uploadId: string, parts: number): Promise<Uploaded>;
};

/** Where pending uploads are kept (localStorage in the page). */
export type PendingStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export const pendingKey = (file: { name: string; size: number; lastModified: number }) =>
  `upload:${file.name}:${file.size}:${file.lastModified}`;

/** The upload this file left unfinished, if its session has not expired. */
export function pendingUpload(
  store: PendingStore,
  file: { name: string; size: number; lastModified: number },
  now = Date.now(),
): Pending | undefined {
  const raw = store.getItem(pendingKey(file));
  if (!raw) return undefined;
  try {
    const pending = JSON.parse(raw) as Pending;
    if (Date.parse(pending.expires_at) > now && pending.next >= 0) return pending;
  } catch {}
  store.removeItem(pendingKey(file));
  return undefined;
}

/**
 * Sends `file` in chunks of the session's part_bytes, resuming a pending upload of the same
 * file; `progress` gets the bytes acknowledged or in flight, out of the file's size.
 */
export async function uploadInChunks(
  file: Blob & { name: string; lastModified: number },
  sender: ChunkSender,
  store: PendingStore,
  progress: (sent: number, total: number) => void,
): Promise<Uploaded> {
  const key = pendingKey(file);
  let pending = pendingUpload(store, file);
  if (!pending) {
    pending = { ...(await sender.init({ name: file.name, size: file.size })), next: 0 };
    store.setItem(key, JSON.stringify(pending));
  }
  const { upload_id, part_bytes, parts } = pending;
  progress(pending.next * part_bytes, file.size);
  for (let index = pending.next; index < parts; index++) {
    const start = index * part_bytes;
    const chunk = file.slice(start, Math.min(file.size, start + part_bytes));
    try {
      await sender.part(upload_id, index, chunk, (sent) => progress(start + sent, file.size));
    } catch (err) {
      // A session the server no longer knows cannot be resumed: the next try starts afresh.
      if (err instanceof ApiError && err.status === 404) store.removeItem(key);
      throw err;
    }
    store.setItem(key, JSON.stringify({ ...pending, next: index + 1 }));
  }
  const asset = await sender.finish(upload_id, parts);
  store.removeItem(key);
  progress(file.size, file.size);
  return asset;
}

/** One request through XHR, whose upload reports progress (fetch's does not). */
function send<T>(
  method: string,
  url: string,
  body: Blob | string,
  type: string,
  progress?: (sent: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.setRequestHeader('content-type', type);
    for (const [name, value] of Object.entries(csrfHeader())) xhr.setRequestHeader(name, value);
    if (progress) xhr.upload.onprogress = (e) => progress(e.loaded);
    xhr.onload = () => {
      // A proxy in front may answer in HTML (a 413 page): the status still says what happened.
      let json: unknown;
      try {
        json = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) resolve(json as T);
      else reject(new ApiError(xhr.status, json, xhr.getResponseHeader('retry-after')));
    };
    xhr.onerror = () =>
      reject(new Error('The upload was interrupted: choose the file again to resume.'));
    xhr.send(body);
  });
}

/** The library's chunked upload, through /app/api. */
export const chunkSender: ChunkSender = {
  init: (file) =>
    send(
      'POST',
      '/app/api/assets/upload/init',
      JSON.stringify({ filename: file.name, size_bytes: file.size }),
      'application/json',
    ),
  part: (uploadId, index, chunk, progress) =>
    send(
      'PUT',
      `/app/api/assets/upload/part?upload_id=${encodeURIComponent(uploadId)}&index=${index}`,
      chunk,
      'application/octet-stream',
      progress,
    ),
  finish: (uploadId, parts) =>
    send(
      'POST',
      '/app/api/assets/upload/finish',
      JSON.stringify({ upload_id: uploadId, parts }),
      'application/json',
    ),
};

/** An image, as its raw bytes with its own type, in one request. */
export const uploadImage = (file: File, progress: (sent: number) => void) =>
  send<Uploaded>(
    'POST',
    `/app/api/assets/upload?filename=${encodeURIComponent(file.name.slice(0, 255))}`,
    file,
    file.type,
    progress,
  );
