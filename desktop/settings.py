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
from repobot.engine.languages import LANGUAGE_CHOICES
from repobot.engine.retrieve import MODES


class Settings(NamedTuple):
    model: str = ""  # path or file name; "" means the default model
    k: int = 5
    mode: str = "hybrid"
    language: str = "auto"
    collections: tuple[str, ...] = ()  # folders added by the user (the bundled guide is always first)
    active: str = ""  # the folder questions go to; "" means the bundled guide
    panes: tuple[int, ...] = ()  # the widths of the window's three panes when it was last closed


K_RANGE = range(1, 21)  # the window's k box


def checked(raw) -> Settings:
    """Settings from a file's JSON; a value of the wrong type or out of range gives way to its default (a folder
    list given as one string would be read letter by letter, "/" first).

    >>> checked({"k": 50, "mode": "fuzzy", "collections": "/docs", "language": "zh", "panes": [300, -1, 500]})
    Settings(model='', k=5, mode='hybrid', language='zh', collections=(), active='', panes=())
    >>> checked({"panes": [300, 650, 0]}).panes, checked({"panes": [300, 0, 500]}).panes  # no question box: not kept
    ((300, 650, 0), ())
    """
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object, found {type(raw).__name__}")
    default = Settings()
    valid = {
        "model": lambda v: isinstance(v, str),
        "k": lambda v: isinstance(v, int) and not isinstance(v, bool) and v in K_RANGE,
        "mode": lambda v: v in MODES,
        "language": lambda v: v in LANGUAGE_CHOICES,
        "collections": lambda v: isinstance(v, list) and all(isinstance(c, str) and c for c in v),
        "active": lambda v: isinstance(v, str),
        "panes": lambda v: isinstance(v, list) and len(v) == 3 and all(
            isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= 100_000 for w in v) and v[0] > 0 and v[1] > 0,
    }
    fields = {key: raw[key] if key in raw and ok(raw[key]) else getattr(default, key) for key, ok in valid.items()}
    return Settings(**{**fields, "collections": tuple(fields["collections"]), "panes": tuple(fields["panes"])})


class SettingsStore:
    def __init__(self, path: Path | None = None):
        self.path = path or data_dir() / "settings.json"
        self.problem = ""

    def _read(self) -> Settings:
        """The settings in the file; FileNotFoundError, or ValueError, TypeError or OSError when it cannot be read."""
        return checked(json.loads(self.path.read_text(encoding="utf-8")))

    def load(self) -> Settings:
        try:
            return self._read()
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

    def merge(self, mine: Settings, **changes) -> bool:
        """Write ``changes`` into the settings as they are on disk now (another window may have saved since this one
        read them), or into ``mine`` when the file is gone; False, with nothing written, when it cannot be read as
        settings: the next start sets it aside and says so.

        >>> import tempfile, pathlib
        >>> store = SettingsStore(pathlib.Path(tempfile.mkdtemp()) / "settings.json")
        >>> store.save(Settings(k=3)); store.merge(Settings(), panes=(300, 650, 550)), store.load().k, store.load().panes
        (True, 3, (300, 650, 550))
        >>> _ = store.path.write_text("{damaged"); store.merge(Settings(), panes=(1, 2, 3)), store.path.read_text()
        (False, '{damaged')
        """
        try:
            current = self._read()
        except FileNotFoundError:
            current = mine
        except (ValueError, TypeError, OSError):
            return False
        self.save(current._replace(**changes))
        return True

    def save(self, settings: Settings) -> None:
        data = settings._asdict()
        data["collections"] = list(settings.collections)
        data["panes"] = list(settings.panes)
        write_json_atomic(self.path, data)
