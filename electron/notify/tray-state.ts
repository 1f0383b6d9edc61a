// What the tray icon and the dock/taskbar badge say (issue 17, item 3): pure, from what the
// notification stream (stream.ts) knows. The main process puts `tooltip` on the Tray, builds its
// menu from `menu` (Electron's Menu.buildFromTemplate) and sets the badge with `badgeCount`
// (app.setBadgeCount) or `badgeText` (the tray's title on macOS, an overlay on Windows).

/**
 * The relay connection as the tray shows it: `none` for an instance that does not federate through
 * a relay (local-only, or its own public address), `unknown` while the server cannot be asked.
 */
export type RelayConnection = 'connected' | 'disconnected' | 'none' | 'unknown';

/** What the tray is drawn from. */
export interface TrayInput {
  /** Unread notifications (null: not known yet). */
  unread: number | null;
  relay: RelayConnection;
  /** Whether federation is paused (null: not known yet). */
  federationPaused: boolean | null;
}

/** A menu item: its label and whether it can be clicked. */
export interface TrayMenuItem {
  label: string;
  enabled: boolean;
}

/** What the tray shows. */
export interface TrayView {
  tooltip: string;
  menu: {
    open: TrayMenuItem;
    /** "Pause federation" or "Resume federation". */
    federation: TrayMenuItem & { action: 'pause' | 'resume' };
    quit: TrayMenuItem;
  };
  /** The badge's number (0: no badge). */
  badgeCount: number;
  /** The badge's text: '' for none, '99+' past 99. */
  badgeText: string;
}

const RELAY_WORDS: Record<RelayConnection, string | null> = {
  connected: 'Relay connected',
  disconnected: 'Relay not connected',
  none: null,
  unknown: 'Hearth is not answering',
};

function unreadWords(n: number): string {
  if (n === 0) return 'No unread notifications';
  return n === 1 ? '1 unread notification' : `${n} unread notifications`;
}

/**
 * The tray's tooltip, menu labels and badge: "Hearth", then the unread count, the relay's state
 * (or that federation is paused, which closes the tunnel on purpose), one per line; the menu's
 * federation item pauses or resumes, and can be clicked once the state is known.
 */
export function trayState(input: TrayInput): TrayView {
  const unread = input.unread !== null && Number.isFinite(input.unread) ? Math.max(0, Math.floor(input.unread)) : null;
  const lines = ['Hearth'];
  if (unread !== null) lines.push(unreadWords(unread));
  if (input.federationPaused === true) lines.push('Federation paused');
  else {
    const relay = RELAY_WORDS[input.relay];
    if (relay) lines.push(relay);
  }
  const paused = input.federationPaused === true;
  return {
    tooltip: lines.join('\n'),
    menu: {
      open: { label: 'Open Hearth', enabled: true },
      federation: { label: paused ? 'Resume federation' : 'Pause federation', action: paused ? 'resume' : 'pause', enabled: input.federationPaused !== null && input.relay !== 'unknown' },
      quit: { label: 'Quit Hearth', enabled: true },
    },
    badgeCount: unread ?? 0,
    badgeText: unread === null || unread === 0 ? '' : unread > 99 ? '99+' : String(unread),
  };
}
