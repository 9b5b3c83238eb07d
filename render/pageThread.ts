// What a render thread runs (render/renderPool.ts): one page, drawn with the fonts this
// thread registers on its first page. It answers which thread drew it, so a caller can tell
// the page was not drawn on its own event loop.
import { threadId } from 'node:worker_threads';
import { type RenderInput, renderPage } from './canvas.ts';

export default async function renderPageInThread(
  input: RenderInput,
): Promise<{ png: Uint8Array; threadId: number }> {
  return { png: await renderPage(input), threadId };
}
