import type { Routes } from './routes.js';

/**
 * Every area's route table, in the order they are mounted. Each area module exports
 * `register(routes)`; add new areas here.
 */
type Register = (routes: Routes) => void;

const areas: Promise<{ register: Register }>[] = [
  import('./health.js'),
];

/** Registers all areas' routes on one route table. */
export async function registerAll(routes: Routes): Promise<void> {
  for (const area of await Promise.all(areas)) area.register(routes);
}
