// Electron security defaults, tested against a stand-in for the 'electron' module (the Electron binary
// is not installed where unit tests run): window preferences, navigation and new-window handlers,
// external links and OAuth sign-in pages, the dev server only outside packaged builds, devtools,
// session permissions and CSP, and the IPC sender check.
import { beforeEach, describe, expect, it, vi } from 'vitest';

type Handler = (...args: any[]) => unknown;

const fakes = vi.hoisted(() => {
  class FakeWebContents {
    readonly handlers = new Map<string, Handler[]>();
    windowOpenHandler: Handler | undefined;
    on(event: string, handler: Handler) {
      this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
      return this;
    }
    setWindowOpenHandler(handler: Handler) {
      this.windowOpenHandler = handler;
    }
    emit(event: string, ...args: unknown[]) {
      for (const handler of this.handlers.get(event) ?? []) handler(...args);
    }
  }
  class FakeBrowserWindow {
    static instances: FakeBrowserWindow[] = [];
    readonly webContents = new FakeWebContents();
    readonly loadURL = vi.fn(async (_url: string) => undefined);
    readonly loadFile = vi.fn(async (_file: string) => undefined);
    readonly show = vi.fn();
    readonly onceHandlers = new Map<string, Handler>();
    constructor(readonly options: Record<string, any>) {
      FakeBrowserWindow.instances.push(this);
    }
    once(event: string, handler: Handler) {
      this.onceHandlers.set(event, handler);
      return this;
    }
  }
  return {
    FakeWebContents,
    FakeBrowserWindow,
    openExternal: vi.fn(async (_url: string) => undefined),
    showMessageBox: vi.fn(async (_win: unknown, _options: Record<string, any>) => ({ response: 0 })),
    ipcHandle: vi.fn(),
    getAllWebContents: vi.fn((): unknown[] => []),
  };
});

vi.mock('electron', () => ({
  BrowserWindow: fakes.FakeBrowserWindow,
  shell: { openExternal: fakes.openExternal },
  dialog: { showMessageBox: fakes.showMessageBox },
  ipcMain: { handle: fakes.ipcHandle },
  webContents: { getAllWebContents: fakes.getAllWebContents },
}));

import { electronTransport } from '../../main/app/electron-transport';
import { createMainWindow } from '../../main/app/main-window';
import {
  APP_ENTRY_URL,
  CONTENT_SECURITY_POLICY,
  devServerUrlOf,
  EXTERNAL_ORIGINS,
  hardenContents,
  hardenSession,
  isAllowedExternalUrl,
  isAllowedSignInUrl,
  isAskableExternalUrl,
  MAX_LINK_CHARS,
  isAppUrl,
  openSignInPage,
} from '../../main/app/security';

const DEV = 'http://localhost:5173';

beforeEach(() => {
  fakes.FakeBrowserWindow.instances.length = 0;
  fakes.openExternal.mockClear();
  fakes.ipcHandle.mockClear();
  fakes.getAllWebContents.mockReset().mockReturnValue([]);
});

const APP_PAGE = 'app://posthoc/index.html';

function openWindow(devServerUrl?: string, devTools = false) {
  createMainWindow({ preload: '/app/out/preload/index.cjs', devServerUrl, devTools });
  expect(fakes.FakeBrowserWindow.instances).toHaveLength(1);
  return fakes.FakeBrowserWindow.instances[0]!;
}

const REJECTED_EXTERNAL = [
  'http://github.com/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'https://github.com@evil.example/',
  'https://user:pass@github.com/',
  'https://github.com.evil.example/',
  'https://evilgithub.com/',
  'https://github.com:8443/',
  'ftp://github.com/',
  'data:text/html,<script>alert(1)</script>',
  'not a url',
  '',
  '//github.com/',
  'github.com',
];

describe('createMainWindow', () => {
  it('creates the window with the secure web preferences and the given preload', () => {
    const win = openWindow();
    const prefs = win.options.webPreferences;
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it('turns devtools off unless asked (packaged builds do not ask)', () => {
    expect(openWindow().options.webPreferences.devTools).toBe(false);
    fakes.FakeBrowserWindow.instances.length = 0;
    expect(openWindow(undefined, true).options.webPreferences.devTools).toBe(true);
  });

  it('loads the packaged renderer from app://posthoc (never a file), or the dev server when one is given', () => {
    const packaged = openWindow();
    expect(APP_ENTRY_URL).toBe(APP_PAGE);
    expect(packaged.loadURL).toHaveBeenCalledWith(APP_PAGE);
    expect(packaged.loadFile).not.toHaveBeenCalled();
    fakes.FakeBrowserWindow.instances.length = 0;
    const dev = openWindow(DEV);
    expect(dev.loadURL).toHaveBeenCalledWith(DEV);
    expect(dev.loadFile).not.toHaveBeenCalled();
  });

  it('denies every new window and opens only allow-listed https origins externally', () => {
    const win = openWindow();
    const handler = win.webContents.windowOpenHandler!;
    expect(handler).toBeTypeOf('function');

    for (const origin of EXTERNAL_ORIGINS) {
      expect(handler({ url: `${origin}/some/page?x=1` })).toEqual({ action: 'deny' });
    }
    expect(fakes.openExternal.mock.calls.map(([url]) => url)).toEqual([...EXTERNAL_ORIGINS].map((o) => `${o}/some/page?x=1`));

    fakes.openExternal.mockClear();
    for (const url of REJECTED_EXTERNAL) expect(handler({ url })).toEqual({ action: 'deny' });
    expect(fakes.openExternal).not.toHaveBeenCalled();
  });

  it('prevents every navigation, opening an allow-listed link in the browser instead', () => {
    const win = openWindow();
    const navigate = (url: string) => {
      const event = { preventDefault: vi.fn() };
      win.webContents.emit('will-navigate', event, url);
      return event.preventDefault;
    };
    expect(navigate('https://evil.example/phish')).toHaveBeenCalled();
    expect(navigate('file:///app/out/renderer/index.html')).toHaveBeenCalled();
    expect(navigate(APP_PAGE)).toHaveBeenCalled();
    expect(fakes.openExternal).not.toHaveBeenCalled();
    expect(navigate('https://github.com/posthoc')).toHaveBeenCalled();
    expect(fakes.openExternal).toHaveBeenCalledWith('https://github.com/posthoc');
  });

  it('prevents attaching a webview', () => {
    const win = openWindow();
    const event = { preventDefault: vi.fn() };
    win.webContents.emit('will-attach-webview', event, {}, {});
    expect(event.preventDefault).toHaveBeenCalled();
  });

  it('shows the window once it is ready', () => {
    const win = openWindow();
    expect(win.show).not.toHaveBeenCalled();
    win.onceHandlers.get('ready-to-show')!();
    expect(win.show).toHaveBeenCalled();
  });
});

describe('hardenContents', () => {
  it('also guards contents created outside the main window', () => {
    const contents = new fakes.FakeWebContents();
    const open = vi.fn(async () => undefined);
    hardenContents(contents as never, open, undefined);
    expect(contents.windowOpenHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    const event = { preventDefault: vi.fn() };
    contents.emit('will-navigate', event, 'https://evil.example/');
    expect(event.preventDefault).toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });
});

describe('links to other sites (an answer’s markdown)', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('opens one only after the person saw its whole address and said yes', async () => {
    const contents = new fakes.FakeWebContents();
    const open = vi.fn(async () => undefined);
    const answers = [false, true];
    const confirm = vi.fn(async (_url: string) => answers.shift()!);
    hardenContents(contents as never, open, undefined, confirm);

    expect(contents.windowOpenHandler!({ url: 'https://example.org/report?q=1' })).toEqual({ action: 'deny' });
    await settle();
    expect(confirm).toHaveBeenCalledWith('https://example.org/report?q=1');
    expect(open).not.toHaveBeenCalled();

    const event = { preventDefault: vi.fn() };
    contents.emit('will-navigate', event, 'https://example.org/report?q=1');
    await settle();
    expect(event.preventDefault).toHaveBeenCalled();
    expect(open).toHaveBeenCalledWith('https://example.org/report?q=1');

    // An allow-listed site opens without asking.
    confirm.mockClear();
    contents.windowOpenHandler!({ url: 'https://docs.docker.com/engine/' });
    await settle();
    expect(confirm).not.toHaveBeenCalled();
    expect(open).toHaveBeenLastCalledWith('https://docs.docker.com/engine/');
  });

  it.each([
    'javascript:alert(1)',
    'file:///etc/passwd',
    'smb://host/share',
    'vscode://file/etc/passwd',
    'data:text/html,<script>alert(1)</script>',
    'https://user:pass@example.org/',
    'https://example.org@evil.example/',
    'mailto:',
    `https://example.org/${'a'.repeat(MAX_LINK_CHARS)}`,
    'not a url',
  ])('never asks about, nor opens, %j', async (url) => {
    expect(isAskableExternalUrl(url)).toBe(false);
    const contents = new fakes.FakeWebContents();
    const open = vi.fn(async () => undefined);
    const confirm = vi.fn(async () => true);
    hardenContents(contents as never, open, undefined, confirm);
    contents.windowOpenHandler!({ url });
    contents.emit('will-navigate', { preventDefault: vi.fn() }, url);
    await settle();
    expect(confirm).not.toHaveBeenCalled();
    expect(open).not.toHaveBeenCalled();
  });

  it('in the main window, asks with a native dialog showing the address, a look-alike host in punycode, Cancel first', async () => {
    const win = openWindow();
    fakes.showMessageBox.mockResolvedValueOnce({ response: 0 });
    win.webContents.windowOpenHandler!({ url: 'https://ex\u0430mple.org/a?secret=1' });
    await settle();
    const [, options] = fakes.showMessageBox.mock.calls.at(-1)!;
    expect(options).toMatchObject({ defaultId: 0, cancelId: 0, buttons: ['Cancel', 'Open in browser'] });
    expect(options.detail).toContain('https://xn--exmple-4nf.org/a?secret=1');
    expect(fakes.openExternal).not.toHaveBeenCalled();

    fakes.showMessageBox.mockResolvedValueOnce({ response: 1 });
    win.webContents.windowOpenHandler!({ url: 'mailto:team@example.org' });
    await settle();
    expect(fakes.showMessageBox.mock.calls.at(-1)![1]).toMatchObject({ message: 'Write an e-mail to this address?' });
    expect(fakes.openExternal).toHaveBeenCalledWith('mailto:team@example.org');
  });
});

describe('isAllowedExternalUrl', () => {
  it('allows https pages on the allow-listed origins', () => {
    expect(EXTERNAL_ORIGINS.size).toBeGreaterThan(0);
    for (const origin of EXTERNAL_ORIGINS) {
      expect(isAllowedExternalUrl(origin)).toBe(true);
      expect(isAllowedExternalUrl(`${origin}/a/b#c`)).toBe(true);
      expect(origin.startsWith('https://')).toBe(true);
    }
  });

  it.each(REJECTED_EXTERNAL)('rejects %j', (url) => {
    expect(isAllowedExternalUrl(url)).toBe(false);
  });
});

describe('isAppUrl', () => {
  it('accepts the packaged renderer on app://posthoc and nothing else of that scheme', () => {
    expect(isAppUrl(APP_PAGE, undefined)).toBe(true);
    expect(isAppUrl('app://posthoc/assets/x.js', DEV)).toBe(true);
    expect(isAppUrl('app://other/index.html', undefined)).toBe(false);
    expect(isAppUrl('app://posthoc:8080/index.html', undefined)).toBe(false);
    expect(isAppUrl('app://user@posthoc/index.html', undefined)).toBe(false);
    expect(isAppUrl('app://posthoc.evil.example/', undefined)).toBe(false);
  });

  it('trusts no file: URL, not even the renderer file itself', () => {
    expect(isAppUrl('file:///app/out/renderer/index.html', undefined)).toBe(false);
    expect(isAppUrl('file:///home/me/Downloads/evil.html', DEV)).toBe(false);
  });

  it('accepts the dev server origin only when one is running', () => {
    expect(isAppUrl('http://localhost:5173/index.html', DEV)).toBe(true);
    expect(isAppUrl('http://localhost:5173/', undefined)).toBe(false);
    expect(isAppUrl('http://localhost:5174/', DEV)).toBe(false);
    expect(isAppUrl('http://127.0.0.1:5173/', DEV)).toBe(false);
  });

  it('rejects remote pages and malformed strings', () => {
    expect(isAppUrl('https://github.com/', DEV)).toBe(false);
    expect(isAppUrl('https://evil.example/', undefined)).toBe(false);
    expect(isAppUrl('not a url', DEV)).toBe(false);
    expect(isAppUrl('http://localhost:5173/', 'not a url')).toBe(false);
  });
});

describe('hardenSession', () => {
  function fakeSession() {
    const session = {
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
      webRequest: { onHeadersReceived: vi.fn() },
    };
    hardenSession(session as never);
    return session;
  }

  it('denies every permission request but notifications for the app’s own page', () => {
    const session = fakeSession();
    const handler = session.setPermissionRequestHandler.mock.calls[0]![0] as Handler;
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      for (const requestingUrl of ['https://evil.example/', 'file:///etc/passwd', 'app://posthoc.evil/index.html']) {
        const callback = vi.fn();
        handler({}, permission, callback, { requestingUrl });
        expect(callback).toHaveBeenCalledExactlyOnceWith(false);
      }
      const callback = vi.fn();
      handler({}, permission, callback, { requestingUrl: 'app://posthoc/index.html' });
      expect(callback).toHaveBeenCalledExactlyOnceWith(permission === 'notifications');
    }
  });

  it('denies every permission check but notifications for the app’s own page', () => {
    const session = fakeSession();
    const check = session.setPermissionCheckHandler.mock.calls[0]![0] as Handler;
    expect(check({}, 'media', 'file://', {})).toBe(false);
    expect(check(null, 'clipboard-sanitized-write', 'file://', {})).toBe(false);
    expect(check({}, 'media', 'app://posthoc', {})).toBe(false);
    expect(check({}, 'notifications', 'https://evil.example', {})).toBe(false);
    expect(check({}, 'notifications', 'app://posthoc', {})).toBe(true);
  });

  it('adds the Content-Security-Policy header to every response, keeping the others', () => {
    const session = fakeSession();
    const onHeaders = session.webRequest.onHeadersReceived.mock.calls[0]![0] as Handler;
    const callback = vi.fn();
    onHeaders({ responseHeaders: { 'X-Other': ['1'] } }, callback);
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });

  it('uses a CSP that forbids remote scripts, objects and framing', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });
});

describe('electronTransport.isTrustedSender', () => {
  function event(url: string, options: { subframe?: boolean; noFrame?: boolean } = {}) {
    const mainFrame = { url };
    const senderFrame = options.noFrame ? null : options.subframe ? { url } : mainFrame;
    return { senderFrame, sender: { mainFrame } } as never;
  }

  it('trusts the main frame of the packaged renderer', () => {
    expect(electronTransport(undefined).isTrustedSender(event(APP_PAGE))).toBe(true);
  });

  it('refuses a main frame showing a file: page', () => {
    expect(electronTransport(undefined).isTrustedSender(event('file:///app/out/renderer/index.html'))).toBe(false);
    expect(electronTransport(DEV).isTrustedSender(event('file:///tmp/evil.html'))).toBe(false);
  });

  it('trusts the main frame of the dev server when one is running', () => {
    expect(electronTransport(DEV).isTrustedSender(event('http://localhost:5173/'))).toBe(true);
  });

  it('refuses a subframe, even on an app URL', () => {
    expect(electronTransport(undefined).isTrustedSender(event(APP_PAGE, { subframe: true }))).toBe(false);
  });

  it('refuses a main frame showing a page that is not the app', () => {
    expect(electronTransport(undefined).isTrustedSender(event('https://evil.example/'))).toBe(false);
    expect(electronTransport(DEV).isTrustedSender(event('http://localhost:9999/'))).toBe(false);
  });

  it('refuses an event without a sender frame (the frame was disposed)', () => {
    expect(electronTransport(undefined).isTrustedSender(event(APP_PAGE, { noFrame: true }))).toBe(false);
  });

  it('registers calls through ipcMain.handle on the call channel', async () => {
    const listener = vi.fn(async () => ({ ok: true as const, value: 1 }));
    electronTransport(undefined).handle('task:list', listener);
    expect(fakes.ipcHandle).toHaveBeenCalledWith('posthoc:call:task:list', expect.any(Function));
    const ipcListener = fakes.ipcHandle.mock.calls[0]![1] as Handler;
    const e = event(APP_PAGE);
    await expect(ipcListener(e, { a: 1 })).resolves.toEqual({ ok: true, value: 1 });
    expect(listener).toHaveBeenCalledWith(e, { a: 1 });
  });

  it('pushes events only to live contents showing the app', () => {
    const contents = (url: string, destroyed = false) => ({ getURL: () => url, isDestroyed: () => destroyed, send: vi.fn() });
    const app = contents(APP_PAGE);
    const gone = contents(APP_PAGE, true);
    const remote = contents('https://evil.example/');
    const file = contents('file:///app/index.html');
    fakes.getAllWebContents.mockReturnValue([app, gone, remote, file]);
    electronTransport(undefined).push('task:updated', { id: 't' });
    expect(app.send).toHaveBeenCalledWith('posthoc:event:task:updated', { id: 't' });
    expect(gone.send).not.toHaveBeenCalled();
    expect(remote.send).not.toHaveBeenCalled();
    expect(file.send).not.toHaveBeenCalled();
  });
});

describe('devServerUrlOf (ELECTRON_RENDERER_URL)', () => {
  it('is ignored in a packaged app', () => {
    expect(devServerUrlOf({ ELECTRON_RENDERER_URL: DEV }, true)).toBeUndefined();
    expect(devServerUrlOf({ ELECTRON_RENDERER_URL: 'https://evil.example/' }, true)).toBeUndefined();
  });

  it('is honoured in a development run, on the loopback interface only', () => {
    expect(devServerUrlOf({ ELECTRON_RENDERER_URL: DEV }, false)).toBe(`${DEV}/`);
    expect(devServerUrlOf({ ELECTRON_RENDERER_URL: 'http://127.0.0.1:5173/' }, false)).toBe('http://127.0.0.1:5173/');
    expect(devServerUrlOf({}, false)).toBeUndefined();
    for (const bad of ['https://evil.example/', 'file:///tmp/page.html', 'http://user:pw@localhost:5173/', 'not a url', 'javascript:alert(1)']) {
      expect(devServerUrlOf({ ELECTRON_RENDERER_URL: bad }, false)).toBeUndefined();
    }
  });
});

describe('OAuth sign-in pages', () => {
  it('opens https pages and loopback http (test servers) in the browser', async () => {
    for (const url of ['https://id.example.com/authorize?client_id=x', 'http://127.0.0.1:4010/authorize', 'http://localhost:4010/authorize']) {
      expect(isAllowedSignInUrl(url)).toBe(true);
      const open = vi.fn(async () => undefined);
      expect(await openSignInPage(url, open)).toBe(true);
      expect(open).toHaveBeenCalledWith(url);
    }
  });

  it.each(['http://id.example.com/authorize', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'https://user:pw@id.example.com/', 'data:text/html,x', 'not a url'])(
    'refuses %j without opening anything (the front end shows the link instead)',
    async (url) => {
      expect(isAllowedSignInUrl(url)).toBe(false);
      const open = vi.fn(async () => undefined);
      expect(await openSignInPage(url, open)).toBe(false);
      expect(open).not.toHaveBeenCalled();
    },
  );
});
