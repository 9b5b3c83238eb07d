// What a render thread runs (render/renderPool.ts): one page, drawn with the fonts this
// thread registers on its first page, or one drawing exported (Piscina calls the named
// export). A page answers which thread drew it, so a caller can tell the page was not drawn
// on its own event loop.
import { threadId } from 'node:worker_threads';
import { type RenderedPng, type RenderInput, renderPng } from './canvas.ts';
import { type DrawingFile, type DrawingFileRequest, drawingFile } from './drawing.ts';

export default async function renderPageInThread(
  input: RenderInput,
): Promise<RenderedPng & { threadId: number }> {
  return { ...(await renderPng(input)), threadId };
}

export const drawingInThread = (req: DrawingFileRequest): Promise<DrawingFile> => drawingFile(req);
