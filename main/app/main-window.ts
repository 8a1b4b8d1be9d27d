// The main window, created with the security defaults from security.ts.
import type { BrowserWindow as BrowserWindowType } from 'electron';
import { BrowserWindow, shell } from 'electron';
import { hardenContents, secureWebPreferences } from './security';

export function createMainWindow(options: { preload: string; rendererFile: string; devServerUrl?: string }): BrowserWindowType {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Posthoc',
    backgroundColor: '#f6f7f9',
    webPreferences: secureWebPreferences(options.preload),
  });
  hardenContents(win.webContents, (url) => shell.openExternal(url), options.devServerUrl);
  win.once('ready-to-show', () => win.show());
  if (options.devServerUrl) void win.loadURL(options.devServerUrl);
  else void win.loadFile(options.rendererFile);
  return win;
}
