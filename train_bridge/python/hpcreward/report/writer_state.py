"""Whether a reward log's writer is still running, seen from outside (results/log_file_state.hpp).

A RewardLogWriter holds an exclusive open-file-description lock on the whole log for as long
as it is open; the kernel drops it when the writer closes the log or its process dies. F_GETLK
asks whether a read lock could be placed without placing one, so looking never gets in the
writer's (or a resuming writer's) way.
"""
import fcntl
import os
import struct

# struct flock on Linux x86-64 and aarch64: short l_type, short l_whence, off_t l_start,
# off_t l_len, pid_t l_pid (native alignment pads it to 32 bytes).
_FLOCK = "hhqqi4x"


def writer_holds(path):
    """True while a live writer holds the log's lock."""
    fd = os.open(path, os.O_RDONLY)
    try:
        query = struct.pack(_FLOCK, fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, query)
        return struct.unpack(_FLOCK, answer)[0] != fcntl.F_UNLCK
    finally:
        os.close(fd)


def closed_cleanly(path):
    """True if the superblock's consistency flags are clear: the writer closed the log. False
    when they are still set (a writer running, or one that died) or cannot be read."""
    with open(path, "rb") as file:
        for offset in [0] + [512 << n for n in range(12)]:  # after a user block, if any
            file.seek(offset)
            header = file.read(12)
            if len(header) < 12:
                return False
            if header[:8] == b"\x89HDF\r\n\x1a\n":
                return header[8] < 2 or header[11] == 0  # versions 0 and 1 have no flags
    return False
