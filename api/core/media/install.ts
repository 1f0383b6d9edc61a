import { installCards } from '../cards/install.js';
import type { Deps } from '../deps.js';

/**
 * Subscribes the media layer to core events (called once by createApp): preview cards are made
 * after statuses are posted or edited. Timed media work (background processing left from before a
 * restart, the clean-up) runs on the job scheduler (core/jobs/scheduler.ts).
 */
export function installMedia(deps: Deps): void {
  installCards(deps);
}
