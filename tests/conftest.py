"""Shared fixtures: a private REPOBOT_HOME, the real models (loaded once), fakes, corpora."""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
HTTPX_DOCS = SHARED / "corpora" / "httpx" / "docs"
FASTAPI_DOCS = SHARED / "corpora" / "fastapi" / "docs"
# The lesson's own questions, exactly as it asks them.
LESSON_REDIRECTS = "httpx 默认会自动跟随重定向吗？怎么开启？"
LESSON_HTTP3 = "httpx 支持 HTTP/3 吗？"
LESSON_RETRIES = "httpx 自带请求失败自动重试的功能吗？"
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The int8 graph, the path the installer bundles, whatever path measures fastest on this machine: the retrieval the
# tests expect must not depend on the machine. The choice itself is tested in tests/unit/test_embedder_choice.py.
os.environ.setdefault("REPOBOT_EMBEDDER", "int8")


@pytest.fixture(autouse=True, scope="session")
def repobot_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("repobot-home")
    os.environ["REPOBOT_HOME"] = str(home)
    return home


from repobot.engine.embed import Embedder  # noqa: E402  (after the offline switches)
from repobot.engine.generate import LLM  # noqa: E402
from repobot.engine.registry import ModelSet, register_embedder, register_llm  # noqa: E402


class FakeEmbedder(Embedder):
    """Deterministic bag-of-words vectors: texts sharing words are close. For unit tests only."""

    name = "fake-embedder"
    dim = 64

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                word = word.strip(".,:;!?[]()`*#\"'")
                if word:
                    out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
        return out


class FakeLLM(LLM):
    """Replies with a scripted answer, a few characters per token. For unit tests only."""

    name = "fake-llm.gguf"
    n_ctx = 4096

    def __init__(self, reply: str = "Redirects are not followed by default [1].", piece: int = 4):
        self.reply = reply
        self.piece = piece
        self.calls: list[list[dict]] = []

    def stream_chat(self, messages, *, max_tokens: int) -> Iterator[str]:
        self.calls.append(list(messages))
        for i in range(0, min(len(self.reply), max_tokens * self.piece), self.piece):
            yield self.reply[i : i + self.piece]


class ByTaskLLM(FakeLLM):
    """Replies by what it is asked: to translate the question, to answer from the passages, or to translate a
    sentence (``translations``: sentence -> its translation; any other sentence gets no reply)."""

    def __init__(self, question_en: str, answer_en: str, translations: dict[str, str]):
        super().__init__("")
        self.question_en, self.answer_en, self.translations = question_en, answer_en, translations

    def stream_chat(self, messages, *, max_tokens):
        rules, last = messages[0]["content"], messages[-1]["content"]
        if rules.startswith("Translate the user's question"):
            self.reply = self.question_en
        elif rules.startswith("Translate the"):
            self.reply = self.translations.get(last, "")
        else:
            assert "<docs>" in rules + last, "asked something else than a translation or an answer"
            self.reply = self.answer_en
        return super().stream_chat(messages, max_tokens=max_tokens)


def redirects_in_chinese() -> ByTaskLLM:
    """A model that answers the Chinese redirect question in English, and translates its one sentence."""
    return ByTaskLLM("Does HTTPX follow redirects by default?", "HTTPX does not follow redirects by default [1].",
                     {"HTTPX does not follow redirects by default.": "HTTPX 默认不跟随重定向。"})


def ask_with(llm: LLM, docs: Path, monkeypatch):
    """The command line's ``main``, with its pipeline on ``docs`` and ``llm`` (and the fake embedder)."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline

    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(docs, models=fake_models(llm=llm)))
    return cli.main


register_embedder("fake", FakeEmbedder)


def register_fake_llm(llm: LLM) -> str:
    """Register a scripted LLM under a fresh id, as any model would be found; returns the id."""
    name = f"fake-llm-{id(llm)}"
    register_llm(name, lambda: llm)
    return name


def fake_models(reply: str = "Redirects are not followed by default [1].", *, llm: LLM | None = None) -> ModelSet:
    """The fake embedder and a scripted LLM."""
    return ModelSet(register_fake_llm(llm or FakeLLM(reply)), "fake")


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture(scope="session")
def models() -> ModelSet:
    """The default models, as the app runs them, loaded once per test session."""
    return ModelSet()


@pytest.fixture(scope="session")
def embedder(models):
    """The default embedder (int8 ONNX unless REPOBOT_EMBEDDER says otherwise)."""
    return models.embedder


@pytest.fixture(scope="session")
def llm(models):
    return models.llm


@pytest.fixture(scope="session")
def httpx_docs() -> Path:
    if not HTTPX_DOCS.is_dir():
        pytest.skip(f"the httpx corpus is not at {HTTPX_DOCS} (../shared is absent)")
    return HTTPX_DOCS


@pytest.fixture
def docs(tmp_path) -> Path:
    """A small documentation folder written for the test."""
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "redirects.md").write_text(
        "# Redirects\n\nHTTPX does not follow redirects by default.\n\n"
        "## Enabling\n\nPass `follow_redirects=True` to enable it:\n\n```python\nclient.get(url, follow_redirects=True)\n```\n",
        encoding="utf-8",
    )
    (tmp_path / "timeouts.md").write_text(
        "# Timeouts\n\nThe default timeout is 5 seconds of network inactivity.\n\n"
        "## Disabling\n\nUse `timeout=None` to disable timeouts completely.\n",
        encoding="utf-8",
    )
    return tmp_path


def tiny_gguf(tensors: int = 3) -> bytes:
    """A GGUF v3 header with a vocabulary, its alignment and ``tensors`` Q4_K tensors of 512 weights, then their data."""
    def text(s: bytes) -> bytes:
        return struct.pack("<Q", len(s)) + s

    head = b"GGUF" + struct.pack("<IQQ", 3, tensors, 2)
    head += text(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3) + text(b"a") + text(b"bb") + text(b"\xe4\xb8\xad")
    head += text(b"general.alignment") + struct.pack("<II", 4, 64)
    for n in range(tensors):  # 512 Q4_K weights: 2 blocks of 144 bytes, each tensor at an aligned offset
        head += text(b"t%d" % n) + struct.pack("<IQQ", 2, 256, 2) + struct.pack("<IQ", 12, n * 320)
    head += bytes(-len(head) % 64)
    return head + bytes(320 * (tensors - 1) + 288)


def refuse_listing(monkeypatch, name: str) -> None:
    """Folders called ``name`` cannot be listed (Permission denied), as for a user without the right: tests run as
    root, who may list any folder."""
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path).name == name:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
