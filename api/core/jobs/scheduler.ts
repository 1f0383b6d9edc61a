import { runAnnouncementSchedule } from '../announcements/schedule.js';
import { replayCommandEvents } from './command-events.js';
import type { Deps } from '../deps.js';
import { resumeMediaJobs } from '../media/background.js';
import { cleanUpMedia } from '../media/cleanup.js';
import { announceEndedPolls } from '../polls/expiry.js';
import { resumeMailDelivery } from '../mail/outbox.js';
import { resumePushDeliveries } from '../push/delivery.js';
import { expireMutes } from '../relationships/mutes.js';
import { publishDueScheduledStatuses } from '../scheduled/publish.js';
import { resumeWebhookDeliveries } from '../webhooks/delivery.js';

/**
 * One kind of timed work. A task looks in the database for what is due (never at in-memory
 * state), so work scheduled before a restart is found after it. It may be sync or async.
 */
export interface SchedulerTask {
  name: string;
  run(deps: Deps): unknown;
}

/**
 * The built-in tasks: publish due scheduled statuses, publish and withdraw announcements (and send
 * their streaming events), announce ended polls, remove expired mutes,
 * resume background media processing, emit the events of changes made at the command line, clean up unused media (hourly), send the Web Push
 * requests that are due (retries, and those a restart left), and likewise the webhook requests
 * and the e-mail.
 */
export const DEFAULT_TASKS: readonly SchedulerTask[] = [
  { name: 'command-line events', run: replayCommandEvents },
  { name: 'scheduled statuses', run: publishDueScheduledStatuses },
  { name: 'announcements', run: runAnnouncementSchedule },
  { name: 'poll expiry', run: announceEndedPolls },
  { name: 'mute expiry', run: expireMutes },
  { name: 'media processing', run: resumeMediaJobs },
  { name: 'media clean-up', run: cleanUpMedia },
  { name: 'push delivery', run: resumePushDeliveries },
  { name: 'webhook delivery', run: resumeWebhookDeliveries },
  { name: 'mail delivery', run: resumeMailDelivery },
];

/** A running scheduler. */
export interface Scheduler {
  /** Runs every task once now (also what each tick does); resolves when they have run. */
  runNow(): Promise<void>;
  /** Stops the timer and waits for a run in progress, so the database can be closed after. */
  stop(): Promise<void>;
}

/**
 * Starts the job scheduler: every task runs once right away (on the next turn of the event loop,
 * so that whoever started the instance can subscribe to events first) and then every
 * `intervalMs` (default one second). Runs never overlap; a failing task is logged and the others
 * still run. The timer does not keep the process alive.
 */
export function startScheduler(deps: Deps, tasks: readonly SchedulerTask[] = DEFAULT_TASKS, intervalMs = 1000): Scheduler {
  let running: Promise<void> | null = null;
  let stopped = false;

  const runAll = async (): Promise<void> => {
    for (const task of tasks) {
      if (stopped) return;
      try {
        await task.run(deps);
      } catch (err) {
        console.error(`scheduled task "${task.name}" failed`, err);
      }
    }
  };
  const tick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    // A run still in progress (a slow async task) is not started twice.
    if (!running) running = runAll().finally(() => (running = null));
    return running;
  };

  const first = setTimeout(() => void tick(), 0);
  const timer = setInterval(() => void tick(), intervalMs);
  first.unref();
  timer.unref();

  return {
    runNow: tick,
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      if (running) await running;
    },
  };
}
