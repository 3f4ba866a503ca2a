"""Where RepoBot keeps its files, and the switches that keep it offline.

>>> from unittest import mock
>>> with mock.patch.dict("os.environ", {"REPOBOT_HOME": "/tmp/rb"}): str(data_dir())
'/tmp/rb'
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

OFFLINE_SWITCHES = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ORT_DISABLE_TELEMETRY": "1",  # onnxruntime: no device id written to ~/.cache/Microsoft at each start
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
}


def force_offline() -> None:
    """Set the Hugging Face offline switches for this process (before any HF import)."""
    for key, value in OFFLINE_SWITCHES.items():
        os.environ[key] = value


def app_root() -> Path:
    """The folder holding ``corpus/`` and ``models/``: the checkout, or the PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    return Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """User data (indexes, settings, user models): ``$REPOBOT_HOME`` or the platform's user data dir."""
    home = os.environ.get("REPOBOT_HOME")
    if home:
        return Path(home).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("repobot", appauthor=False))


def default_corpus() -> Path:
    """RepoBot's own user guide, the corpus used when none is given."""
    return app_root() / "corpus"


def bundled_models_dir() -> Path:
    """``models/`` beside the code: the catalogue and the default GGUF."""
    return app_root() / "models"


def user_models_dir() -> Path:
    """Where a user's own GGUF files may also be dropped."""
    return data_dir() / "models"


def physical_cores() -> int:
    """Physical cores (hyper-threads share the same core and do not speed up llama.cpp)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            pairs = set(re.findall(r"physical id\s*:\s*(\d+)[\s\S]*?core id\s*:\s*(\d+)", fh.read()))
        if pairs:
            return len(pairs)
    except OSError:
        pass
    return max(1, (os.cpu_count() or 2) // 2 if (os.cpu_count() or 0) > 4 else os.cpu_count() or 1)


def app_language() -> str:
    """The user's language, from the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``); English if it says nothing.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"LC_ALL": "zh_CN.UTF-8"}): app_language()
    'zh'
    >>> with mock.patch.dict("os.environ", {"LC_ALL": "C"}): app_language()
    'en'
    """
    for key in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(key, "")
        if value:
            code = value.split(".")[0].split("_")[0].lower()
            return code if code.isalpha() and len(code) == 2 else "en"
    return "en"
