"""Read `git cat-file --batch` output: stop git at the header of a blob too large to hold, and
split what it printed into each blob's contents, never a truncated one."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.errors import GitError

BLOB_HEADER = 100  # "<id> blob <size>", at most (ids of SHA-256 repositories included)


class Oversize:
    """Watches `git cat-file --batch` output as it arrives and stops git at the header of a blob
    over `max_bytes`, before its contents."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.contents_left = 0  # bytes of the current blob (and its newline) still to come
        self.header = b""

    def __call__(self, data: bytes) -> bool:
        at = 0
        while at < len(data):
            if self.contents_left:
                step = min(self.contents_left, len(data) - at)
                self.contents_left -= step
                at += step
                continue
            end = data.find(b"\n", at)
            if end == -1:
                self.header += data[at:]
                return len(self.header) > BLOB_HEADER  # no header is this long: not cat-file's
            fields = (self.header + data[at:end]).split()
            self.header, at = b"", end + 1
            if len(fields) == 3 and fields[2].isdigit():  # else "<id> missing": no contents
                if int(fields[2]) > self.max_bytes:
                    return True
                self.contents_left = int(fields[2]) + 1
        return False


def parse_batch(out: bytes, blob_ids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """Split `git cat-file --batch` output: per blob "<id> <type> <size>\\n<data>\\n"."""
    at = 0
    for blob_id in blob_ids:
        end = out.find(b"\n", at)
        header = out[at:end].split() if end != -1 else []
        if len(header) != 3 or not header[2].isdigit():
            raise GitError(f"git cannot read blob {blob_id}", "run `git fsck`")
        start = end + 1
        at = start + int(header[2]) + 1
        if at > len(out) or out[at - 1 : at] != b"\n":  # cut short: never a truncated note
            raise GitError(f"git's output for blob {blob_id} is incomplete", "run `git fsck`")
        yield blob_id, out[start : at - 1]
