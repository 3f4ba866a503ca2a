"""Conclude: one draft checked, and what the user is shown chosen from it.

    draft -> check_citations (form) -> SupportChecker.check_answer (support, sentence by sentence)
          -> answer.choose (the checked answer, quotes, or the fixed phrase) -> shown_in (into the question's language)

A draft the model wrote in the documents' language for a question in another
is checked there, then its shown sentences are translated (translate.py); the
results go into the ``Answer`` (verdict, final answer, sentences, notes).
"""

from __future__ import annotations

from typing import Sequence

from .answer import choose, lacking_subject
from .check import check_citations
from .copied import without_example
from .gate import GateResult
from .languages import answer_language
from .names import unmade_rankings
from .result import Answer
from .support import SupportChecker, Unit
from .translate import Complete, for_the_check, shown_in, translated_note, untranslated, untranslated_note


def lacking(judged: GateResult, question: str, passages: Sequence[str]) -> list[str]:
    """What a failed answer may not be about: the names the documents lack (unless the question also names something
    they have: "Django" beside WSGITransport is the user's setup), and rankings no passage makes ("faster").

    >>> lacking(GateResult(True, [], [], ["Datadog"], anchored=False), "Is it faster with Datadog?", ["Use a proxy."])
    ['Datadog', 'faster']
    >>> lacking(GateResult(True, [], [], ["Django"]), "Mount my Django app?", ["Use WSGITransport."])
    []
    """
    return ([] if judged.anchored else list(judged.bystanders)) + unmade_rankings(question, passages)


def conclude(answer: Answer, model_answer: str, checker: SupportChecker, ranked: Sequence[tuple[Unit, float]],
             corpus_language: str, asked_text: str, complete: Complete, judged: GateResult = GateResult(True, [], []),
             written_in: str | None = None) -> None:
    """Check the model's answer (form and support) and choose what the user is shown, into ``answer``.

    ``asked_text`` is the question text the preview's quotes were chosen against, so the final quotes are chosen the
    same way; ``complete`` makes the model's short calls (the translations); ``judged`` is the gate's verdict: the
    question's terms the documents lack, which it let through, and whether the question names anything else specific
    that they have; ``written_in``: the language the model wrote in (the answer's, unless it answered in the
    documents' language to be translated after).
    """
    answer.model_answer = model_answer  # as written; what is checked leaves out a paste of the worked example
    model_answer = without_example(model_answer)
    answer.check = check_citations(model_answer, len(answer.retrieved))
    into = answer_language(corpus_language).code  # German docs: the model can only give English, as is
    written_in = written_in or answer.language
    more_calls = answer.stop_reason != "cancelled"  # Stop means no more model calls
    translations = for_the_check(complete, model_answer, written_in, into) if written_in != into and more_calls else {}
    answer.sentences = checker.check_answer(model_answer, translations, judged.bystanders, judged.unseen)
    absent = lacking(judged, checker.question, checker.passages)
    wanted = written_in != answer.language and more_calls
    translate = (lambda shown: shown_in(complete, shown, written_in, answer.language)) if wanted else None
    choice = choose(answer.sentences, model_answer, ranked, answer.language, asked_text, absent, translate=translate,
                    finished=more_calls)
    answer.verdict, answer.final_answer, answer.final_sentences = choice
    if translate is not None and any(s.checked_as for s in choice.sentences):
        answer.notes.append(translated_note(written_in, answer.language))
    if translate is not None and choice.verdict == "verified" and (kept := untranslated(choice)):
        answer.notes.append(untranslated_note(kept, written_in, answer.language))
    if choice.verdict == "not_found":
        answer.missing_terms = lacking_subject(model_answer, absent)
