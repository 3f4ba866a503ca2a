"""Settings and the collection list, saved as JSON in the data folder with atomic writes.

A crash while saving leaves the previous file intact (write to a temporary file,
fsync, rename). A damaged file is set aside and defaults are used.

>>> import tempfile, pathlib
>>> store = SettingsStore(pathlib.Path(tempfile.mkdtemp()) / "settings.json")
>>> s = store.load(); s.k
5
>>> store.save(s._replace(k=3)); store.load().k
3
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

from repobot.engine.config import data_dir
from repobot.engine.files import write_json_atomic


class Settings(NamedTuple):
    model: str = ""  # path or file name; "" means the default model
    k: int = 5
    mode: str = "hybrid"
    language: str = "auto"
    collections: tuple[str, ...] = ()  # folders added by the user (the bundled guide is always first)
    active: str = ""  # the folder questions go to; "" means the bundled guide


class SettingsStore:
    def __init__(self, path: Path | None = None):
        self.path = path or data_dir() / "settings.json"
        self.problem = ""

    def load(self) -> Settings:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            fields = {k: v for k, v in raw.items() if k in Settings._fields}
            fields["collections"] = tuple(fields.get("collections", ()))
            settings = Settings(**fields)
            if not isinstance(settings.k, int) or settings.k < 1:
                settings = settings._replace(k=5)
            return settings
        except FileNotFoundError:
            return Settings()
        except (ValueError, TypeError, OSError) as err:
            aside = self.path.with_suffix(".damaged")
            try:
                os.replace(self.path, aside)
            except OSError:
                pass
            self.problem = f"Settings file was damaged ({err}); it was moved to {aside.name} and defaults are used."
            return Settings()

    def save(self, settings: Settings) -> None:
        data = settings._asdict()
        data["collections"] = list(settings.collections)
        write_json_atomic(self.path, data)
