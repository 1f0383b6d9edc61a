import { defineConfig } from 'vitest/config';

/*
 * Two projects over one pool of two workers (one per core keeps real servers and SQLite files
 * from starving each other). Test files share their worker's process and modules (`isolate:
 * false`): a fresh process per file imported the whole server again each time, a third of the
 * suite's time, and these tests keep no module state of their own (every instance has its own
 * dependencies; nothing is mocked or stubbed). The activity memo's test checks the process-wide
 * hook it installs, so it alone gets a fresh process.
 */
const ISOLATED = ['test/federation/activity-memo.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Set here, for the whole run: vitest 3 does not apply a project's `isolate: false` to the
    // forks pool (each file got a fresh process regardless), while a project's `isolate: true`
    // does win over this.
    isolate: false,
    setupFiles: ['test/helpers/per-file.ts'],
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED } },
    ],
  },
});
