"""The sandbox's seccomp filter (gate/engine/seccomp.py), run on every ABI it names by a small
classic-BPF interpreter (the instructions it uses: ld abs, jeq, jset, ja, ret). The kernel runs
it for the host's own ABI in tests/integration/test_sandbox_private.py."""

from __future__ import annotations

import errno
import struct

import pytest

from gate.engine import seccomp

ALLOW = 0x7FFF0000


def run(program: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    """What the filter returns for one system call (struct seccomp_data, native byte order)."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    code = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    for _ in range(len(code)):  # classic BPF only jumps forward
        op, jt, jf, k = code[pc]
        if op == 0x20:  # ld w abs
            (acc,) = struct.unpack_from("=I", data, k)
            pc += 1
        elif op == 0x15:  # jeq k
            pc += 1 + (jt if acc == k else jf)
        elif op == 0x45:  # jset k
            pc += 1 + (jt if acc & k else jf)
        elif op == 0x05:  # ja
            pc += 1 + k
        elif op == 0x06:  # ret k
            return k
        else:
            raise AssertionError(f"unexpected instruction {op:#x}")
    raise AssertionError("fell off the end of the program")


def errno_of(result: int) -> int | None:
    return result & 0xFFFF if result & 0xFFFF0000 == 0x00050000 else None


AF_UNIX, AF_INET = 1, 2
# (host, its ABIs with their socket, socketpair and connect numbers)
HOSTS = {
    "x86_64": {seccomp.AUDIT_ARCH_X86_64: (41, 53, 42), seccomp.AUDIT_ARCH_I386: (359, 360, 362)},
    "aarch64": {seccomp.AUDIT_ARCH_AARCH64: (198, 199, 203), seccomp.AUDIT_ARCH_ARM: (281, 288, 283)},
}


@pytest.mark.parametrize("host", HOSTS)
def test_only_unix_sockets_and_io_uring_are_refused_on_every_abi_of_the_host(host: str) -> None:
    program = seccomp.unix_socket_filter(host)
    assert program is not None and len(program) % 8 == 0
    for arch, (socket_nr, socketpair_nr, connect_nr) in HOSTS[host].items():
        assert errno_of(run(program, socket_nr, arch, AF_UNIX)) == errno.EACCES
        assert run(program, socket_nr, arch, AF_INET) == ALLOW
        assert run(program, socketpair_nr, arch, AF_UNIX) == ALLOW
        assert run(program, connect_nr, arch, 3) == ALLOW
        assert errno_of(run(program, 425, arch)) == errno.ENOSYS  # io_uring_setup
        assert run(program, 0, arch) == ALLOW
    # an ABI the host does not run is refused whole, never let through
    assert errno_of(run(program, 0, 0x12345678)) == errno.ENOSYS


def test_x86_64_refuses_x32_calls_and_32_bit_socketcall_socket() -> None:
    program = seccomp.unix_socket_filter("x86_64")
    assert program is not None
    assert errno_of(run(program, 0x40000000 | 41, seccomp.AUDIT_ARCH_X86_64, AF_UNIX)) == errno.ENOSYS
    i386 = seccomp.AUDIT_ARCH_I386
    assert errno_of(run(program, 102, i386, 1)) == errno.EACCES  # socketcall(SYS_SOCKET, ...)
    assert run(program, 102, i386, 3) == ALLOW  # socketcall(SYS_CONNECT, ...)


def test_no_filter_where_the_abis_are_unknown() -> None:
    assert seccomp.unix_socket_filter("riscv64") is None
