// A render thread module that cannot load, as when a native module is missing
// (test/render/renderPool.test.ts).
throw new Error('the render thread cannot start');
