// A render thread module whose page crashes its thread while it is being drawn
// (test/render/renderPool.test.ts).
export default function crashWhileDrawing(): Promise<never> {
  setTimeout(() => {
    throw new Error('the thread crashed while drawing');
  }, 20);
  return new Promise(() => {});
}
