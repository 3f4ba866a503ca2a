"""What each ``repobot`` command does: index, search, ask, history, check, eval, models and gui (``COMMANDS``).

``main.py`` runs one of them and turns whatever goes wrong into one line and an exit code.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from .report import Terminal, json_text, one_line, print_answer, print_event, print_index
from .worker import loading_beside, off_main_thread

EXIT_USER_ERROR = 2


def _pipeline(args, *, with_model: bool = False):
    from repobot.engine.pipeline import Pipeline

    pipe = Pipeline(getattr(args, "corpus", None), model=getattr(args, "model", None))
    if with_model:
        pipe.models.check_llm()
    return pipe


def _has_text(pipe) -> None:
    """A RepoBotError when the folder's index holds no passage: every markdown file in it is empty (or front matter
    alone), so there is nothing to search, and a search or an answer would only say that nothing was found."""
    from repobot.engine.errors import CorpusError

    if pipe.index.chunks:
        return
    files = sorted(pipe.index.files)
    which = f"its one markdown file, {files[0]}, is" if len(files) == 1 else f"its {len(files)} markdown files are"
    raise CorpusError(f"{pipe.corpus} has no text to search: {which} empty. Point --corpus at the folder that holds "
                      "your documentation.")


def cmd_index(args) -> int:
    from repobot.engine.pipeline import Pipeline

    from .progress import ProgressBar

    if args.measure_embedder:
        from repobot.engine import embedders

        best = embedders.chosen(remeasure=True)
        for m in embedders.last_measurements():
            verdict = "kept" if m.passed else "too far from the plain model"
            print(f"{m.name:>6}: {m.chunks_per_s:7.1f} chunks/s, cosine to the plain model {m.mean_cosine:.4f} "
                  f"(min {m.min_cosine:.4f}), {verdict}" + ("  <- chosen" if m.name == best else ""), file=sys.stderr)
    pipe = Pipeline(args.corpus, languages=args.languages)
    report = pipe.build_index(progress=ProgressBar(enabled=None if not args.json else False))
    collection = pipe.collection
    problems = [{"source": p.source, "problem": p.reason} for p in collection.problems]
    if args.json:
        print(json_text({
            "corpus": str(pipe.corpus), "embedder": pipe.index.embedder,
            "files": len(pipe.index.files), "chunks": len(pipe.index.chunks), "seconds": round(report.seconds, 2),
            "added": report.added, "updated": report.updated, "removed": report.removed,
            "unchanged": len(report.unchanged), "embedded_chunks": report.embedded_chunks,
            "problems": problems, "notes": collection.notes,
            "languages": sorted(collection.selected) if collection.selected else None,
            "available_languages": collection.available,
        }))
        return 0
    print_index(pipe, report, problems, sys.stdout, sys.stderr)
    return 0


def cmd_search(args) -> int:
    from repobot.engine.options import check_options, clean_question
    from repobot.engine.pipeline import AskOptions
    from repobot.engine.result import hit_json

    from .progress import ProgressBar

    options = check_options(AskOptions(k=args.k, mode=args.mode, version=args.docs_version, rewrite=args.rewrite))
    question, shortened = clean_question(args.question)  # as ask reads it: control characters out, 2,000 at most
    pipe = _pipeline(args)
    # a new or changed folder is indexed first, with its progress shown; BM25 alone does not wait for the embedding
    embeds = args.mode != "bm25"
    pipe.build_index(progress=ProgressBar(enabled=None if not args.json else False, embeds=embeds), embed=embeds)
    _has_text(pipe)
    found = pipe.search(question, options)
    hits, rewritten = found.hits, found.searched_for
    for note in pipe.collection.notes + shortened:  # a damaged saved index, rebuilt; a question cut short
        print(one_line(f"note: {note}"), file=sys.stderr)
    if args.json:
        hits_json = [hit_json(h, text=True, id_key="rank") for h in hits]
        print(json_text({"hits": hits_json, "searched_for": rewritten or question}))
        return 0
    if rewritten:
        print(one_line(f"Searched for: {rewritten}"))
    if not hits:
        print(one_line(f"No passage matches {question!r}: try other words{_other_mode(args.mode)}."), file=sys.stderr)
    for h in hits:
        print(one_line(f"[{h.rank}] {h.chunk.source}:{h.chunk.start}-{h.chunk.end}  {h.chunk.heading}  ({h.score:.4f})"))
    return 0


def _other_mode(mode: str) -> str:
    """The way of searching that a search without hits in ``mode`` did not use, as a suggestion; none for hybrid,
    which searches both by words and by meaning.

    >>> _other_mode("bm25"), _other_mode("dense"), _other_mode("hybrid")
    (', or --mode dense (by meaning)', ', or --mode bm25 (by words)', '')
    """
    return {"bm25": ", or --mode dense (by meaning)", "dense": ", or --mode bm25 (by words)"}.get(mode, "")


def cmd_ask(args) -> int:
    from repobot.engine.load import corpus_folder
    from repobot.engine.options import check_options, clean_question
    from repobot.engine.pipeline import AskOptions, Done

    from .progress import ProgressBar

    options = check_options(AskOptions(
        k=args.k, mode=args.mode, language=args.language, strict=not args.no_strict, rewrite=args.rewrite,
        version=args.docs_version, max_tokens=args.max_tokens, gate=not args.no_gate, retry=not args.no_retry,
    ))
    _, shortened = clean_question(args.question)  # an empty question is refused, a long one said to be cut, at once
    for note in shortened:
        print(one_line(f"note: {note}"), file=sys.stderr)
    pipe = _pipeline(args, with_model=True)
    corpus_folder(pipe.corpus)  # a wrong --corpus is said at once: before a history is made for it or a model loads
    history = pipe.collection.history
    earlier = history.context(args.conversation) if args.conversation is not None else []
    if args.conversation is not None:
        history.title(args.conversation)  # an unknown id is an error that lists the known ones
    cancel = threading.Event()
    answer, open_line = None, False
    out = Terminal(sys.stdout)  # the documents' words are printed, a terminal escape among them never obeyed
    try:
        with loading_beside(lambda: pipe.models.llm):
            # a first index is built here, its progress shown: Ctrl-C stops it at once, keeping what it saved
            embeds = options.mode != "bm25"  # BM25 alone needs no embedding (nor to wait for another RepoBot's)
            pipe.build_index(progress=ProgressBar(enabled=None if not args.json else False, embeds=embeds), embed=embeds)
            _has_text(pipe)
            if options.mode != "bm25":
                _ = pipe.models.embedder
            for event in off_main_thread(lambda: pipe.ask_stream(args.question, options, cancel=cancel,
                                                                 earlier=earlier), cancel):
                if isinstance(event, Done):
                    answer = event.answer
                elif not args.json:
                    open_line = print_event(event, out, open_line)
            if open_line:  # the draft ended mid-line: end it, so that a blank line parts it from the check
                print(file=out)
    except KeyboardInterrupt:
        cancel.set()
        raise
    from repobot.engine.errors import RepoBotError

    try:
        history.record(args.conversation, answer)
    except RepoBotError as err:  # the answer is still given; only its saved copy is missing
        print(one_line(f"warning: {err}"), file=sys.stderr)
    for note in [history.note] if history.note else []:
        print(one_line(f"note: {note}"), file=sys.stderr)
    if args.json:
        print(json_text(answer.to_json()))
        return 0
    print_answer(answer, out, said_before=shortened)
    return 0


def cmd_history(args) -> int:
    from repobot.engine.collection import Collection
    from repobot.engine.export import conversation_markdown
    from repobot.engine.load import corpus_folder
    from repobot.engine.errors import RepoBotError
    from repobot.engine.registry import ModelSet

    if args.export is not None and args.search:
        raise RepoBotError("--export prints one whole conversation and --search lists the conversations that contain "
                           "some text: use one of them.")
    folder = corpus_folder(args.corpus) if args.corpus else None  # a missing one would get an empty history of its own
    collection = Collection(args.corpus, ModelSet())
    history = collection.history
    for note in (history.note, collection.moved_note):
        if note:
            print(one_line(f"note: {note}"), file=sys.stderr)
    if args.export is not None and args.json:
        turns = [answer.to_json() for answer in history.turns(args.export)]
        print(json_text({"id": args.export, "title": history.title(args.export), "turns": turns}))
        return 0
    if args.export is not None:
        print(conversation_markdown(history.turns(args.export), title=history.title(args.export)),
              file=Terminal(sys.stdout))
        return 0
    rows = history.conversations(args.search)
    if args.json:
        print(json_text([row._asdict() for row in rows]))
        return 0
    if not rows:
        shown = args.search if len(args.search) <= 60 else args.search[:59] + "…"
        where = folder or "RepoBot's user guide"  # the folder asked about when --corpus is left out
        hint = "" if folder else " Conversations are kept per folder: add --corpus DIR."
        print(one_line("No saved conversations" + (f" containing {shown!r}" if args.search else "")
                       + f" for {where}.{hint}"))
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated))
        print(one_line(f"{row.id:>4}  {when}  {row.turns} turn(s)  {row.title}"))
    return 0


def cmd_check(args) -> int:
    from repobot.engine.check import check_citations
    from repobot.engine.errors import RepoBotError

    if args.n_docs < 0:
        raise RepoBotError("--n-docs must be 0 or more.")
    if sys.stdin is None:
        raise RepoBotError("check reads the answer on its standard input, which is closed: "
                           "run `repobot check --n-docs 5 < answer.txt`.")
    text = sys.stdin.read()
    print(json_text(check_citations(text, args.n_docs)._asdict(), indent=None))
    return 0


def cmd_eval(args) -> int:
    from repobot.engine.errors import RepoBotError
    from repobot.engine.evaluate import evaluate, format_table
    from repobot.engine.questions import absent_gold, load_questions

    if args.no_answers and args.model:
        raise RepoBotError("--model chooses the model that answers, and --no-answers answers nothing: drop one of them.")
    modes = _modes(args.modes)
    questions = load_questions(args.questions, args.split)
    pipe = _pipeline(args, with_model=not args.no_answers)
    absent = absent_gold(questions, pipe.collection.root)
    if absent:
        named = len({g for q in questions for g in q.gold_sources})
        print(f"warning: {len(absent)} of the {named} gold pages the questions name are not in "
              f"{pipe.collection.root} ({', '.join(absent[:3])}{', …' if len(absent) > 3 else ''}): those questions "
              "score 0. Check --corpus.", file=sys.stderr)
    result = evaluate(pipe, questions, modes=modes, answers=not args.no_answers)
    print(json_text(result) if args.json else format_table(result))
    return 0


def _modes(text: str) -> list[str]:
    """The retrieval modes of ``--modes``, checked before anything loads.

    >>> _modes("hybrid, bm25")
    ['hybrid', 'bm25']
    """
    from repobot.engine.errors import RepoBotError
    from repobot.engine.retrieve import MODES

    modes = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise RepoBotError(f"--modes takes one or more of {','.join(MODES)}, separated by commas"
                           + (f" (not {', '.join(unknown)})." if unknown else "."))
    return modes


def cmd_models(args) -> int:
    from repobot.engine.models import found_models, missing_models

    rows = [{"file": m.path.name, "path": str(m.path), "size_mb": round(m.size / 1e6, 1), "known": m.known is not None,
             "installed": True, "role": m.known.role if m.known else None, "problem": m.problem or None}
            for m in found_models()]
    rows += [{"file": e.file, "path": None, "size_mb": round(e.size_bytes / 1e6, 1), "known": True, "installed": False,
              "role": e.role, "problem": None, "install": e.install} for e in missing_models()]
    if args.json:
        print(json_text(rows))
        return 0
    for r in rows:
        where = r["path"] if r["installed"] else f"not installed: run `{r['install']}`"
        kind = f"{r['role']} model" if r["role"] else "your own (not in the catalogue)"
        kind = f"unusable: {r['problem']}" if r.get("problem") else kind
        print(one_line(f"{r['file']}  {r['size_mb']} MB  {kind}  {where}"))
    return 0


def _check_screenshot(path: str) -> None:
    """Refuse a screenshot name that cannot be written before the window starts, not after the answer."""
    from pathlib import Path

    from repobot.engine.errors import RepoBotError

    target = Path(path).expanduser()
    folder = target.parent
    if not path.strip() or target.suffix.lower() != ".png" or not folder.is_dir() or not os.access(folder, os.W_OK):
        raise RepoBotError(f"The screenshot cannot be written to {path!r}: give a file name that ends in .png, in a "
                           "folder that exists and that you can write.")


def cmd_gui(args) -> int:
    from repobot.desktop.preflight import check
    from repobot.engine.errors import RepoBotError

    if args.open_source is not None and (not args.ask or args.open_source < 1):
        raise RepoBotError("--open-source N opens source N (1 or more) of the answer to --ask: give both.")

    from repobot.engine.load import window_folder_problem

    if args.corpus and (unusable := window_folder_problem(args.corpus)):
        raise RepoBotError(unusable)
    if args.ask is not None and not args.ask.strip():
        raise RepoBotError("--ask needs a question: type one, e.g. --ask \"How do I set a timeout?\"")
    if args.screenshot is not None:
        _check_screenshot(args.screenshot)
    problem = check()  # before Qt loads: Qt aborts the process when its platform plugin cannot load
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USER_ERROR
    from repobot.desktop.app import run

    return run(corpus=args.corpus, model=args.model, ask=args.ask, screenshot=args.screenshot,
               open_source=args.open_source, quit_after=args.quit)


COMMANDS = {
    "index": cmd_index, "search": cmd_search, "ask": cmd_ask, "check": cmd_check,
    "eval": cmd_eval, "models": cmd_models, "history": cmd_history, "gui": cmd_gui,
}
