import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: one worker per core keeps real servers and SQLite files from starving each other.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
