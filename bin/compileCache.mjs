// Preloaded by `npm run admin` (node --import): keeps V8's compiled code, and the TypeScript
// already stripped of its types, between runs of the CLI, which otherwise spends about half
// its start-up loading the type stripper. JavaScript, not TypeScript: a .ts file here would
// load the stripper itself. The cache lives in node_modules/.cache, which only whoever
// installed the dependencies can write (a shared temp directory could be planted).
import { enableCompileCache } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

enableCompileCache(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../node_modules/.cache/node-compile'),
);
