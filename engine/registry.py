"""Registry: language models and embedders found by id, behind one seam.

Built in: the embedders ``int8``, ``onnx`` and ``torch`` (all-MiniLM-L6-v2
three ways; the default is the one measured fastest on this machine, see
``engine/embedders.py``), and every GGUF chat model, by path or by file name
in a models folder. Tests register deterministic fakes under their own
ids, as simonw/llm's tests do, and the rest of RepoBot never knows the difference.

``ModelSet`` holds the two a session uses, each loaded on first use, once,
with the lock that keeps a ``Llama`` to one thread at a time. A GGUF model
gets a second context for short calls (rewrites and translations), so that
they do not evict the answer prompt's rules and worked example, which
llama.cpp keeps evaluated between questions. The same short call made again
(a follow-up's earlier question, translated when it was asked) is answered from memory.

>>> {"int8", "onnx", "torch"} <= set(embedder_ids())
True
"""

from __future__ import annotations

import os
import threading
from functools import cached_property
from pathlib import Path
from typing import Callable

from . import embedders
from .embed import Embedder
from .errors import ModelError
from .generate import LLM, Generation, Messages
from .llama import LlamaCppLLM, Tuning
from .models import resolve_model

N_CTX = 4096
SIDE_BATCH = 128  # prompt tokens per step in the short calls' context: their prompts are short
REMEMBERED = 64  # short calls' replies kept (the oldest is forgotten first)

_EMBEDDERS: dict[str, Callable[[], Embedder]] = {}
_LLMS: dict[str, Callable[[], LLM]] = {}


def register_embedder(name: str, factory: Callable[[], Embedder]) -> None:
    _EMBEDDERS[name] = factory


def register_llm(name: str, factory: Callable[[], LLM]) -> None:
    _LLMS[name] = factory


def embedder_ids() -> list[str]:
    return list(_EMBEDDERS)


for _name, _factory in embedders.FACTORIES.items():
    register_embedder(_name, _factory)


def load_embedder(name: str | None = None) -> Embedder:
    """The embedder ``name``, or ``$REPOBOT_EMBEDDER``, or the one measured fastest here (measured once)."""
    name = (name or os.environ.get("REPOBOT_EMBEDDER") or embedders.chosen()).strip().lower()
    if name not in _EMBEDDERS:
        raise ModelError(f"Unknown embedder {name!r}: set REPOBOT_EMBEDDER to one of {', '.join(_EMBEDDERS)}.")
    return _EMBEDDERS[name]()


def load_llm(name: str | None = None, *, n_ctx: int = N_CTX) -> LLM:
    """A registered model by id, else a GGUF by path or file name (the default model when None)."""
    if name and name in _LLMS:
        return _LLMS[name]()
    return LlamaCppLLM(resolve_model(name), n_ctx=n_ctx)


def side_context(llm: LLM) -> LLM:
    """A second llama.cpp context of the same model file for short calls (a registered model is its own).

    The answer prompt starts with the rules and a worked example, which
    llama.cpp keeps evaluated from one question to the next: it reuses the
    longest prefix its context already holds. A rewrite or a translation run
    in the same context would replace them, and the next answer would
    evaluate them again (the first token of a question in another language
    came 1.9 s later, p50, on 2 cores). The weights are memory-mapped, so the
    second context costs its own buffers: a smaller batch keeps its logits
    buffer at 78 MB instead of 311 MB (about 125 MB in all).
    """
    if not isinstance(llm, LlamaCppLLM):
        return llm
    return LlamaCppLLM(llm.path, n_ctx=llm.n_ctx, tuning=Tuning(batch=SIDE_BATCH))


def model_label(name: str | None) -> str:
    """The name a model is shown by, without loading it."""
    if name and name in _LLMS:
        return name
    return Path(name).name if name else resolve_model(None).name


class ModelSet:
    """The embedder and the LLM of a session, each loaded on first use, once."""

    def __init__(self, llm: str | None = None, embedder: str | None = None):
        self.llm_name = llm or None
        self.embedder_name = embedder or None
        self._llm: LLM | None = None
        self._side: LLM | None = None
        self._replies: dict[tuple, str] = {}  # (max_tokens, messages) -> the side context's reply
        self.lock = threading.Lock()  # one Llama instance is never used by two threads at once
        self._loading = threading.Lock()  # one load of the model, whichever thread asks first

    @cached_property
    def embedder(self) -> Embedder:
        return load_embedder(self.embedder_name)

    @property
    def llm(self) -> LLM:
        if self._llm is None:
            with self._loading:
                if self._llm is None:
                    self._llm = load_llm(self.llm_name)
        return self._llm

    @property
    def llm_loaded(self) -> bool:
        return self._llm is not None

    @property
    def side_llm(self) -> LLM:
        """The model for short calls (rewrites, translations): a second context of the same model file."""
        if self._side is None:
            self._side = side_context(self.llm)
        return self._side

    def complete(self, messages: Messages, max_tokens: int) -> str:
        """A short call (a rewrite, a translation) in the side context; decoding is greedy, so the same call again
        gets the reply it got before, without the model."""
        key = (max_tokens, *((m["role"], m["content"]) for m in messages))
        if key not in self._replies:
            with self.lock:
                self._replies[key] = "".join(Generation(self.side_llm, messages, max_tokens=max_tokens)).strip()
            if len(self._replies) > REMEMBERED:
                del self._replies[next(iter(self._replies))]
        return self._replies[key]

    def use_llm(self, name: str | None) -> None:
        """Switch to another language model; it loads on next use (the embedder stays loaded)."""
        with self.lock:
            self.llm_name, self._llm, self._side = name or None, None, None
            self._replies.clear()

    def check_llm(self) -> None:
        """Fail early, with the fix, if the model file is missing or corrupt (without loading it)."""
        if not (self.llm_name and self.llm_name in _LLMS):
            resolve_model(self.llm_name)

    @property
    def llm_label(self) -> str:
        return self._llm.name if self._llm is not None else model_label(self.llm_name)
