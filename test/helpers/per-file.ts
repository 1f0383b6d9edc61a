// Set-up of every test file (vitest.config.ts `setupFiles`). Files share their worker's process
// (isolate: false), so each starts from what a fresh process would have: the real clock, and no
// memory of the ids an earlier file made (a file that moved the clock ahead would otherwise leave
// every later id ahead of the clock).
import { beforeAll } from 'vitest';
import { resetClock } from '../../api/util/clock.js';
import { forgetLastId } from '../../api/util/ids.js';

beforeAll(() => {
  resetClock();
  forgetLastId();
});
