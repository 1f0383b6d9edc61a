import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The renderer is built into static files that the instance serves at `/` (dist/renderer). The
 * output obeys the instance's CSP: no inline script (no module-preload polyfill, which Vite would
 * otherwise inline), styles in files, no eval.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    alias: { react: 'preact/compat', 'react-dom': 'preact/compat' },
  },
  build: {
    // HEARTH_RENDERER_OUT builds elsewhere (several people testing in one checkout); see api/http/app-shell.ts.
    outDir: process.env.HEARTH_RENDERER_OUT ?? fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
  logLevel: 'warn',
});
