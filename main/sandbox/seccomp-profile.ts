// The sandbox's seccomp profile: Docker's own default allows ptrace and process_vm_readv/writev (kernels
// since 4.8), which is how action code could take over the container's PID 1 and outlive its action. This
// profile replaces it for Posthoc's containers. It allows by default and refuses, with EPERM:
// - tracing and reading or writing other processes' memory: ptrace, process_vm_readv/writev, kcmp,
//   pidfd_getfd (the red team's chain began here);
// - new namespaces (unshare, setns, clone with a namespace flag; clone3 answers ENOSYS so the C library
//   falls back to clone, whose flags can be checked): an unprivileged user namespace would hand code
//   capabilities inside it and a much larger kernel surface;
// - set-user-ID and set-group-ID bits on anything the action creates or changes (chmod and kin, open with
//   O_CREAT, mkdir, mknod): a set-user-ID program left in a granted folder would run as the folder's owner;
// - what only an administrator of the machine does, or what Docker's default refuses for its kernel
//   surface: mounts, modules, kexec, reboot, swap, accounting, keyrings, bpf, perf events, userfaultfd,
//   io_uring (its operations bypass seccomp), open_by_handle_at, clock and time setting, personality
//   flags that turn off address randomisation or make memory executable.
// fanotify_init is allowed: PID 1 sets up the kernel's watch of the granted folders with it while it holds
// CAP_SYS_ADMIN (image/posthoc-watch.c). Without that capability, which nothing else in the container ever
// holds, fanotify offers only what inotify does (marks on single files one can read, no pids).
// Every capability is dropped as well (container-policy.ts): most of these already need one, the profile
// is the second wall. Pure data, so tests read it and the policy test snapshots it.

const EPERM = 1;
const ENOSYS = 38;

/** Refused outright. */
const REFUSED = [
  'ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_getfd',
  'unshare', 'setns',
  'mount', 'umount', 'umount2', 'pivot_root', 'move_mount', 'open_tree', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
  'init_module', 'finit_module', 'delete_module', 'create_module', 'get_kernel_syms', 'query_module',
  'kexec_load', 'kexec_file_load', 'reboot', 'swapon', 'swapoff', 'acct', 'quotactl', 'quotactl_fd', 'nfsservctl',
  'keyctl', 'add_key', 'request_key',
  'bpf', 'perf_event_open', 'userfaultfd', 'lookup_dcookie',
  'io_uring_setup', 'io_uring_enter', 'io_uring_register',
  'open_by_handle_at', 'name_to_handle_at',
  'settimeofday', 'clock_settime', 'clock_settime64', 'clock_adjtime', 'clock_adjtime64', 'adjtimex', 'stime',
  'sethostname', 'setdomainname', 'syslog', 'vhangup', 'iopl', 'ioperm', 'uselib', 'ustat', 'sysfs', '_sysctl',
  'vm86', 'vm86old', 'pciconfig_read', 'pciconfig_write', 'pciconfig_iobase',
];

/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: clone with any of them is refused. */
const NAMESPACE_FLAGS = [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000];

/**
 * Set-user-ID and set-group-ID bits (S_ISUID 04000, S_ISGID 02000): a file the action leaves with one in a
 * granted folder would be a program that runs as the folder's owner for anyone on the host who can reach
 * it (a root shell for a root-owned folder). Refused where a mode is given: chmod and kin, and creating
 * files and folders. The argument that holds the mode, per call.
 */
const MODE_ARGUMENT: Array<[string, number]> = [
  ['chmod', 1], ['fchmod', 1], ['fchmodat', 2], ['fchmodat2', 2], ['creat', 1], ['mkdir', 1], ['mkdirat', 2], ['mknod', 1], ['mknodat', 2],
];
/** open and openat read their mode only when they create (O_CREAT, O_TMPFILE); otherwise it is whatever
 * the register held, so the rule looks at the mode only together with a creating flag. [name, flags, mode] */
const CREATE_ARGUMENTS: Array<[string, number, number]> = [
  ['open', 1, 2],
  ['openat', 2, 3],
];
const CREATING_FLAGS = [0o100, 0o20000000];
const SPECIAL_MODE_BITS = [0o4000, 0o2000];

/** personality() flags that weaken memory protections: ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT, READ_IMPLIES_EXEC. */
const PERSONALITY_REFUSED = [0x0040000, 0x0100000, 0x0200000, 0x0400000];

export type SeccompRule = {
  names: string[];
  action: 'SCMP_ACT_ERRNO' | 'SCMP_ACT_ALLOW';
  errnoRet?: number;
  args?: Array<{ index: number; value: number; valueTwo: number; op: 'SCMP_CMP_MASKED_EQ' }>;
};

export type SeccompProfile = { defaultAction: 'SCMP_ACT_ALLOW'; architectures: string[]; syscalls: SeccompRule[] };

export function sandboxSeccompProfile(): SeccompProfile {
  const syscalls: SeccompRule[] = [
    { names: REFUSED, action: 'SCMP_ACT_ERRNO', errnoRet: EPERM },
    // Both take their flags or mode inside a struct, where a filter cannot look: answered as absent, so the C
    // library and programs fall back to clone and openat, whose arguments can be checked.
    { names: ['clone3', 'openat2'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
    ...MODE_ARGUMENT.flatMap(([name, index]) =>
      SPECIAL_MODE_BITS.map(
        (bit): SeccompRule => ({
          names: [name],
          action: 'SCMP_ACT_ERRNO',
          errnoRet: EPERM,
          args: [{ index, value: bit, valueTwo: bit, op: 'SCMP_CMP_MASKED_EQ' }],
        }),
      ),
    ),
    ...CREATE_ARGUMENTS.flatMap(([name, flagsAt, modeAt]) =>
      CREATING_FLAGS.flatMap((flag) =>
        SPECIAL_MODE_BITS.map(
          (bit): SeccompRule => ({
            names: [name],
            action: 'SCMP_ACT_ERRNO',
            errnoRet: EPERM,
            args: [
              { index: flagsAt, value: flag, valueTwo: flag, op: 'SCMP_CMP_MASKED_EQ' },
              { index: modeAt, value: bit, valueTwo: bit, op: 'SCMP_CMP_MASKED_EQ' },
            ],
          }),
        ),
      ),
    ),
    // One rule per flag: the conditions of one rule are ANDed, separate rules are ORed.
    ...NAMESPACE_FLAGS.map(
      (flag): SeccompRule => ({
        names: ['clone'],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        args: [{ index: 0, value: flag, valueTwo: flag, op: 'SCMP_CMP_MASKED_EQ' }],
      }),
    ),
    ...PERSONALITY_REFUSED.map(
      (flag): SeccompRule => ({
        names: ['personality'],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        args: [{ index: 0, value: flag, valueTwo: flag, op: 'SCMP_CMP_MASKED_EQ' }],
      }),
    ),
  ];
  return { defaultAction: 'SCMP_ACT_ALLOW', architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32', 'SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM'], syscalls };
}
