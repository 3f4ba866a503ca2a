"""Embedders: the built-in ways to run all-MiniLM-L6-v2, and which one this machine should use, by measurement.

Three paths give (nearly) the same vectors at different speeds on different
CPUs: ``torch`` (the plain sentence-transformers model), ``onnx`` (the exact
graph under onnxruntime) and ``int8`` (int8 weights). Which is fastest depends
on the CPU (AVX-512 and VNNI help int8 most), so the first run times every
available path on a small sample, keeps those whose vectors stay close to the
plain model's (the quality gate), and remembers the fastest for this machine
in the data folder. ``repobot index --measure-embedder`` measures again.

>>> passes_gate(0.991, 0.971), passes_gate(0.89, 0.70)
(True, False)
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import platform
import time
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

import numpy as np

from .config import bundled_models_dir, data_dir, default_corpus, user_models_dir
from .embed import Embedder, OnnxEmbedder, SentenceTransformerEmbedder, default_embedding_model_dir
from .files import wait_turn, write_json_atomic
from .onnx_export import onnx_file_name, onnx_model

CANDIDATES = ("int8", "onnx", "torch")
FALLBACK = "int8"
MIN_MEAN_COSINE, MIN_COSINE = 0.98, 0.95  # the quality gate, against the plain model's vectors
SAMPLE = 64


def passes_gate(mean: float, least: float) -> bool:
    return mean >= MIN_MEAN_COSINE and least >= MIN_COSINE


def onnx_factory(int8: bool) -> Callable[[], Embedder]:
    def make() -> Embedder:
        model_dir = default_embedding_model_dir()
        return OnnxEmbedder(onnx_model(model_dir, int8), model_dir, int8)

    return make


FACTORIES: dict[str, Callable[[], Embedder]] = {
    "int8": onnx_factory(True), "onnx": onnx_factory(False), "torch": SentenceTransformerEmbedder,
}


def available() -> list[str]:
    """The paths this installation can run without exporting anything (an installed bundle has int8 only)."""
    found = []
    try:
        model_dir = default_embedding_model_dir()
    except Exception:  # noqa: BLE001 - no embedding model at all: the error comes when it is loaded
        return [FALLBACK]
    for name, int8 in (("int8", True), ("onnx", False)):
        graph = onnx_file_name(model_dir, int8)
        if any((folder / graph).is_file() for folder in (bundled_models_dir(), user_models_dir())):
            found.append(name)
    if importlib.util.find_spec("sentence_transformers") is not None:
        found.append("torch")
    return found or [FALLBACK]


class Measurement(NamedTuple):
    name: str
    chunks_per_s: float
    mean_cosine: float
    min_cosine: float
    passed: bool


def sample_texts(n: int = SAMPLE) -> list[str]:
    """Paragraphs of RepoBot's own user guide: the same sample on every machine."""
    paragraphs = [p.strip() for page in sorted(default_corpus().glob("*.md"))
                  for p in page.read_text(encoding="utf-8").split("\n\n") if len(p.strip()) > 40]
    return (paragraphs * (n // max(len(paragraphs), 1) + 1))[:n]


def timed(embedder: Embedder, texts: Sequence[str]) -> tuple[np.ndarray, float]:
    """The vectors of ``texts`` and the chunks per second it took, after a short warm-up (sessions and threads start)."""
    embedder.embed_many(texts[:4])
    start = time.perf_counter()
    vectors = embedder.embed_many(texts)
    return vectors, len(texts) / (time.perf_counter() - start)


def measure(names: Sequence[str], texts: Sequence[str]) -> list[Measurement]:
    """Chunks per second of each path on ``texts``, and how close its vectors are to the plain model's."""
    vectors, speeds = {}, {}
    for name in names:
        vectors[name], speeds[name] = timed(FACTORIES[name](), texts)
    reference = vectors.get("torch", vectors.get("onnx"))
    out = []
    for name in names:
        cos = np.ones(len(texts)) if reference is None else np.sum(vectors[name] * reference, axis=1)
        out.append(Measurement(name, round(speeds[name], 1), round(float(cos.mean()), 4), round(float(cos.min()), 4),
                               passes_gate(float(cos.mean()), float(cos.min()))))
    return out


def machine_key(names: Sequence[str]) -> str:
    """What the choice depends on: the CPU, its vector extensions, and the paths installed."""
    flags = ""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        model = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "")
        flags = " ".join(f for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8") if f" {f}" in info)
    except OSError:
        model = platform.processor()
    return hashlib.sha1(f"{model}|{flags}|{','.join(sorted(names))}".encode()).hexdigest()[:16]


def choice_file() -> Path:
    return data_dir() / "embedder.json"


def chosen(*, remeasure: bool = False) -> str:
    """The path to use here: remembered for this machine, or measured now (once) and remembered."""
    names = [n for n in CANDIDATES if n in available()]
    if len(names) == 1:
        return names[0]
    key = machine_key(names)
    if not remeasure and (saved := _saved_choice(key, names)):
        return saved
    try:
        data_dir().mkdir(parents=True, exist_ok=True)
    except OSError:  # measured unlocked, and not remembered (saving the index says why)
        pass
    with wait_turn(data_dir() / "embedder.lock"):  # two RepoBots started at once measure once, and agree
        if not remeasure and (saved := _saved_choice(key, names)):
            return saved
        return remember(measure(names, sample_texts()), key)


def _saved_choice(key: str, names: list[str]) -> str | None:
    """The path remembered for this machine, if it is still one of ``names``."""
    try:
        saved = json.loads(choice_file().read_text(encoding="utf-8"))
        if saved.get("machine") == key and saved.get("choice") in names:
            return saved["choice"]
    except (OSError, ValueError, AttributeError):
        pass
    return None


def remember(measurements: list[Measurement], key: str) -> str:
    passed = [m for m in measurements if m.passed] or [m for m in measurements if m.name == "torch"] or measurements
    best = max(passed, key=lambda m: m.chunks_per_s)
    try:
        write_json_atomic(choice_file(), {"machine": key, "choice": best.name,
                                          "measured": [m._asdict() for m in measurements], "at": time.time()})
    except OSError:  # a data folder that cannot be written: measured again next time (saving the index says why)
        pass
    return best.name


def last_measurements() -> list[Measurement]:
    try:
        return [Measurement(**m) for m in json.loads(choice_file().read_text(encoding="utf-8"))["measured"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
