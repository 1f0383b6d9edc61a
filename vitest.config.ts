import { defineConfig } from 'vitest/config';

/*
 * Two projects over one pool of two workers (one per core keeps real servers and SQLite files
 * from starving each other). Test files share their worker's modules (`isolate: false`): importing
 * the whole server again for every file was a quarter of the suite's time, and these tests keep no
 * module state of their own (every instance has its own dependencies; nothing is mocked or
 * stubbed). The relay's, federation's and setup's tests ran isolated once, and shared their
 * workers since without a difference (each fresh worker cost seconds of imports). The activity
 * memo's test checks the process-wide hook it installs, so it alone gets a fresh worker.
 */
const ISOLATED = ['test/federation/activity-memo.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
    ],
  },
});
