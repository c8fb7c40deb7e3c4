"""The store on a local directory: ``{root}/families/{family_id}/...``.

The folder is a browsable OKF bundle. Writes are atomic (temporary file,
fsync, rename, fsync of the directory) so a crash never leaves half a file,
and conditional writes hold a per-family file lock across the compare and the
rename, so they are atomic across threads and processes. The version tag is
the SHA-256 of the content.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from family_memory.domain.errors import AlreadyExistsError, NotFoundError, StaleRevisionError
from family_memory.domain.ids import check_family_id
from family_memory.domain.layout import check_relpath
from family_memory.ports.store import Document, Store

log = logging.getLogger(__name__)

#: Called after every successful write with (family_id, path, tag): how the
#: local mode sees what S3 would announce through EventBridge.
WriteListener = Callable[[str, str, str], None]


def content_tag(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class DirectoryStore(Store):
    def __init__(self, root: Path | str, *, listeners: list[WriteListener] | None = None) -> None:
        self.root = Path(root)
        self._families = self.root / "families"
        self._locks = self.root / ".locks"
        self._families.mkdir(parents=True, exist_ok=True)
        self._locks.mkdir(parents=True, exist_ok=True)
        self.listeners: list[WriteListener] = list(listeners or [])

    # --- paths and locking ----------------------------------------------------

    def family_dir(self, family_id: str) -> Path:
        return self._families / check_family_id(family_id)

    def _file(self, family_id: str, path: str) -> Path:
        relpath = check_relpath(path)
        if relpath.endswith("/"):
            raise NotFoundError(f"{relpath} is a folder, not a document")
        return self.family_dir(family_id) / relpath

    @contextlib.contextmanager
    def _locked(self, family_id: str) -> Iterator[None]:
        lock_path = self._locks / f"{check_family_id(family_id)}.lock"
        with open(lock_path, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    @staticmethod
    def _write_atomic(target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _announce(self, family_id: str, path: str, tag: str) -> None:
        for listener in self.listeners:
            listener(family_id, path, tag)

    @staticmethod
    def _current(target: Path) -> bytes | None:
        try:
            return target.read_bytes()
        except FileNotFoundError:
            return None

    # --- the port -------------------------------------------------------------

    def read(self, family_id: str, path: str) -> Document:
        data = self._current(self._file(family_id, path))
        if data is None:
            raise NotFoundError(f"{path} does not exist in family {family_id}")
        return Document(data, content_tag(data))

    def read_if_changed(self, family_id: str, path: str, tag: str) -> Document | None:
        document = self.read(family_id, path)
        return None if document.tag == tag else document

    def create(self, family_id: str, path: str, data: bytes) -> str:
        target = self._file(family_id, path)
        with self._locked(family_id):
            if target.exists():
                raise AlreadyExistsError(f"{path} already exists in family {family_id}")
            self._write_atomic(target, data)
        tag = content_tag(data)
        self._announce(family_id, path, tag)
        return tag

    def replace(self, family_id: str, path: str, data: bytes, *, expected_tag: str) -> str:
        target = self._file(family_id, path)
        with self._locked(family_id):
            current = self._current(target)
            if current is None or content_tag(current) != expected_tag:
                raise StaleRevisionError(f"{path} in family {family_id} changed since it was read")
            self._write_atomic(target, data)
        tag = content_tag(data)
        self._announce(family_id, path, tag)
        return tag

    def put(self, family_id: str, path: str, data: bytes) -> str:
        target = self._file(family_id, path)
        with self._locked(family_id):
            self._write_atomic(target, data)
        tag = content_tag(data)
        self._announce(family_id, path, tag)
        return tag

    def list(self, family_id: str, prefix: str = "") -> Iterator[str]:
        base = self.family_dir(family_id)
        if prefix:
            check_relpath(prefix)
        folder = base / prefix.rsplit("/", 1)[0] if "/" in prefix else base
        if not folder.is_dir():
            return iter(())
        found = []
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.startswith("."):
                    continue
                relative = Path(dirpath, name).relative_to(base).as_posix()
                if relative.startswith(prefix):
                    found.append(relative)
        return iter(sorted(found))

    def families(self) -> Iterator[str]:
        names = []
        for entry in self._families.iterdir():
            if entry.is_dir() and not entry.name.startswith("."):
                try:
                    names.append(check_family_id(entry.name))
                except ValueError as exc:
                    # Not a family id (upper case, say, from before ids were lower case only):
                    # listed by no command until the folder is renamed.
                    log.warning("skipping a folder that is not a family id: %s (%s)", entry.name, exc)
        return iter(sorted(names))
