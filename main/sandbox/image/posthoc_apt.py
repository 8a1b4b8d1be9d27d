#!/usr/bin/python3 -s
# apt-get, apt and apt-cache in the Posthoc sandbox (installed at /usr/local/bin, ahead of /usr/bin).
#
# The sandbox's root file system is read-only and its actions hold no capability, so packages cannot be
# installed the usual way. Instead Debian's own apt resolves and downloads them — as the action's user, from
# Posthoc's gateway (/apt/debian, which verifies Debian's signature and every hash on the host, so apt trusts
# it) — and each package is unpacked into the task's own environment, /posthoc-env/debian, which outlives the
# container's restarts, is removed with the task, and is never one of the person's folders. Its programs are
# on PATH and its libraries, headers and Python modules are set up for every action (posthoc-init's
# debian_env). Maintainer scripts are not run: what a package only sets up there (alternatives, users,
# services) is missing, which toolchains (gcc, go, rustc, cargo, cmake, make) do not need.
# Nothing here is privileged: it can do nothing the action could not do itself.
import os
import shutil
import subprocess
import sys

ENV = '/posthoc-env'
ROOT = ENV + '/debian'
STATE = ENV + '/apt'
GATEWAY = os.environ.get('POSTHOC_GATEWAY', 'http://127.0.0.1:8080')
SUITE = 'bookworm'
REAL = {'apt-get': '/usr/bin/apt-get', 'apt': '/usr/bin/apt', 'apt-cache': '/usr/bin/apt-cache'}


def say(text):
    print('posthoc: ' + text, file=sys.stderr)


def options():
    return [
        '-o', 'Dir::Etc::SourceList=' + STATE + '/sources.list',
        '-o', 'Dir::Etc::SourceParts=' + STATE + '/sources.list.d',
        '-o', 'Dir::Etc::Preferences=' + STATE + '/preferences',
        '-o', 'Dir::Etc::PreferencesParts=' + STATE + '/preferences.d',
        '-o', 'Dir::State=' + STATE + '/state',
        '-o', 'Dir::State::status=' + STATE + '/status',
        '-o', 'Dir::Cache=' + STATE + '/cache',
        '-o', 'Dir::Log=' + STATE + '/log',
        '-o', 'Debug::NoLocking=1',
        # apt drops to the _apt user to download when it runs as root; the action holds no capability to.
        '-o', 'APT::Sandbox::User=' + ('root' if os.getuid() == 0 else str(os.getuid())),
        '-o', 'APT::Install-Recommends=false',
        '-o', 'Acquire::Languages=none',
        '-o', 'Acquire::Retries=0',
        '-o', 'Acquire::http::Timeout=60',
    ]


def setup():
    if not os.path.isdir(ENV) or not os.access(ENV, os.W_OK):
        say('this task has no environment of its own to install packages into, so apt cannot install here.')
        sys.exit(100)
    for d in (STATE + '/state/lists/partial', STATE + '/cache/archives/partial', STATE + '/sources.list.d', STATE + '/preferences.d', STATE + '/log', ROOT):
        os.makedirs(d, exist_ok=True)
    sources = 'deb [trusted=yes] %s/apt/debian %s main\n' % (GATEWAY, SUITE)
    with open(STATE + '/sources.list', 'w') as f:
        f.write(sources)
    if not os.path.exists(STATE + '/status'):
        # What the image holds already, so apt does not fetch it again; packages unpacked here are added.
        shutil.copyfile('/var/lib/dpkg/status', STATE + '/status')


def real(tool, args):
    return subprocess.call([REAL[tool]] + options() + args)


def lists_empty():
    return not any('Packages' in n for n in os.listdir(STATE + '/state/lists'))


def unpacked():
    try:
        with open(STATE + '/unpacked') as f:
            return set(l.strip() for l in f if l.strip())
    except FileNotFoundError:
        return set()


def unpack_new():
    # Every package apt downloaded and not unpacked yet: its files into ROOT, its control into the status.
    done = unpacked()
    archives = STATE + '/cache/archives'
    new = sorted(n for n in os.listdir(archives) if n.endswith('.deb') and n not in done)
    for name in new:
        deb = os.path.join(archives, name)
        tar = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', deb], stdout=subprocess.PIPE)
        untar = subprocess.call(['tar', '-x', '--no-same-owner', '--no-same-permissions', '--keep-directory-symlink', '-C', ROOT], stdin=tar.stdout)
        tar.stdout.close()
        if tar.wait() != 0 or untar != 0:
            say('could not unpack %s into the task\'s environment.' % name)
            return 100
        control = subprocess.run(['dpkg-deb', '-f', deb], capture_output=True, text=True).stdout.strip()
        if control:
            with open(STATE + '/status', 'a') as f:
                f.write('\n' + '\n'.join(l for l in control.split('\n') if not l.startswith('Status:')) + '\nStatus: install ok installed\n')
        with open(STATE + '/unpacked', 'a') as f:
            f.write(name + '\n')
    if new:
        say('unpacked %d package(s) into the task\'s own environment (%s): %s. They stay for the rest of this task; their programs are on PATH (maintainer scripts are not run).' % (len(new), ROOT, ', '.join(n.split('_')[0] for n in new)))
    return 0


def main():
    tool = os.path.basename(sys.argv[0])
    if tool not in REAL:
        tool = 'apt-get'
    args = sys.argv[1:]
    setup()
    words = [a for a in args if not a.startswith('-')]
    command = words[0] if words else ''
    if tool == 'apt-cache':
        return real('apt-cache', args)
    if command in ('install', 'reinstall'):
        if lists_empty():
            code = real('apt-get', ['update'])
            if code != 0:
                return code
        rest = [a for a in args if a not in ('-y', '--yes', '--assume-yes', '-q', '-qq', '--no-install-recommends')]
        code = real('apt-get', ['install', '-y', '--download-only'] + [a for a in rest if a not in ('install', 'reinstall')])
        if code != 0:
            return code
        return unpack_new()
    if command in ('remove', 'purge', 'autoremove'):
        say('packages unpacked into the task\'s environment are not removed one by one; they go with the task.')
        return 100
    if command in ('upgrade', 'dist-upgrade', 'full-upgrade'):
        say('the sandbox\'s own packages come with its image and are not upgraded; install what you need with apt-get install.')
        return 0
    if tool == 'apt' and command in ('search', 'show', 'policy', 'depends', 'rdepends'):
        if lists_empty():
            real('apt-get', ['update'])
        return real('apt-cache', args)
    return real(tool, args)


if __name__ == '__main__':
    sys.exit(main())
