// The one rule for which folders may be granted: system and kernel folders, the home folder itself,
// credentials, Posthoc's own data and the Docker socket are refused, also when a link leads to them.
import { describe, expect, it } from 'vitest';
import { grantRefusal, type GrantHost } from '../../main/policy/grant-rules';

const person: GrantHost = { platform: 'linux', home: '/home/alice', isRoot: false };
const root: GrantHost = { platform: 'linux', home: '/root', isRoot: true };
const mac: GrantHost = { platform: 'darwin', home: '/Users/alice', isRoot: false };
const windows: GrantHost = { platform: 'win32', home: 'C:\\Users\\alice', isRoot: false };

const same = (p: string) => ({ requested: p, real: p });
const refusal = (p: string, host = person, protectedPaths: string[] = []) => grantRefusal(same(p), host, protectedPaths);

describe('grantRefusal', () => {
  it.each([
    ['/', /whole file system/],
    ['/proc', /kernel's view of every running process/],
    ['/proc/1/root', /inside \/proc/],
    ['/sys/fs/cgroup', /inside \/sys/],
    ['/dev', /devices/],
    ['/dev/shm', /inside \/dev/],
    ['/run', /Docker socket/],
    ['/var/run/docker', /inside \/var\/run/],
    ['/boot', /boot loader/],
    ['/etc', /accounts, password hashes/],
    ['/etc/ssh', /inside \/etc/],
    ['/root', /administrator's home folder/],
    ['/root/projects', /inside \/root/],
    ['/usr/local/bin', /inside \/usr/],
    ['/lib64', /installed programs/],
    ['/snap/bin', /inside \/snap/],
    ['/var', /changing data/],
    ['/var/lib/docker', /inside \/var\/lib/],
    ['/var/log/nginx', /inside \/var\/log/],
    ['/tmp', /temporary files/],
    ['/home', /every person's home folder/],
    ['/home/alice', /whole home folder/],
    ['/home/alice/.ssh', /keys and credentials/],
    ['/home/alice/.aws/sso', /keys and credentials/],
  ])('refuses %s as the person, saying why and what to do', (path, why) => {
    const message = refusal(path);
    expect(message).toMatch(why);
    expect(message).toContain(`Posthoc will not grant ${path}`);
    expect(message).toMatch(/Grant (a|one) (project )?folder/);
  });

  it.each(['/home/alice/projects/site', '/home/alice/.ssh-notes', '/var/www/site', '/tmp/posthoc-ws-1', '/srv/app', '/opt/tool', '/etcetera', '/mnt/data/work'])(
    'accepts the project folder %s',
    (path) => expect(refusal(path)).toBeNull(),
  );

  it("lets root grant a project inside root's home, never / or /root itself, nor root's keys", () => {
    expect(refusal('/root/projects', root)).toBeNull();
    expect(refusal('/root/projects/site', root)).toBeNull();
    expect(refusal('/root', root)).toMatch(/whole home folder|administrator's home/);
    expect(refusal('/', root)).toMatch(/whole file system/);
    expect(refusal('/root/.ssh', root)).toMatch(/keys and credentials/);
    expect(refusal('/etc', root)).toMatch(/inside|configuration/);
  });

  it('refuses a folder that holds a system folder or the home folder above it', () => {
    const elsewhere: GrantHost = { platform: 'linux', home: '/data/users/alice', isRoot: false };
    expect(grantRefusal(same('/data/users'), elsewhere)).toMatch(/contains your home folder \/data\/users\/alice/);
    expect(grantRefusal(same('/data/users/alice/work'), elsewhere)).toBeNull();
  });

  it('judges the folder a link leads to, and names both', () => {
    const message = grantRefusal({ requested: '/home/alice/projects/conf', real: '/etc' }, person);
    expect(message).toContain('Posthoc will not grant /home/alice/projects/conf (it leads to /etc)');
    expect(grantRefusal({ requested: '/home/alice/link', real: '/home/alice' }, person)).toMatch(/whole home folder/);
  });

  it('judges the path as named too: /proc/self/cwd is refused wherever it resolves', () => {
    expect(grantRefusal({ requested: '/proc/self/cwd', real: '/home/alice/projects/site' }, person)).toMatch(/inside \/proc/);
  });

  it("refuses a folder containing, or inside, Posthoc's data folder or the Docker socket", () => {
    const guarded = ['/home/alice/.config/Posthoc', '/run/docker.sock'];
    expect(refusal('/home/alice/.config', person, guarded)).toMatch(/must never reach.*Grant a folder that does not include it/);
    expect(refusal('/home/alice/.config/Posthoc/checkpoints', person, guarded)).toMatch(/lies inside \/home\/alice\/.config\/Posthoc/);
    expect(refusal('/home/alice/.config/nvim', person, guarded)).toBeNull();
    expect(refusal('/srv/sockets', person, ['/srv/sockets/docker.sock'])).toMatch(/Docker socket/);
  });

  it("refuses macOS's system folders, case-insensitively, and accepts a temporary folder under /private/var/folders", () => {
    expect(refusal('/System/Library', mac)).toMatch(/inside \/System/);
    expect(refusal('/library/Preferences', mac)).toMatch(/inside \/Library/);
    expect(grantRefusal({ requested: '/etc', real: '/private/etc' }, mac)).toMatch(/leads to \/private\/etc\): it is the system's configuration/);
    expect(refusal('/private/var/db/dslocal', mac)).toMatch(/inside \/private\/var\/db/);
    expect(refusal('/Users/alice', mac)).toMatch(/whole home folder/);
    expect(refusal('/Users/alice/.SSH', mac)).toMatch(/keys and credentials/);
    expect(refusal('/private/var/folders/xy/T/posthoc-ws-1', mac)).toBeNull();
    expect(refusal('/Users/alice/code/site', mac)).toBeNull();
  });

  it('refuses Windows system folders and drive roots, case-insensitively', () => {
    expect(refusal('C:\\', windows)).toMatch(/whole file system/);
    expect(refusal('D:\\', windows)).toMatch(/whole file system/);
    expect(refusal('c:\\windows\\System32', windows)).toMatch(/inside C:\\Windows/);
    expect(refusal('C:\\Program Files\\App', windows)).toMatch(/installed programs/);
    expect(refusal('C:\\Users\\alice', windows)).toMatch(/whole home folder/);
    expect(refusal('C:\\Users\\alice\\code\\site', windows)).toBeNull();
    expect(refusal('D:\\work', windows)).toBeNull();
  });
});
