// The dashboard's build (issue 22): a single-page app built into web/dist, which the API
// serves at / (api/web.ts). No CDN: fonts and assets are bundled and served by us.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false },
});
