"""The sandbox's seccomp filter: no ``socket(AF_UNIX, ...)``, so that a benchmark cannot
``connect()`` to a pathname unix socket visible through a read-only bind (a read-only mount does
not stop ``connect()``: Linux checks write permission on the socket's inode only, unix(7)).

Handed to bwrap as a classic BPF program (``--seccomp FD``, loaded after ``PR_SET_NO_NEW_PRIVS``
right before the command starts; seccomp(2), "Filter return values" and ``struct seccomp_data``).
What it refuses, with ``EACCES`` ("permission to create a socket of the specified type is
denied", socket(2)), for every system call ABI the host can run:

* ``socket(AF_UNIX, ...)``. ``socketpair(AF_UNIX, ...)`` stays allowed: a connected pair reaches
  nothing outside the process tree that made it (the sandbox's timing shell and the Go, Python
  and JVM runtimes use it).
* ``io_uring_setup``, with ``ENOSYS``: io_uring's ``IORING_OP_SOCKET`` and ``IORING_OP_CONNECT``
  create and connect sockets without a system call the filter sees. Runtimes that use io_uring
  (libuv) fall back to plain system calls on ``ENOSYS``.
* On x86_64, 32-bit system calls (``int 0x80``: their own numbers, ``AUDIT_ARCH_I386``):
  ``socket`` as above and ``socketcall(SYS_SOCKET, ...)``, whose family is in memory the filter
  cannot read, is refused whatever the family; x32 system calls (bit 30 set in the number;
  hardly any kernel enables that ABI) are all refused.
* A system call of any other ABI is refused (``ENOSYS``): a filter that let an unknown ABI through
  would be bypassed by it.

Other hosts (not x86_64 or aarch64) get no filter: :func:`unix_socket_filter` returns None and
the run records that pathname unix sockets are reachable (``meta.json`` ``sandbox.unix_sockets``).
"""

from __future__ import annotations

import errno
import os
import struct

# linux/audit.h
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
AUDIT_ARCH_ARM = 0x40000028
_X32_SYSCALL_BIT = 0x40000000

# System call numbers per ABI (arch/x86/entry/syscalls/syscall_64.tbl and syscall_32.tbl,
# include/uapi/asm-generic/unistd.h for aarch64, arch/arm/tools/syscall.tbl). io_uring_setup is
# 425 everywhere (numbers from 424 on were unified across architectures).
_IO_URING_SETUP = 425
_SOCKET = {AUDIT_ARCH_X86_64: 41, AUDIT_ARCH_I386: 359, AUDIT_ARCH_AARCH64: 198, AUDIT_ARCH_ARM: 281}
_SOCKETCALL_I386 = 102
_SYS_SOCKET = 1  # socketcall's first argument for socket(), linux/net.h
# The ABIs a process on this host can use: its own and the 32-bit one beside it.
_HOST_ARCHES = {
    "x86_64": (AUDIT_ARCH_X86_64, AUDIT_ARCH_I386),
    "aarch64": (AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM),
    "arm64": (AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM),
}

# linux/filter.h, linux/bpf_common.h, linux/seccomp.h
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K
_JA = 0x05 | 0x00  # BPF_JMP | BPF_JA
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR, _ARCH, _ARG0 = 0, 4, 16
# the low 32 bits of args[0]: the address family is an int
_ARG0_LOW = _ARG0 if struct.pack("=I", 1)[0] == 1 else _ARG0 + 4

_Instruction = tuple[int, int, int, int]  # code, jump if true, jump if false, k


def _ret(value: int) -> _Instruction:
    return (_RET_K, 0, 0, value)


def _deny(err: int) -> _Instruction:
    return _ret(_RET_ERRNO | err)


def _arch_block(arch: int) -> list[_Instruction]:
    """The checks for one ABI, entered with the system call number loaded; every path returns."""
    nr_socket = _SOCKET[arch]
    block: list[_Instruction] = []
    if arch == AUDIT_ARCH_X86_64:
        block += [(_JSET_K, 0, 1, _X32_SYSCALL_BIT), _deny(errno.ENOSYS)]
    block += [(_JEQ_K, 0, 1, _IO_URING_SETUP), _deny(errno.ENOSYS)]
    if arch == AUDIT_ARCH_I386:
        # socketcall(SYS_SOCKET, args): the family is behind a pointer, refused whatever it is
        block += [
            (_JEQ_K, 0, 4, _SOCKETCALL_I386),
            (_LD_W_ABS, 0, 0, _ARG0_LOW),
            (_JEQ_K, 0, 1, _SYS_SOCKET),
            _deny(errno.EACCES),
            _ret(_RET_ALLOW),
        ]
    block += [
        (_JEQ_K, 0, 3, nr_socket),
        (_LD_W_ABS, 0, 0, _ARG0_LOW),
        (_JEQ_K, 0, 1, 1),  # AF_UNIX (= AF_LOCAL) is 1
        _deny(errno.EACCES),
        _ret(_RET_ALLOW),
    ]
    return block


def program(arches: tuple[int, ...]) -> bytes:
    """The filter for the ABIs ``arches`` as bwrap reads it: an array of ``struct sock_filter``
    (``__u16 code; __u8 jt; __u8 jf; __u32 k``, native byte order)."""
    blocks = [[(_LD_W_ABS, 0, 0, _NR), *_arch_block(a)] for a in arches]
    # 0: load the ABI; then per ABI a compare and a jump to its block; then "unknown ABI", refused
    # (never let through); then the blocks. A jump's offset counts from the next instruction.
    code: list[_Instruction] = [(_LD_W_ABS, 0, 0, _ARCH)]
    start = 1 + 2 * len(arches) + 1
    for arch, block in zip(arches, blocks, strict=True):
        code += [(_JEQ_K, 0, 1, arch), (_JA, 0, 0, start - (len(code) + 2))]
        start += len(block)
    code.append(_deny(errno.ENOSYS))
    for block in blocks:
        code += block
    return b"".join(struct.pack("=HBBI", *ins) for ins in code)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter for this host's ABIs, or None where they are not known (see the module)."""
    arches = _HOST_ARCHES.get(machine or os.uname().machine)
    return program(arches) if arches is not None else None
