// The tray icon: unread count and the relay's state in its tooltip and icon, and its menu (open,
// pause or resume federation, quit), drawn from electron/notify/tray-state.ts.
import { app, Menu, nativeImage, Tray, type BrowserWindow } from 'electron';
import { join } from 'node:path';
import { trayState, type TrayInput } from '../notify/tray-state.js';

/** What the tray's menu does. */
export interface TrayActions {
  open(): void;
  setFederationPaused(paused: boolean): void;
  quit(): void;
}

/** The tray and the dock/taskbar badge, redrawn from each state. */
export class HearthTray {
  private readonly tray: Tray;
  private unread = false;

  constructor(
    private readonly resources: string,
    private readonly actions: TrayActions,
    private readonly window: () => BrowserWindow | null,
  ) {
    this.tray = new Tray(this.icon(false));
    // On Windows and Linux a click opens the window; macOS shows the menu on click by itself.
    this.tray.on('click', () => {
      if (process.platform !== 'darwin') actions.open();
    });
    this.show({ unread: null, relay: 'unknown', federationPaused: null });
  }

  private icon(unread: boolean): Electron.NativeImage {
    // macOS draws template images in the menu bar's colour; elsewhere a coloured icon.
    const file = process.platform === 'darwin' ? (unread ? 'trayUnreadTemplate.png' : 'trayTemplate.png') : unread ? 'tray-unread-32.png' : 'tray-32.png';
    const image = nativeImage.createFromPath(join(this.resources, 'tray', file));
    if (process.platform === 'darwin') image.setTemplateImage(true);
    return process.platform === 'darwin' ? image : image.resize({ width: 16, height: 16 });
  }

  /** Redraws tooltip, menu, icon and badge. */
  show(input: TrayInput): void {
    const view = trayState(input);
    this.tray.setToolTip(view.tooltip);
    const { open, federation, quit } = view.menu;
    this.tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: open.label, enabled: open.enabled, click: () => this.actions.open() },
        { type: 'separator' },
        { label: federation.label, enabled: federation.enabled, click: () => this.actions.setFederationPaused(federation.action === 'pause') },
        { type: 'separator' },
        { label: quit.label, enabled: quit.enabled, click: () => this.actions.quit() },
      ]),
    );
    const unread = view.badgeCount > 0;
    if (unread !== this.unread) {
      this.unread = unread;
      this.tray.setImage(this.icon(unread));
    }
    // The dock (macOS) and the launcher (Linux, Unity) show the count; Windows shows an overlay.
    if (process.platform === 'win32') {
      const win = this.window();
      win?.setOverlayIcon(unread ? nativeImage.createFromPath(join(this.resources, 'tray', 'tray-unread-16.png')) : null, view.badgeText);
    } else app.setBadgeCount(view.badgeCount);
  }

  destroy(): void {
    this.tray.destroy();
  }
}
