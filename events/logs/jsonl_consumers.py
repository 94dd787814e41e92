"""The named consumers' positions of a JSON Lines log: ``<name>.jsonl.consumers.json``
beside the file, written atomically, each position with the file's fingerprint (a file
rotated or replaced at the path since is read from its first line, and said)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from events.logs.base import Checkpoint, Cursor, LogError, LogWriteError
from events.logs.file_identity import fingerprint, moved_note


class JsonlConsumers:
    """The consumer positions of :class:`events.logs.jsonl.JsonlLog` (a mixin of it)."""

    path: Path | None

    def _consumers_path(self) -> Path:
        if self.path is None:
            raise LogError("standard input keeps no consumer positions")
        return self.path.with_name(self.path.name + ".consumers.json")

    def _load_consumers(self) -> dict[str, dict[str, object]]:
        path = self._consumers_path()
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise LogError(f"{path}: unreadable consumer positions: {exc}") from exc
        return data if isinstance(data, dict) else {}

    def committed(self, consumer: str) -> Checkpoint | None:
        """The consumer's position; when the file at the path is no longer the one it was
        read from (another file, shorter, or other bytes before the stored position), the
        position is its first line and ``note`` says what happened."""
        entry = self._load_consumers().get(consumer)
        if not isinstance(entry, dict):
            return None
        line = entry.get("line")
        meta = entry.get("metadata", "")
        if not isinstance(line, int):
            return None
        note = moved_note(self.path, entry.get("file"), line, f"consumer {consumer!r}")
        if note is None:
            return Checkpoint({0: int(line)}, str(meta))
        return Checkpoint({0: 1}, str(meta), note)

    def commit(self, consumer: str, cursor: Cursor, metadata: str = "") -> None:
        path = self._consumers_path()
        data = self._load_consumers()
        data[consumer] = {"line": cursor.get(0, 1), "metadata": metadata,
                          "file": fingerprint(self.path) if self.path else None}
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        try:
            with open(tmp, "w") as f:
                json.dump(data, f, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            raise LogWriteError(f"{path}: commit of {consumer!r} failed: {exc}") from exc
