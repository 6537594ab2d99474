"""The seccomp filter bwrap installs when the network is off: ``socket(AF_UNIX, …)`` fails with EPERM.

A new network namespace already cuts every IP address, loopback included, and the abstract Unix sockets. What it
leaves are Unix sockets that live in the filesystem — a read-only mount does not stop ``connect()`` — such as the
Docker daemon's, an ssh agent's or the session bus: each one is a door out of the fence. The filter is a classic
BPF program (the format ``bwrap --seccomp FD`` reads): on the native architecture ``socket`` with domain AF_UNIX is
refused; system calls of any other ABI (32-bit ``int 0x80``, x32) are refused as a whole, since their numbers differ
and a second socket call could go round the check. ``socketpair`` stays allowed: it reaches nothing."""

from __future__ import annotations

import os
import platform
import struct

# Opcodes of classic BPF (linux/filter.h) and return values of seccomp (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_X32_BIT = 0x40000000
_AF_UNIX = 1
# Offsets in struct seccomp_data: nr (u32), arch (u32), instruction_pointer (u64), args[6] (u64, little-endian).
_NR, _ARCH, _ARG0 = 0, 4, 16

NATIVE = {
    "x86_64": (0xC000003E, 41),  # AUDIT_ARCH_X86_64, __NR_socket
    "aarch64": (0xC00000B7, 198),  # AUDIT_ARCH_AARCH64, __NR_socket
}
"""Machine → (audit architecture, number of the socket system call): where the filter is known to be right."""


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter program for this machine, or None where its system call numbers are not known here (the
    network namespace still cuts every IP address there)."""
    known = NATIVE.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_nr = known
    program = [
        _insn(_LD_W_ABS, 0, 0, _ARCH),
        _insn(_JEQ_K, 1, 0, arch),  # native: go on; anything else: refuse
        _insn(_RET_K, 0, 0, _RET_EPERM),
        _insn(_LD_W_ABS, 0, 0, _NR),
        _insn(_JGE_K, 0, 1, _X32_BIT),  # x32 numbers carry this bit
        _insn(_RET_K, 0, 0, _RET_EPERM),
        _insn(_JEQ_K, 0, 3, socket_nr),
        _insn(_LD_W_ABS, 0, 0, _ARG0),
        _insn(_JEQ_K, 0, 1, _AF_UNIX),
        _insn(_RET_K, 0, 0, _RET_EPERM),
        _insn(_RET_K, 0, 0, _RET_ALLOW),
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
