"""The seccomp filter bwrap installs on every fenced command: io_uring is refused always, and when the network is
off, ``socket(AF_UNIX, …)`` too.

io_uring carries out system calls on the command's behalf without making them: ``IORING_OP_SOCKET`` and
``IORING_OP_CONNECT`` open and connect a socket with no ``socket()`` or ``connect()`` a filter could see. Container
runtimes refuse it by default for that reason (and for its record of kernel bugs); programs that use it fall back
to ordinary calls when ``io_uring_setup`` fails. A new network namespace already cuts every IP address, loopback
included, and the abstract Unix sockets. What it leaves are Unix sockets that live in the filesystem — a read-only
mount does not stop ``connect()`` — such as the Docker daemon's, an ssh agent's or the session bus: each one is a
door out of the fence.

The filter is a classic BPF program (the format ``bwrap --seccomp FD`` reads). io_uring's three calls have the same
numbers on x86-64, arm64 and their 32-bit and x32 ABIs, so they are refused whatever the ABI. With the network off,
``socket`` with domain AF_UNIX is refused on the native ABI, and system calls of any other ABI (32-bit
``int 0x80``, x32) are refused as a whole, since their socket numbers differ and a second socket call could go round
the check. ``socketpair`` stays allowed: it reaches nothing."""

from __future__ import annotations

import os
import platform
import struct

# Opcodes of classic BPF (linux/filter.h) and return values of seccomp (linux/seccomp.h).
_LD_W_ABS = 0x20
_AND_K = 0x54
_JEQ_K = 0x15
_JGE_K = 0x35
_JGT_K = 0x25
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_X32_BIT = 0x40000000
_AF_UNIX = 1
# Offsets in struct seccomp_data: nr (u32), arch (u32), instruction_pointer (u64), args[6] (u64, little-endian).
_NR, _ARCH, _ARG0 = 0, 4, 16

IO_URING = (425, 427)
"""io_uring_setup, io_uring_enter, io_uring_register: the first and last number (every ABI of both machines)."""

NATIVE = {
    "x86_64": (0xC000003E, 41),  # AUDIT_ARCH_X86_64, __NR_socket
    "aarch64": (0xC00000B7, 198),  # AUDIT_ARCH_AARCH64, __NR_socket
}
"""Machine → (audit architecture, number of the socket system call): where the filter is known to be right."""


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def syscall_filter(*, network: bool, machine: str | None = None) -> bytes | None:
    """The filter program for this machine (``network``: whether the command has the network), or None where its
    system call numbers are not known here (the network namespace still cuts every IP address there)."""
    known = NATIVE.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_nr = known
    refuse, allow = _insn(_RET_K, 0, 0, _RET_EPERM), _insn(_RET_K, 0, 0, _RET_ALLOW)
    io_uring = [
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_AND_K, 0, 0, ~_X32_BIT & 0xFFFFFFFF),  # the x32 ABI's numbers carry this bit
        _insn(_JGE_K, 0, 2, IO_URING[0]),  # below: not io_uring
        _insn(_JGT_K, 1, 0, IO_URING[1]),  # above: not io_uring
        refuse,
    ]
    if network:
        return b"".join([*io_uring, allow])
    program = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 1, 0, arch),  # native: go on; anything else: refuse
        refuse,
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_JGE_K, 0, 1, _X32_BIT),  # x32 numbers carry this bit
        refuse,
        *io_uring,
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_JEQ_K, 0, 3, socket_nr),
        _insn(_LD_W_ABS, 0, 0, _ARG0),
        _insn(_JEQ_K, 0, 1, _AF_UNIX),
        refuse,
        allow,
    ]
    return b"".join(program)


def filter_fd(program: bytes) -> int:
    """A file descriptor bwrap can read ``program`` from (an anonymous memory file, rewound); the caller closes it."""
    fd = os.memfd_create("catcode-seccomp", 0)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
