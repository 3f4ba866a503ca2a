"""The whole path in one place: load -> chunk -> index -> retrieve -> prompt -> generate -> check -> answer.

``Pipeline`` owns the expensive objects (embedder, index, LLM) and loads each
once. ``ask_stream`` is a generator of events, so a GUI worker can forward each
token as it comes and a CLI can print it; ``ask`` just runs it to the end.

Usage::

    pipe = Pipeline(corpus="docs/")
    answer = pipe.ask("Does httpx follow redirects by default?")
    print(answer.final_answer)
"""

from __future__ import annotations

import threading
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, Union

from repobot.engine import config
from repobot.engine.answer import (
    extractive_answer,
    model_passes,
    not_found_text,
    said_not_found,
    verified_text,
    cited_ids,
)
from repobot.engine.check import FormCheck, check_citations
from repobot.engine.embed import Embedder, load_embedder
from repobot.engine.errors import IndexStoreError, RepoBotError
from repobot.engine.gate import GateResult, gate
from repobot.engine.generate import LLM, Generation, LlamaCppLLM
from repobot.engine.index import Checkpoint, Index, UpdateReport, load_index, save_index, store_dir, update_index
from repobot.engine.load import Skipped, load_corpus
from repobot.engine.models import resolve_model
from repobot.engine.prompt import build_messages, detect_language, language, rewrite_messages
from repobot.engine.retrieve import Hit, check_mode, retrieve
from repobot.engine.support import Support, SupportChecker

MAX_QUESTION_CHARS = 2000


@dataclass(frozen=True)
class AskOptions:
    k: int = 5
    mode: str = "hybrid"
    language: str = "auto"  # auto, en, zh, fr
    strict: bool = True  # the "even if you know it" rule; off only for experiments
    rewrite: bool = False  # the lesson's query rewriting, by the model
    version: str | None = None  # restrict retrieval to one docs version
    max_tokens: int = 400
    gate: bool = True  # refuse before generating when passages miss the key terms


@dataclass
class Timings:
    retrieve_ms: float = 0.0
    first_token_ms: float | None = None
    total_ms: float = 0.0
    tokens_per_s: float = 0.0


@dataclass
class Answer:
    question: str
    language: str
    model: str
    prompt: list[dict[str, str]]
    retrieved: list[Hit]
    model_answer: str = ""
    check: FormCheck = FormCheck([], [], [])
    sentences: list[Support] = field(default_factory=list)  # the model's answer, checked
    final_sentences: list[Support] = field(default_factory=list)  # what the user is shown, checked
    verdict: str = "not_found"
    final_answer: str = ""
    missing_terms: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # trimming, stop reasons, index notes
    stop_reason: str = ""
    timings: Timings = field(default_factory=Timings)

    @property
    def sources(self) -> list[Hit]:
        """The retrieved passages the final answer cites, in id order."""
        ids = set(cited_ids(self.final_answer))
        return [h for h in self.retrieved if h.rank in ids]

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "language": self.language,
            "model": self.model,
            "prompt": self.prompt,
            "retrieved": [
                {
                    "id": h.rank,
                    "source": h.chunk.source,
                    "lines": [h.chunk.start, h.chunk.end],
                    "heading": h.chunk.heading,
                    "score": round(h.score, 5),
                }
                for h in self.retrieved
            ],
            "answer": self.model_answer,
            "check": self.check._asdict(),
            "sources": [{"id": h.rank, "source": h.chunk.source, "lines": [h.chunk.start, h.chunk.end]} for h in self.sources],
            "timings": {k: (round(v, 1) if isinstance(v, float) else v) for k, v in asdict(self.timings).items()},
            "sentences": [_support_json(s) for s in self.sentences],
            "final_sentences": [_support_json(s) for s in self.final_sentences],
            "verdict": self.verdict,
            "final_answer": self.final_answer,
            "model_answer": self.model_answer,
            "missing_terms": self.missing_terms,
            "notes": self.notes,
            "stop_reason": self.stop_reason,
        }


def _support_json(s: Support) -> dict:
    return {
        "text": s.text,
        "cited": s.cited,
        "status": s.status,
        "support": {str(k): v for k, v in s.support.items()},
        "suggested": s.suggested,
        "reason": s.reason,
        "code": s.is_code,
    }


class Retrieved(NamedTuple):
    hits: list[Hit]


class Token(NamedTuple):
    text: str


class Done(NamedTuple):
    answer: Answer


Event = Union[Retrieved, Token, Done]
Progress = Callable[[str, int, int], None]


def clean_question(question: str) -> tuple[str, list[str]]:
    """Strip control characters and cap the length; refuse an empty question.

    >>> clean_question("  Does\\x00 httpx retry?\\n")
    ('Does httpx retry?', [])
    """
    text = "".join(ch for ch in question if ch in "\n\t" or unicodedata.category(ch)[0] != "C").strip()
    if not text:
        raise RepoBotError("The question is empty: type a question about the documents.")
    notes = []
    if len(text) > MAX_QUESTION_CHARS:
        notes.append(f"The question was shortened from {len(text)} to {MAX_QUESTION_CHARS} characters.")
        text = text[:MAX_QUESTION_CHARS]
    return text, notes


class Pipeline:
    """RepoBot on one corpus. The embedder and the LLM load on first use, once."""

    def __init__(
        self,
        corpus: Path | str | None = None,
        *,
        model: str | Path | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        n_ctx: int = 4096,
    ):
        self.corpus = Path(corpus).expanduser() if corpus else config.default_corpus()
        self._model_name = str(model) if model else None
        self._embedder = embedder
        self._llm = llm
        self._n_ctx = n_ctx
        self._index: Index | None = None
        self.corpus_language = "en"  # set from the documents by build_index
        self.problems: list[Skipped] = []
        self.index_notes: list[str] = []
        self._lock = threading.Lock()

    # -- expensive parts, loaded once ---------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder()
        return self._embedder

    @property
    def llm(self) -> LLM:
        if self._llm is None:
            self._llm = LlamaCppLLM(resolve_model(self._model_name), n_ctx=self._n_ctx)
        return self._llm

    def check_model(self) -> Path:
        """Fail early, with the fix, if the model file is missing or corrupt."""
        return resolve_model(self._model_name)

    # -- index --------------------------------------------------------------------
    def build_index(
        self, *, progress: Progress | None = None, cancelled: Callable[[], bool] = lambda: False
    ) -> UpdateReport:
        """Bring the persisted index up to date with the folder (only changed files are embedded)."""
        corpus = load_corpus(self.corpus)
        self.problems = corpus.problems
        self.index_notes = []
        previous = self._index
        if previous is None:
            try:
                previous = load_index(corpus.root)
            except IndexStoreError as err:
                self.index_notes.append(str(err))
        checkpoint = Checkpoint(store_dir(corpus.root) / "partial", self.embedder.name)
        index, report = update_index(
            corpus, self.embedder, previous, progress=progress, cancelled=cancelled, checkpoint=checkpoint
        )
        if report.changed or previous is None or previous.embedder != index.embedder:
            save_index(index)
        checkpoint.clear()
        self._index = index
        chunks = index.chunks  # the documents' main language, from a sample of chunks
        self.corpus_language = detect_language(" ".join(c.text[:400] for c in chunks[:: max(1, len(chunks) // 100)]))
        return report

    @property
    def index(self) -> Index:
        if self._index is None:
            self.build_index()
        return self._index

    # -- retrieve -----------------------------------------------------------------
    def search(self, question: str, *, k: int = 5, mode: str = "hybrid", version: str | None = None,
               rewrite: bool = False) -> list[Hit]:
        question, _ = clean_question(question)
        check_mode(mode)
        rewriter = self.rewrite_query if rewrite else None
        return retrieve(self.index, self.embedder, question, k=k, mode=mode, version=version, rewrite=rewriter)

    def rewrite_query(self, question: str) -> str:
        """The lesson's query rewriting: the model turns the question into search terms."""
        generation = Generation(self.llm, rewrite_messages(question), max_tokens=32)
        with self._lock:
            text = "".join(generation).strip()
        return text.splitlines()[0] if text else ""

    # -- ask ----------------------------------------------------------------------
    def ask(self, question: str, options: AskOptions = AskOptions(), *, cancel: threading.Event | None = None) -> Answer:
        answer = None
        for event in self.ask_stream(question, options, cancel=cancel):
            if isinstance(event, Done):
                answer = event.answer
        return answer

    def ask_stream(
        self, question: str, options: AskOptions = AskOptions(), *, cancel: threading.Event | None = None
    ) -> Iterator[Event]:
        """Retrieve, prompt, generate (streamed), then check; yields Retrieved, Token…, Done."""
        started = time.perf_counter()
        question, notes = clean_question(question)
        lang = detect_language(question) if options.language == "auto" else language(options.language).code
        t0 = time.perf_counter()
        hits = self.search(question, k=options.k, mode=options.mode, version=options.version, rewrite=options.rewrite)
        timings = Timings(retrieve_ms=(time.perf_counter() - t0) * 1000)
        yield Retrieved(hits)

        passages, trim_notes = self.fit_passages(question, hits, lang, options)
        notes += trim_notes + self.index_notes
        messages = build_messages(question, passages, lang=lang, strict=options.strict)
        answer = Answer(question, lang, self.model_label, messages, hits[: len(passages)], notes=notes, timings=timings)

        verdict_gate = gate(question, [t for _, t in passages], same_language=lang == self.corpus_language)
        if options.gate and not verdict_gate.covered:
            answer.missing_terms = verdict_gate.missing
            answer.final_answer = not_found_text(lang, verdict_gate.missing)
            answer.verdict = "not_found"
            answer.stop_reason = "gate"
            timings.total_ms = (time.perf_counter() - started) * 1000
            yield Done(answer)
            return

        generation = Generation(self.llm, messages, max_tokens=options.max_tokens, cancel=cancel or threading.Event())
        with self._lock:  # one Llama instance is never used by two threads at once
            for piece in generation:
                yield Token(piece)
        if generation.first_token_s is not None:
            timings.first_token_ms = (generation.started + generation.first_token_s - started) * 1000
        timings.tokens_per_s = generation.tokens_per_s
        answer.stop_reason = generation.stop_reason
        if generation.stop_reason in ("repetition", "length", "cancelled"):
            answer.notes.append(f"Generation stopped: {generation.stop_reason}.")
        self.finish(answer, generation.text, [t for _, t in passages], verdict_gate)
        timings.total_ms = (time.perf_counter() - started) * 1000
        yield Done(answer)

    def finish(self, answer: Answer, model_answer: str, passages: list[str], gate_result: GateResult) -> Answer:
        """Check the model's answer (form and support) and choose what the user is shown."""
        answer.model_answer = model_answer
        answer.check = check_citations(model_answer, len(passages))
        checker = SupportChecker(self.embedder, passages)
        answer.sentences = checker.check_answer(model_answer)
        if said_not_found(answer.sentences):
            answer.verdict, answer.final_answer = "not_found", not_found_text(answer.language, [])
        elif model_passes(answer.check, answer.sentences):
            answer.verdict, answer.final_answer = "verified", verified_text(model_answer, answer.sentences)
        else:
            text, _ = extractive_answer(answer.question, checker, lang=answer.language)
            if text:
                answer.verdict, answer.final_answer = "extractive", text
            else:
                answer.verdict, answer.final_answer = "not_found", not_found_text(answer.language, gate_result.missing)
        if answer.verdict != "not_found":
            answer.final_sentences = checker.check_answer(answer.final_answer)
        return answer

    @property
    def model_label(self) -> str:
        return getattr(self._llm, "name", None) or Path(self._model_name or "").name or resolve_model(None).name

    def fit_passages(self, question: str, hits: list[Hit], lang: str, options: AskOptions) -> tuple[list[tuple[str, str]], list[str]]:
        """Passages that fit the model's context with the rules and question whole; trims from the last passage."""
        passages = [(h.chunk.source, h.chunk.text) for h in hits]
        llm = self.llm
        fixed = llm.count_tokens(str(build_messages(question, [], lang=lang, strict=options.strict))) + 64
        budget = llm.n_ctx - options.max_tokens - fixed
        if budget <= 0:
            raise RepoBotError(
                f"The model's context ({llm.n_ctx} tokens) is too small for the rules, the question and a "
                f"{options.max_tokens}-token answer. Choose a model with a larger context or ask a shorter question."
            )
        kept, used, notes = [], 0, []
        for source, text in passages:
            cost = llm.count_tokens(text) + 12
            if used + cost <= budget:
                kept.append((source, text))
                used += cost
                continue
            room = budget - used - 12
            if room > 50:
                ratio = room / cost
                kept.append((source, text[: int(len(text) * ratio)]))
                notes.append(f"Passage {len(kept)} was shortened to fit the model's context.")
            break
        if len(kept) < len(passages):
            notes.append(f"{len(passages) - len(kept)} passage(s) left out to fit the model's {llm.n_ctx}-token context.")
        return kept, notes
