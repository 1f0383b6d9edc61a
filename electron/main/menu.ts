// The application menu: the platform's usual items and shortcuts (Electron's roles), plus Hearth's
// own: new post, search, settings, and the app's keyboard help.
import { app, Menu, shell, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';

/** Where the menu's own items send the window (app paths) and what "Open log" opens. */
export interface MenuActions {
  window(): BrowserWindow | null;
  navigate(path: string): void;
  openLog(): void;
}

/** Builds and installs the application menu. */
export function installMenu(actions: MenuActions): void {
  const mac = process.platform === 'darwin';
  const go = (path: string) => () => actions.navigate(path);
  const template: MenuItemConstructorOptions[] = [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: '&File',
      submenu: [
        { label: 'New Post', accelerator: 'CmdOrCtrl+N', click: go('/compose') },
        { label: 'Search', accelerator: 'CmdOrCtrl+F', click: go('/search') },
        { type: 'separator' },
        { label: 'Settings', accelerator: 'CmdOrCtrl+,', click: go('/settings') },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: '&View',
      submenu: [
        { label: 'Home', accelerator: 'CmdOrCtrl+1', click: go('/') },
        { label: 'Notifications', accelerator: 'CmdOrCtrl+2', click: go('/notifications') },
        { label: 'Explore', accelerator: 'CmdOrCtrl+3', click: go('/explore') },
        { type: 'separator' },
        { role: 'reload' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        { label: 'Keyboard Shortcuts', accelerator: 'Shift+/', registerAccelerator: false, click: () => actions.window()?.webContents.sendInputEvent({ type: 'char', keyCode: '?' }) },
        { label: 'Open Server Log', click: () => actions.openLog() },
        { label: 'About Mastodon Clients', click: () => void shell.openExternal('https://joinmastodon.org/apps') },
        ...(mac ? [] : [{ label: `About ${app.getName()}`, click: () => app.showAboutPanel() }]),
      ],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
