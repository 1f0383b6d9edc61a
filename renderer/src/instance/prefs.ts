import { useEffect, useState } from 'preact/hooks';

/*
 * The app's client-only preferences, kept in localStorage under `hearth.prefs`. Those the server
 * keeps (default visibility, language, sensitive media) live in the account's `source` instead.
 */

/** Every client-only preference and its type. */
export interface Prefs {
  expandSpoilers: boolean;
  autoplay: boolean;
  reduceMotion: boolean;
  theme: 'system' | 'light' | 'dark';
}

const KEY = 'hearth.prefs';
const DEFAULTS: Prefs = { expandSpoilers: false, autoplay: false, reduceMotion: false, theme: 'system' };
const listeners = new Set<() => void>();

/** All preferences, the stored ones over the defaults (a damaged store gives the defaults). */
export function readPrefs(): Prefs {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Prefs>;
    return { ...DEFAULTS, ...(stored && typeof stored === 'object' ? stored : {}) };
  } catch {
    return { ...DEFAULTS };
  }
}

/** Stores one preference and tells every screen that reads it. */
export function setPreference<K extends keyof Prefs>(name: K, value: Prefs[K]): void {
  localStorage.setItem(KEY, JSON.stringify({ ...readPrefs(), [name]: value }));
  applyPrefs();
  for (const l of listeners) l();
}

/** Puts the theme and reduced motion on the document element (`data-theme`, `data-reduce-motion`). */
export function applyPrefs(): void {
  const prefs = readPrefs();
  const root = document.documentElement;
  if (prefs.theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = prefs.theme;
  if (prefs.reduceMotion) root.dataset.reduceMotion = 'true';
  else delete root.dataset.reduceMotion;
}

/** One preference's current value, re-rendering when it changes (in this window or another). */
export function usePreference<K extends keyof Prefs>(name: K): Prefs[K] {
  const [value, setValue] = useState(() => readPrefs()[name]);
  useEffect(() => {
    const update = (): void => setValue(readPrefs()[name]);
    const onStorage = (e: StorageEvent): void => {
      if (e.key === KEY) {
        applyPrefs();
        update();
      }
    };
    listeners.add(update);
    addEventListener('storage', onStorage);
    return () => {
      listeners.delete(update);
      removeEventListener('storage', onStorage);
    };
  }, [name]);
  return value;
}
