"""Pipeline: one question through the whole path, in order; every step is a function of its own module.

    clean -> rewrite (other language) -> retrieve -> quoted preview -> gate -> prompt -> generate
          -> check (form, support) -> choose what is shown -> translate it (other language): conclude.py
          (a draft the check fails is written once more, the question read first: AskOptions.retry)

A question in another language than the documents' is answered in theirs, to
its rewrite, checked there, and its checked sentences translated (translate.py).

``ask_stream`` is a generator of events (events.py: Retrieved, Preview, Drafting, Token…, Checking, Done), so a
GUI worker can forward each as it comes and a CLI can print it; ``ask`` runs it to the end. The models live in a
``ModelSet`` and the index in a ``Collection``; the pipeline only orchestrates.

Usage::

    pipe = Pipeline("docs/")
    print(pipe.ask("Does httpx follow redirects by default?").final_answer)
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Generator, Iterator, NamedTuple, Sequence

from .answer import not_found
from .collection import Collection
from .conclude import conclude
from .copied import WHOLE_TAG
from .events import Checking, Done, Drafting, Event, Preview, Retrieved, Token
from .gate import GateResult, gate
from .generate import Generation, Messages
from .languages import (answer_language, detect_language, needs_translation, not_answered_note, said,
                        unindexed_note)
from .options import AskOptions, check_options, clean_question
from .prompt import Piece, build_messages, fit_passages, fits, link_text, passage_room, prompt_tokens, trim_passage
from .quote import evidence, extractive
from .registry import ModelSet
from .result import Answer, Timings
from .retrieve import Hit, opening_section, retrieve, search_queries, widen
from .rewrite import (
    accept_query, accept_standalone, accept_terms, followup_messages, in_context, is_followup, query_messages,
    ranking_queries, translation_messages,
)
from .support import SupportChecker, Unit
from .translate import model_question, reading_language

SECOND_DRAFT = said("en", "note_second_draft")  # the model wrote again, reading the question before the passages
SECOND_FAILED = said("en", "note_second_failed")


class Search(NamedTuple):
    """What retrieval found, and the rewrites it searched with besides the question."""

    hits: list[Hit]
    rewritten: str | None = None  # the question in the documents' language (or the lesson's search terms)
    standalone: str | None = None  # a follow-up question rewritten to stand without the conversation
    context: str | None = None  # a follow-up after the question it follows (``in_context``), when it was not rewritten

    @property
    def searched_for(self) -> str | None:
        return self.rewritten or self.standalone or self.context


class Framed(NamedTuple):
    """A question made ready for the model: what it is asked and in which language it writes, how its answer is
    checked, and whether the gate lets it try."""

    put: str  # the question as the model reads it
    writes_in: str  # the language the model writes in
    queries: list[str]  # what the passages' sentences are ranked against (``rewrite.ranking_queries``)
    asked_text: str  # what a quote should name something beyond
    checker: SupportChecker
    ranked: list[tuple[Unit, float]]
    judged: GateResult
    refused: bool  # the gate found the question's subject missing: the fixed phrase, no model call
    reads_in: str  # the language its passages are read and checked in (``reading_language``)


class Draft(NamedTuple):
    """What every draft of one answer shares: the framed question (its checker over the passages the model read),
    the answer's cap, its cancel flag and when it was asked."""

    framed: Framed
    max_tokens: int
    cancel: threading.Event
    started: float  # perf_counter() when the question was asked


class Pipeline:
    """RepoBot on one folder. The models load on first use, once, and can be shared (``models=``)."""

    def __init__(self, corpus: Path | str | None = None, *, model: str | None = None, embedder: str | None = None,
                 models: ModelSet | None = None, languages: Sequence[str] | None = None):
        self.models = models or ModelSet(model, embedder)
        self.collection = Collection(corpus, self.models, languages=languages)

    @property
    def corpus(self) -> Path:
        return self.collection.root

    @property
    def index(self):
        return self.collection.index

    def build_index(self, **kwargs):
        return self.collection.update(**kwargs)

    # -- rewrite and retrieve ----------------------------------------------------------------------
    def rewrite(self, question: str, target: str, setting: str = "auto") -> str | None:
        """The question in language ``target`` (the lesson's rewrite, by the model), or None when not needed or failed."""
        translate = needs_translation(detect_language(question), target)
        if setting == "never" or (setting == "auto" and not translate):
            return None
        if not translate:  # asked for explicitly: the lesson's rewrite into search terms
            return accept_terms(self.models.complete(query_messages(question), 48), question)
        into = answer_language(target).code  # the model writes only answer languages
        return accept_query(self.models.complete(translation_messages(question, into), 64), question, into)

    def prepare(self, options: AskOptions = AskOptions(), *, cancel: threading.Event | None = None) -> None:
        """Have the model read ahead what this folder's prompts begin with (all of ``preparing``'s steps)."""
        for _ in self.preparing(options, cancel=cancel):
            pass

    def preparing(self, options: AskOptions = AskOptions(), *,
                  cancel: threading.Event | None = None) -> Iterator[str]:
        """Have the model read ahead what this folder's prompts begin with: the answer's rules and worked example in
        the language it writes in here ("answer"), then the rewrite's instructions into the documents' language
        ("rewrite"), yielding after each, so that a question waiting can go first. llama.cpp keeps them between
        questions, so the first question's first token comes as soon as the next ones' (2.4 s sooner on 2 cores for
        English documents, or read back from a saved state). The folder must be indexed; ``cancel`` stops the
        reading at once.
        """
        into = answer_language(self.collection.index.primary_language).code
        style = options.prompt_style
        cancel = cancel or threading.Event()
        steps = (("answer", lambda: self.models.llm, lambda: build_messages("", [], lang=into, style=style)),
                 ("rewrite", lambda: self.models.side_llm, lambda: translation_messages("", into)))
        for name, model, messages in steps:
            if cancel.is_set():
                return
            with self.models.lock:
                llm = model()
                with llm.stopping_on(cancel):
                    llm.prepare(messages())
            yield name

    def search(self, question: str, options: AskOptions = AskOptions(), earlier: Sequence[tuple[str, str]] = ()) -> Search:
        """The top-k hits for a question (after its earlier turns, if it continues a conversation)."""
        question, _ = clean_question(question)
        return self._search(question, check_options(options), earlier)

    def _search(self, question: str, options: AskOptions, earlier: Sequence[tuple[str, str]] = ()) -> Search:
        index = self.collection.index
        standalone, context, asked_texts, topic = None, None, [question], None
        if earlier and options.rewrite != "never" and is_followup(question):
            context = in_context(earlier, question)
            standalone = accept_standalone(self.models.complete(followup_messages(earlier, question), 64), question,
                                           earlier[-1][0])
            asked_texts += ([standalone, context] if standalone else [context]) + [earlier[-1][0]]
            context = None if standalone else context
            topic = self.rewrite(earlier[-1][0], index.primary_language)  # translated when it was asked: remembered
        rewritten = self.rewrite(standalone or context or question, index.primary_language, options.rewrite)
        asked = detect_language(question)
        twin = self.collection.twin(asked)  # its pages in a translated tree, when the index leaves them out
        queries = search_queries(asked_texts, [r for r in (rewritten, topic) if r], asked, index.primary_language,
                                 index.languages, twin=twin is not None)
        hits = retrieve(index, self.models.embedder, queries, k=options.k, mode=options.mode, version=options.version,
                        twins={asked: twin} if twin else None)
        return Search(hits, rewritten, standalone, context)

    # -- ask ---------------------------------------------------------------------------------------
    def ask(self, question: str, options: AskOptions = AskOptions(), *, cancel: threading.Event | None = None,
            earlier: Sequence[tuple[str, str]] = ()) -> Answer:
        done = [e.answer for e in self.ask_stream(question, options, cancel=cancel, earlier=earlier) if isinstance(e, Done)]
        return done[-1] if done else None

    def ask_stream(
        self, question: str, options: AskOptions = AskOptions(), *, cancel: threading.Event | None = None,
        earlier: Sequence[tuple[str, str]] = (),
    ) -> Iterator[Event]:
        """Retrieve, preview, gate, prompt, generate (streamed), then check; yields Retrieved, Preview, Drafting,
        Token…, Checking, Done.

        ``earlier`` holds the conversation's previous turns (question, answer): a follow-up question is rewritten
        to stand alone, and searched with the question it follows and with that question alone. When the
        check fails the model's draft (quotes would be shown), a second draft is
        written with the question before the passages (a second Drafting, then
        its Tokens and Checking), and shown only if it holds.
        """
        started = time.perf_counter()
        question, notes = clean_question(question)
        check_options(options)
        typed_in = detect_language(question)
        lang = answer_language(typed_in).code if options.language == "auto" else options.language
        if options.language == "auto" and (unanswered := not_answered_note(typed_in)):
            notes.append(unanswered)  # a Korean question gets an English answer, and is told why
        found = self._search(question, options, earlier)
        index = self.collection.index
        searched_twin = options.mode != "dense" and self.collection.twin(typed_in) is not None  # by its words
        if searched_twin and (unindexed := unindexed_note(typed_in, self.collection.available, self.collection.selected,
                                                          str(self.collection.root))):
            notes.append(unindexed)  # a French question on a tree whose French pages are not indexed
        hits = widen(found.hits, index.chunks, options.read)
        timings = Timings(retrieve_ms=(time.perf_counter() - started) * 1000)
        framed = self._frame(question, found, hits, lang, options, earlier)
        yield Retrieved(hits, lang)
        preview = extractive(framed.ranked, lang, asked=framed.asked_text)
        if preview:
            timings.first_content_ms = (time.perf_counter() - started) * 1000
            yield Preview(preview)

        if index.pending and options.mode != "bm25":
            done = index.size - index.pending_chunks
            notes.append(f"Asked while this folder was being embedded: {done:,} of its {index.size:,} passages were "
                         "searched by meaning; the others were found by their words alone (BM25).")
        answer = Answer(question, lang, self.models.llm_label, [], hits, searched_for=found.searched_for or question,
                        notes=notes + self.collection.notes, timings=timings, evidence=evidence(framed.ranked))
        if framed.refused:
            choice = not_found(lang)
            answer.final_answer, answer.verdict, answer.stop_reason = choice.text, choice.verdict, "gate"
            answer.missing_terms = framed.judged.missing
        else:
            answer = yield from self._drafts(answer, framed, options, cancel or threading.Event(), started)
        timings.total_ms = (time.perf_counter() - started) * 1000
        yield Done(answer)

    def _frame(self, question: str, found: Search, hits: list[Hit], lang: str, options: AskOptions,
               earlier: Sequence[tuple[str, str]]) -> Framed:
        """What the model is asked, in which language, how its answer is checked, and whether the gate lets it try."""
        index = self.collection.index
        asked = found.standalone or question  # passages explain no "it"; asked both questions, the 0.5B answers the 1st
        asked_in = detect_language(asked)  # otherwise the rewrite is the lesson's search terms, which are no question
        pages = [index.files[h.chunk.source].language for h in hits]  # a French page among English notes: French
        reads_in = reading_language(pages, asked_in, index.primary_language)
        into = answer_language(reads_in).code  # German docs: the model can only write English
        translation = found.rewritten if needs_translation(asked_in, reads_in) and not found.context else None
        put, writes_in = model_question(asked, translation, asked_in, lang, into)
        queries = ranking_queries(asked, found.rewritten or found.context or "")  # a follow-up's: on its topic
        checker, ranked = self.checker(put, queries, hits, index.chunks)
        written = " ".join([q for q, _ in earlier] + [question])  # only a name the user wrote can be missing
        judged = gate(found.context or asked, [h.chunk.text for h in hits], index, rewritten=found.rewritten,
                      written=written, same_language=detect_language(question) == reads_in)
        refused = options.gate and not judged.covered
        if not refused:  # a refused question gets the fixed phrase whatever the answer's cap
            self._check_room(put, writes_in, options.prompt_style, options.max_tokens)
        asked_text = f"{asked} {found.rewritten or ''}"  # what a quote should name something beyond
        return Framed(put, writes_in, queries, asked_text, checker, ranked, judged, refused, reads_in)

    def _drafts(self, answer: Answer, framed: Framed, options: AskOptions, cancel: threading.Event,
                started: float) -> Generator[Event, None, Answer]:
        """The model's draft, and a second one (the question read first) when the check fails the first; returns the
        answer shown."""
        style, llm, hits = options.prompt_style, self.models.llm, answer.retrieved
        again = style._replace(ask_first=True) if options.retry and not style.ask_first else None  # the second draft's
        passages, trim_notes = fit_passages(framed.put, prompt_passages(hits, framed.ranked, options.trim),
                                            lang=framed.writes_in, style=style, count_tokens=llm.count_tokens,
                                            n_ctx=llm.n_ctx, max_tokens=options.max_tokens)
        answer.notes += trim_notes
        if len(passages) < len(hits):  # the checker and the quotes may cite only the passages the model read
            checker, ranked = self.checker(framed.put, framed.queries, hits[: len(passages)],
                                           self.collection.index.chunks)
            framed = framed._replace(checker=checker, ranked=ranked)
        answer.retrieved = hits[: len(passages)]
        draft = Draft(framed, options.max_tokens, cancel, started)
        before = list(answer.notes)
        yield from self._write(answer, draft, build_messages(framed.put, passages, lang=framed.writes_in, style=style))
        failed = again is not None and answer.verdict == "extractive" and not cancel.is_set()
        retold = build_messages(framed.put, passages, lang=framed.writes_in, style=again) if failed else None
        if retold and fits(retold, llm.count_tokens, llm.n_ctx, options.max_tokens):
            second = replace(answer, notes=list(before), attempts=2)
            yield from self._write(second, draft, retold)
            if second.verdict == "verified":
                second.notes.append(SECOND_DRAFT)
                return second
            answer.attempts = 2
            answer.notes.append(SECOND_FAILED)
        return answer

    def _check_room(self, question: str, lang: str, style, max_tokens: int) -> None:
        """Refuse an answer cap the model's context cannot hold before anything is shown (``repobot ask`` printed
        the quotes, then the error). The default cap leaves room for any question (at most 2,000 characters) in the
        default models' 4,096 tokens: the model is loaded this early only for a larger cap, or checked if loaded."""
        if max_tokens <= AskOptions().max_tokens and not self.models.llm_loaded:
            return
        llm = self.models.llm
        passage_room(question, lang=lang, style=style, count_tokens=llm.count_tokens, n_ctx=llm.n_ctx,
                     max_tokens=max_tokens)

    def _write(self, answer: Answer, draft: Draft, prompt: Messages) -> Iterator[Event]:
        """One draft: ``prompt`` generated (yields Drafting, Token…), then checked into ``answer``."""
        answer.prompt = prompt
        timings = answer.timings
        if answer.attempts == 1:
            timings.prompt_tokens = prompt_tokens(answer.prompt, self.models.llm.count_tokens)
        generation = Generation(self.models.llm, answer.prompt, max_tokens=draft.max_tokens, cancel=draft.cancel,
                                echo=WHOLE_TAG)
        framed = draft.framed
        yield Drafting(framed.writes_in, answer.language, answer.attempts)
        with self.models.lock:
            for piece in generation:
                yield Token(piece)
        if generation.first_token_s is not None and timings.first_token_ms is None:
            timings.first_token_ms = (generation.started + generation.first_token_s - draft.started) * 1000
        timings.tokens_per_s = generation.tokens_per_s
        answer.stop_reason = generation.stop_reason
        if generation.stop_reason in ("repetition", "length", "cancelled"):
            answer.notes.append(f"Generation stopped: {generation.stop_reason}.")
        yield Checking(framed.writes_in, answer.language, framed.reads_in)
        conclude(answer, generation.text, framed.checker, framed.ranked, framed.reads_in,
                 framed.asked_text, self.models.complete, framed.judged, written_in=framed.writes_in)

    def checker(self, put: str, queries: Sequence[str], hits: Sequence[Hit],
                chunks: Sequence) -> tuple[SupportChecker, list[tuple[Unit, float]]]:
        """The support checker over these hits (``put``: the question the model answers, which an answer sentence
        may not merely repeat), and their units ranked against ``queries`` (``rewrite.ranking_queries``); a passage
        opening before its page's first heading is under its page's name (not the heading of the quote before it)."""
        checker = SupportChecker(self.models.embedder, [h.chunk.text for h in hits], question=put,
                                 sections=[opening_section(h, chunks) or h.chunk.source for h in hits])
        return checker, checker.rank_units(queries)


def prompt_passages(hits: Sequence[Hit], ranked: Sequence[tuple[Unit, float]], trim: int) -> list[tuple[str, str]]:
    """(source, text) of each hit as the model reads it: trimmed to its most relevant sentences, or whole, with
    links read as their text (so the context budget counts what is sent).

    >>> from .chunk import Chunk
    >>> prompt_passages([Hit(1, 0, Chunk("a.md", "A", 1, 1, "See [the guide](g.md)."), 0.1)], [], trim=0)
    [('a.md', 'See the guide.')]

    The ids, sources and line spans stay those of the whole chunks, which the
    checker and the viewer use.
    """
    if trim <= 0:
        return [(h.chunk.source, link_text(h.chunk.text)) for h in hits]
    out = []
    for hit in hits:
        titles = {t.strip().lower() for t in hit.chunk.heading.split(">")}
        pieces = [Piece(u.position, u.text, u.is_code, score) for u, score in ranked
                  if u.pid == hit.rank and u.text.strip().lower() not in titles]
        text = trim_passage(hit.chunk.heading, pieces, sentences=trim) if pieces else hit.chunk.text
        out.append((hit.chunk.source, link_text(text)))
    return out
