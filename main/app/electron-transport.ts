// The contract over Electron IPC: ipcMain.handle per call, webContents.send per event. Only the app's
// own main frame may call.
import { ipcMain, webContents, type IpcMainInvokeEvent } from 'electron';
import { callChannel, eventChannel, type Result } from '../../shared/contract';
import type { Transport } from '../ipc/register-contract';
import { isAppUrl } from './security';

export function electronTransport(devServerUrl: string | undefined): Transport<IpcMainInvokeEvent> {
  return {
    isTrustedSender(event) {
      const frame = event.senderFrame;
      return Boolean(frame) && frame === event.sender.mainFrame && isAppUrl(frame!.url, devServerUrl);
    },
    handle(name, listener) {
      ipcMain.handle(callChannel(name), (event, raw): Promise<Result<unknown>> => listener(event, raw));
    },
    push(event, payload) {
      for (const contents of webContents.getAllWebContents()) {
        if (!contents.isDestroyed() && isAppUrl(contents.getURL(), devServerUrl)) contents.send(eventChannel(event), payload);
      }
    },
  };
}
