"""Llama: the default way to run a GGUF chat model, llama-cpp-python on the CPU (``LlamaCppLLM``, an ``LLM``).

It loads the best CPU variant of a portable llama.cpp build, sizes the RAM cache
of prompts honestly, and leaves its context holding exactly the prompt's
constant part before every call, so that the same messages get the same reply.
How it runs is a ``Tuning``, measured on this machine; the defaults:

>>> t = Tuning()
>>> (t.threads, t.batch, t.flash_attn, t.state_cache_mb)  # a thread per physical core, no RAM cache of prompts
(0, 512, True, 0)
"""

from __future__ import annotations

import logging
import os
import threading
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Iterator, NamedTuple

from .config import data_dir, physical_cores
from .errors import ModelError
from .generate import LLM, Messages
from .saved_state import cpu_identity, model_identity, read_state, state_key, write_state

FALLBACK_CHAT_FORMAT = "chatml"  # used when a GGUF carries no chat template


_BACKENDS_LOADED = False


def load_cpu_backends() -> None:
    """Load the best CPU variant of a portable llama.cpp build (GGML_BACKEND_DL), once per process.

    The installer's build keeps one ``libggml-cpu-<variant>.so`` per x86-64 level;
    llama-cpp-python does not load them itself, so ask ggml to pick the best one
    for this CPU. A normal (native) build has none of these files: nothing to do.
    """
    global _BACKENDS_LOADED
    if _BACKENDS_LOADED:
        return
    import ctypes

    import llama_cpp

    lib_dir = Path(llama_cpp.__file__).parent / "lib"
    # the wheel puts the variants in site-packages/bin; the installer bundle puts them beside libggml.so
    for variants in (lib_dir, lib_dir.parent.parent / "bin"):
        if any(variants.glob("libggml-cpu-*.so")):
            try:  # the very libggml that libllama already uses (a bundle may hold a second copy)
                ggml = ctypes.CDLL("libggml.so.0", mode=os.RTLD_NOLOAD)
            except OSError:
                ggml = ctypes.CDLL(str(lib_dir / "libggml.so"))
            ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
            ggml.ggml_backend_load_all_from_path(str(variants).encode())
            break
    _BACKENDS_LOADED = True


class Tuning(NamedTuple):
    """How llama.cpp runs: set from measurements on this machine (benchmarks/generate.py --levers)."""

    threads: int = 0  # 0: one per physical core (2 here: the whole answer 0.7-1.4 s sooner than with 1)
    batch: int = 512  # prompt tokens evaluated per step (128 and 2048 made no difference that held across runs)
    prompt_lookup: int = 0  # draft tokens guessed from the prompt (prompt-lookup speculative decoding); 0: off
    # (0.75-1.1 s slower to the first token here: drafting needs the logits of every prompt token)
    flash_attn: bool = True  # llama.cpp's fused attention: prompt evaluation 6-10% faster here (220 -> 237 tokens/s)
    state_cache_mb: int = 0  # evaluated prompts kept in RAM, counted in full (bounded_ram_cache): a prompt that
    # starts like an earlier one resumes from it. Off: llama-cpp-python saves the whole state (the logits buffer
    # alone is 311 MB) after every reply, before the stream ends; with 768 MB, 8 httpx questions in four languages
    # took 15.1 s to the checked answer (p50) and 10.7 s without, first token 6.8 s and 7.3 s (Sapphire Rapids VM)


_LLAMA_LOG = logging.getLogger("llama-cpp-python")  # llama.cpp's own messages, printed when at this level


def _aborter(llm: "LlamaCppLLM"):
    """The abort callback llama.cpp calls between steps of its graph: true once ``llm._stop`` is set. llama.cpp then
    logs, as an error, that it dropped what it had read; that line is kept off the terminal until the stop is over."""
    import weakref

    import llama_cpp

    held = weakref.ref(llm)  # no cycle: a model switched away from is freed at once, as before

    def stop(_data) -> bool:
        model = held()
        if model is None or model._stop is None or not model._stop.is_set():
            return False
        _LLAMA_LOG.setLevel(logging.CRITICAL)  # set back by ``stopping_on``
        return True

    return llama_cpp.ggml_abort_callback(stop)


def bounded_ram_cache(capacity_bytes: int):
    """llama-cpp-python's RAM cache of evaluated prompts, its capacity counting all that a saved state holds.

    ``LlamaRAMCache`` counts only llama.cpp's own state, but each saved state also
    copies the logits buffer (batch x vocabulary floats: 311 MB with Qwen's 151,936
    tokens), so a 256 MB cache grew to 7 GB over a 30-question eval. Counted in
    full, 768 MB keeps the last two prompts.
    """
    from llama_cpp import LlamaRAMCache

    class BoundedRAMCache(LlamaRAMCache):
        @property
        def cache_size(self) -> int:
            return sum(s.llama_state_size + s.scores.nbytes + s.input_ids.nbytes for s in self.cache_state.values())

    return BoundedRAMCache(capacity_bytes=capacity_bytes)


_MARK = "\u2063\u2063repobot-mark\u2063\u2063"  # stands for the last message's text while its start is located


class LlamaCppLLM(LLM):
    """A GGUF chat model run by llama-cpp-python on the CPU.

    Decoding is greedy (temperature 0): answers copy the passages rather than
    paraphrase them, and the same question gets the same answer.
    """

    def __init__(self, path: Path, *, n_ctx: int = 4096, seed: int = 42, temperature: float = 0.0,
                 tuning: Tuning | None = None):
        from .models import check_gguf

        path = check_gguf(path)
        tuning = tuning or Tuning()
        try:
            from llama_cpp import Llama

            load_cpu_backends()
            draft = None
            if tuning.prompt_lookup:
                from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

                draft = LlamaPromptLookupDecoding(num_pred_tokens=tuning.prompt_lookup)
            self._llama = Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=tuning.threads or physical_cores(),
                n_batch=tuning.batch, flash_attn=tuning.flash_attn, seed=seed, draft_model=draft, verbose=False,
                logits_all=draft is not None,  # llama-cpp-python sizes its logits buffer from this argument alone,
            )  # so a draft model without it overflows the buffer on the first long prompt
            if tuning.state_cache_mb:
                self._llama.set_cache(bounded_ram_cache(tuning.state_cache_mb << 20))
        except Exception as err:  # llama.cpp reports a bad file as a bare ValueError, sometimes with no message
            said = (str(err).strip().splitlines() or [type(err).__name__])[0][:100]
            raise ModelError(
                f"llama.cpp could not load {path.name} ({said}). "
                "The file may be truncated or of an unsupported architecture: choose another GGUF."
            ) from err
        self.path = path
        self.name = path.name
        self.tuning = tuning
        trained = int(self._llama.metadata.get(f"{self._llama.metadata.get('general.architecture', '')}.context_length", n_ctx) or n_ctx)
        self.n_ctx = min(n_ctx, trained)
        self.has_chat_template = bool(self._llama.metadata.get("tokenizer.chat_template"))
        if not self.has_chat_template:
            self._llama.chat_format = FALLBACK_CHAT_FORMAT
        # with the RAM cache of prompts on, llama-cpp-python restores a saved state over what _hold leaves
        self._formatter = self._template_formatter() if self.has_chat_template and not tuning.state_cache_mb else None
        self.temperature = temperature
        self.repeat_penalty = 1.1
        self._stop: threading.Event | None = None  # what stops llama_decode, while ``stopping_on`` holds it
        self._aborter = _aborter(self)  # kept alive as long as llama.cpp may call it

    def _template_formatter(self):
        """The GGUF's chat template as llama-cpp-python renders it for ``create_chat_completion``."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llama = self._llama
        eos, bos = llama.token_eos(), llama.token_bos()

        def text(token: int) -> str:
            return llama._model.token_get_text(token) if token != -1 else ""

        return Jinja2ChatFormatter(template=llama.metadata["tokenizer.chat_template"], eos_token=text(eos),
                                   bos_token=text(bos), stop_token_ids=[eos])

    def constant_part(self, messages: Messages) -> list[int]:
        """The prompt's tokens up to where the last message's text begins (the rules and worked example, or a short
        call's instructions), or none when they cannot be told apart."""
        if self._formatter is None or len(messages) < 2:
            return []
        marked = self._formatter(messages=[*messages[:-1], {**messages[-1], "content": _MARK}])
        cut = marked.prompt.find(_MARK)
        if cut <= 0:
            return []

        def tokens(text: str) -> list[int]:
            return self._llama.tokenize(text.encode("utf-8"), add_bos=not marked.added_special, special=True)

        prefix, whole = tokens(marked.prompt[:cut]), tokens(self._formatter(messages=list(messages)).prompt)
        return prefix if len(prefix) < len(whole) and whole[: len(prefix)] == prefix else []

    def _hold(self, constant: list[int]) -> None:
        """Leave the context holding exactly ``constant``, evaluated alone from an empty context, so that the rest of
        the prompt is always evaluated from the same place.

        llama.cpp reuses the longest prefix of the previous prompt that the context holds and evaluates the rest
        from there; greedy output moves with that arithmetic, so the same question got another rewrite (10 of the
        43 non-English httpx calibrate questions) or answer after a call of another kind. Held this way, a reply
        depends on its messages only.
        """
        llama = self._llama
        if llama.input_ids[: llama.n_tokens].tolist()[: len(constant)] == constant:
            llama.n_tokens = len(constant)  # what followed is dropped by generate's own prefix match
        elif not self._restore(constant):
            llama.reset()
            llama.eval(constant)
            self._save(constant)

    @cached_property
    def _state_settings(self) -> list[str]:
        """All that shapes an evaluated state's numbers but its tokens (``saved_state``): read once per model, not
        at every prompt whose constant part the context does not hold."""
        import llama_cpp

        llama, tuning = self._llama, self.tuning
        build = llama_cpp.llama_print_system_info().decode("utf-8", "replace")  # the kernels loaded (AVX2, AVX-512…)
        return [model_identity(self.path), llama_cpp.__version__, build, cpu_identity(), f"n_ctx={llama.n_ctx()}",
                f"batch={llama.n_batch}", f"threads={llama.n_threads}", f"flash_attn={tuning.flash_attn}"]

    def _state_path(self, constant: list[int]) -> Path:
        """Where the evaluated ``constant`` is saved: named by all that shapes its numbers."""
        return data_dir() / "prompt-states" / f"{state_key(self._state_settings, constant)}.state"

    def _save(self, constant: list[int]) -> None:
        """Save what the context holds (exactly ``constant``, just evaluated) for the next process."""
        import ctypes

        import llama_cpp

        ctx = self._llama._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        try:
            if written:
                write_state(self._state_path(constant), bytes(buffer)[:written])
        except OSError:  # the model file went meanwhile: nothing saved, the answer goes on
            pass

    def _restore(self, constant: list[int]) -> bool:
        """Hold ``constant`` as a process before this one evaluated it, when its saved state is whole (3.8 MB read
        in milliseconds instead of 2.4 s of evaluation); False, with the context empty, otherwise."""
        import ctypes

        import llama_cpp

        try:
            payload = read_state(self._state_path(constant))
        except OSError:  # the model file cannot be read for its identity: evaluate
            return False
        if payload is None:
            return False
        llama = self._llama
        llama._ctx.kv_cache_clear()
        buffer = (ctypes.c_uint8 * len(payload)).from_buffer_copy(payload)
        if not llama_cpp.llama_state_seq_set_data(llama._ctx.ctx, buffer, len(payload), 0):
            llama._ctx.kv_cache_clear()
            llama.reset()
            return False
        llama.n_tokens = len(constant)
        llama.input_ids[: len(constant)] = constant
        return True

    def prepare(self, messages: Messages) -> None:
        """Evaluate the prompt's constant part now, exactly as ``stream_chat`` holds it (``_hold``): reading the
        307 tokens of the English rules and worked example takes 2.4 s on 2 cores, once per model and language."""
        constant = self.constant_part(messages)
        try:
            if constant:
                self._hold(constant)
        except RuntimeError:  # stopped by ``stopping_on``'s cancel: the next ``_hold`` starts again from empty
            if self._stop is None or not self._stop.is_set():
                raise

    @contextmanager
    def stopping_on(self, cancel: threading.Event) -> Iterator[None]:
        """``cancel`` stops llama.cpp inside its work, between two steps of its graph (tens of milliseconds), not
        only at the next token: reading a 1,000-token prompt takes 8-9 s here. Off the main thread only, where
        signal handlers never run: a Ctrl-C raised inside a C callback could not reach the command."""
        if threading.current_thread() is threading.main_thread():
            yield
            return
        import llama_cpp

        self._stop, level = cancel, _LLAMA_LOG.level
        llama_cpp.llama_set_abort_callback(self._llama._ctx.ctx, self._aborter, None)
        try:
            yield
        finally:
            llama_cpp.llama_set_abort_callback(self._llama._ctx.ctx, llama_cpp.ggml_abort_callback(), None)
            self._stop = None
            _LLAMA_LOG.setLevel(level)

    def stream_chat(self, messages: Messages, *, max_tokens: int) -> Iterator[str]:
        constant = self.constant_part(messages)
        self.finish_reason, stream = None, None
        try:
            if constant:
                self._hold(constant)
            stream = self._llama.create_chat_completion(
                messages=list(messages),
                stream=True,
                max_tokens=max_tokens,
                temperature=self.temperature,
                top_p=0.9,
                repeat_penalty=self.repeat_penalty,
            )
            for part in stream:
                choice = part["choices"][0]
                self.finish_reason = choice.get("finish_reason") or self.finish_reason
                piece = choice["delta"].get("content")
                if piece:
                    yield piece
        except RuntimeError:  # "llama_decode returned 2": stopped by ``stopping_on``'s cancel, which the caller reads
            if self._stop is None or not self._stop.is_set():
                raise
        finally:
            if stream is not None:
                stream.close()

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))
