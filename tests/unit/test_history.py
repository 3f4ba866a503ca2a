"""Saved conversations: SQLite round trip, search, a damaged file set aside, export, follow-up rewriting, the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from repobot.engine.errors import RepoBotError
from repobot.engine.export import conversation_markdown
from repobot.engine.history import History
from repobot.engine.pipeline import AskOptions, Pipeline
from repobot.engine.store import store_dir
from tests.conftest import FakeLLM, fake_models


@pytest.fixture
def answered(docs):
    pipe = Pipeline(docs, models=fake_models("HTTPX does not follow redirects by default."))
    return pipe, pipe.ask("Does HTTPX follow redirects by default?", AskOptions(k=3))


def test_a_turn_is_saved_and_read_back_exactly_as_shown(tmp_path, answered):
    _, answer = answered
    history = History(tmp_path / "history.sqlite3")
    conversation = history.record(None, answer)
    again = History(tmp_path / "history.sqlite3").turns(conversation)[0]  # a new connection: it is on disk
    assert again.final_answer == answer.final_answer and again.verdict == "verified"
    assert [s.cited_by for s in again.final_sentences] == ["checker"]
    assert [(h.chunk.source, h.chunk.start, h.chunk.end, h.chunk.text) for h in again.retrieved] == [
        (h.chunk.source, h.chunk.start, h.chunk.end, h.chunk.text) for h in answer.retrieved]
    assert again.sources and again.conversation == conversation
    assert history.conversations("REDIRECTS")[0].turns == 1 and history.conversations("proxies") == []


def test_a_damaged_history_is_set_aside_with_a_note(tmp_path):
    path = tmp_path / "history.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    history = History(path)
    assert "set aside" in history.note and history.conversations() == []
    assert [p.name for p in tmp_path.glob("history.damaged-*.sqlite3")]


def test_a_damaged_history_that_cannot_be_set_aside_is_a_clear_error_and_stays(tmp_path, monkeypatch):
    """On Windows a file another program holds open cannot be renamed: say what to do, and keep the file."""
    path = tmp_path / "history.sqlite3"
    path.write_bytes(b"this is not a database" * 100)

    def held_open(self, target):
        raise PermissionError(13, "The process cannot access the file because it is being used by another process")

    monkeypatch.setattr(Path, "replace", held_open)
    with pytest.raises(RepoBotError, match="is damaged .* could not be set aside .* close other RepoBot windows"):
        History(path)
    assert path.read_bytes().startswith(b"this is not a database")


def test_unknown_conversations_are_a_clear_error(tmp_path):
    history = History(tmp_path / "h.sqlite3")
    with pytest.raises(RepoBotError, match="No conversation 7 .* known ids: none yet"):
        history.turns(7)


def test_export_has_sources_with_lines_and_each_sentence_status(tmp_path, answered):
    _, answer = answered
    history = History(tmp_path / "history.sqlite3")
    conversation = history.record(None, answer)
    text = conversation_markdown(history.turns(conversation), title=history.title(conversation))
    source = answer.sources[0]
    assert text.startswith("# Does HTTPX follow redirects by default?")
    assert f"[{source.rank}] {source.chunk.source}:{source.chunk.start}-{source.chunk.end}" in text
    assert "✓ supported (citation added by RepoBot): HTTPX does not follow redirects by default" in text
    assert "*Verdict: verified.*" in text


def test_a_follow_up_is_rewritten_to_stand_alone_and_fused(docs):
    llm = FakeLLM("How do I enable follow_redirects for one request?")
    pipe = Pipeline(docs, models=fake_models(llm=llm))
    earlier = [("Does HTTPX follow redirects by default?", "HTTPX does not follow redirects by default [1].")]
    found = pipe.search("How do I turn it on for one request only?", AskOptions(mode="bm25"), earlier)
    assert "without the conversation" in llm.calls[0][0]["content"] and "Does HTTPX follow redirects" in llm.calls[0][1]["content"]
    assert found.standalone == "How do I enable follow_redirects for one request?"
    assert found.searched_for == found.standalone
    assert found.hits[0].chunk.source == "guide/redirects.md"
    alone = pipe.search("How do I set the timeout?", AskOptions(mode="bm25"), earlier)
    assert alone.standalone is None  # a question that stands on its own is not rewritten


def test_a_follow_up_on_something_new_still_finds_the_page_of_the_question_it_follows(tmp_path):
    """Seen with the 0.5B: "And with the async client?" after "How do I set a timeout for a request?" was searched as
    the follow-up, its rewrite and the pair, all about async clients, and found only the async pages. The question it
    follows is searched too, so its page stays among the hits beside the new topic's."""
    for n in range(3):
        (tmp_path / f"async{n}.md").write_text(f"# Async client {n}\n\nAsyncClient works with await, part {n}.\n",
                                               encoding="utf-8")
    (tmp_path / "timeouts.md").write_text("# Timeouts\n\nSet a timeout for a request with `timeout=10.0`.\n",
                                          encoding="utf-8")
    llm = FakeLLM("How do I set a timeout with the async client?")
    pipe = Pipeline(tmp_path, models=fake_models(llm=llm))
    earlier = [("How do I set a timeout for a request?", "Pass `timeout=10.0` [1].")]
    found = pipe.search("And with the async client?", AskOptions(mode="bm25", k=3), earlier)
    assert found.standalone == "How do I set a timeout with the async client?"
    sources = [h.chunk.source for h in found.hits]
    assert "timeouts.md" in sources and any(s.startswith("async") for s in sources)


class TranslatingLLM(FakeLLM):
    """Translates the questions it knows into English, and gives a follow-up back as an answer (never rewritten)."""

    def __init__(self, translations: dict[str, str]):
        super().__init__("")
        self.translations = translations

    def stream_chat(self, messages, *, max_tokens):
        self.reply = self.translations.get(messages[-1]["content"], "") if messages[0]["content"].startswith(
            "Translate the user's question") else "好的。"
        return super().stream_chat(messages, max_tokens=max_tokens)


def test_a_follow_up_in_another_language_also_searches_the_translation_of_the_question_it_follows(tmp_path):
    """A Chinese question that a follow-up follows was searched by BM25 alone, where it finds only identifiers, so
    "那能不能在 client 上设一次就行？" after "httpx 里用户名和密码怎么传？" could lose authentication. Its
    translation, made when it was asked and remembered, is searched too."""
    (tmp_path / "auth.md").write_text("# Authentication\n\nPass a username and password with Basic authentication: "
                                      "`auth=(name, secret)`.\n", encoding="utf-8")
    for n in range(2):
        (tmp_path / f"client{n}.md").write_text(f"# Client {n}\n\nSet it once on the client, part {n}.\n",
                                                encoding="utf-8")
    first, then = "httpx 里用户名和密码怎么传？", "那能不能在 client 上设一次就行？"
    llm = TranslatingLLM({first: "How do I pass a username and password with Basic authentication?",
                          f"{first} {then}": "Can I set it once on the client?"})
    pipe = Pipeline(tmp_path, models=fake_models(llm=llm))
    pipe.search(first, AskOptions(mode="bm25", k=3))
    found = pipe.search(then, AskOptions(mode="bm25", k=3), [(first, "Pass `auth=(name, secret)` [1].")])
    assert found.standalone is None and found.rewritten == "Can I set it once on the client?"
    sources = [h.chunk.source for h in found.hits]
    assert "auth.md" in sources and any(s.startswith("client") for s in sources)
    assert [m[-1]["content"] for m in llm.calls].count(first) == 1  # translated once, when it was asked


def test_a_follow_up_rewritten_as_an_answer_is_not_taken_for_the_question(docs):
    """Seen with the 0.5B: "那要怎么开启？" after a turn on HTTP/2 came back as an answer naming a made-up library,
    which was then searched and put to the model as the user's question, and the gate refused it for that library.
    The follow-up is searched after the question it follows instead; a name only a rewrite gives is never missing."""
    llm = FakeLLM("To follow redirects you need to install the `redirectlib` package.")
    pipe = Pipeline(docs, models=fake_models(llm=llm))
    earlier = [("Does HTTPX follow redirects by default?", "HTTPX does not follow redirects by default [1].")]
    found = pipe.search("How do I turn it on?", AskOptions(mode="bm25"), earlier)
    assert found.standalone is None and found.context == "Does HTTPX follow redirects by default? How do I turn it on?"
    assert "redirectlib" not in (found.searched_for or "")
    made_up = "How do I install `redirectlib` to turn it on?"  # a question, but with a name nobody wrote
    answer = Pipeline(docs, models=fake_models(llm=FakeLLM(made_up))).ask_stream(
        "How do I turn it on?", AskOptions(mode="bm25"), earlier=earlier)
    done = list(answer)[-1].answer
    assert done.stop_reason != "gate" and "redirectlib" not in done.missing_terms


def test_a_follow_up_rewritten_as_the_question_it_follows_is_searched_after_it_instead(docs):
    """Seen with the 0.5B: a follow-up came back as the question it follows, which the model then answered again."""
    earlier = [("Does HTTPX follow redirects by default?", "HTTPX does not follow redirects by default [1].")]
    pipe = Pipeline(docs, models=fake_models(llm=FakeLLM(earlier[0][0])))
    follow_up = "And can I see which redirects it followed?"
    found = pipe.search(follow_up, AskOptions(mode="bm25"), earlier)
    assert found.standalone is None and found.context == f"{earlier[0][0]} {follow_up}"


def test_a_follow_up_not_rewritten_is_put_to_the_model_alone(docs):
    """Seen with the 0.5B: "and who do I need to ask before putting one back on prod?", searched after "how long do we
    keep the staging backups around?", was put to the model after it too, and the model answered the first question
    again ("The staging backups are kept for 14 days"). The pair is searched; the model is asked the follow-up."""
    llm = FakeLLM("Stop.")  # no question: the rewrite is refused, then the draft is this
    pipe = Pipeline(docs, models=fake_models(llm=llm))
    earlier = [("Does HTTPX follow redirects by default?", "HTTPX does not follow redirects by default [1].")]
    done = list(pipe.ask_stream("How do I turn it on?", AskOptions(mode="bm25"), earlier=earlier))[-1].answer
    assert done.searched_for == "Does HTTPX follow redirects by default? How do I turn it on?"
    assert done.retrieved[0].chunk.source == "guide/redirects.md"  # found through the question it follows
    put = done.prompt[-1]["content"]
    assert "How do I turn it on?" in put and "follow redirects by default?" not in put


def test_history_cli_lists_and_exports(tmp_path, answered, monkeypatch):
    pipe, answer = answered
    history = pipe.collection.history
    conversation = history.record(None, answer)
    run = lambda *args: subprocess.run([sys.executable, "-m", "repobot", "history", "--corpus", str(pipe.corpus), *args],
                                       capture_output=True, text=True, timeout=120)
    listed = json.loads(run("--json").stdout)
    assert listed[0]["id"] == conversation and listed[0]["turns"] == 1
    exported = run("--export", str(conversation))
    assert exported.returncode == 0 and "*Verdict: verified.*" in exported.stdout
    as_json = json.loads(run("--export", str(conversation), "--json").stdout)
    assert as_json["id"] == conversation and as_json["turns"] == [answer.to_json()]
    missing = run("--export", "999")
    assert missing.returncode == 2 and "No conversation 999" in missing.stderr and "Traceback" not in missing.stderr
    assert store_dir(pipe.corpus.resolve()).joinpath("history.sqlite3").is_file()


def test_a_locked_history_is_neither_set_aside_nor_a_crash(tmp_path, answered):
    """Another process writing (a CLI `ask` beside the window) locks the file: say so; never set it aside as damaged."""
    import sqlite3

    _, answer = answered
    path = tmp_path / "history.sqlite3"
    history = History(path)
    conversation = history.record(None, answer)
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RepoBotError, match="cannot be opened now .*database is locked"):
            History(path)
        with pytest.raises(RepoBotError, match="could not be (saved|read) .*database is locked"):
            history.add(conversation, answer)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not list(tmp_path.glob("history.damaged-*"))
    assert [a.question for a in History(path).turns(conversation)] == [answer.question]


def test_an_id_too_big_for_sqlite_is_an_unknown_conversation(tmp_path, answered):
    _, answer = answered
    history = History(tmp_path / "history.sqlite3")
    conversation = history.record(None, answer)
    with pytest.raises(RepoBotError, match=f"No conversation {10**23} .* known ids: {conversation}"):
        history.turns(10**23)
    assert history.context(-(10**30)) == []


def test_search_is_plain_text_of_any_length_even_with_undecodable_bytes(tmp_path, answered):
    """SQLite refuses a LIKE pattern over 50,000 bytes, reads % and _ in it as wildcards, and cannot take the lone
    surrogates that stand for a non-UTF-8 argument's bytes."""
    _, answer = answered
    history = History(tmp_path / "history.sqlite3")
    conversation = history.record(None, answer)
    assert [c.id for c in history.conversations(" httpx DOES NOT follow ")] == [conversation]  # in the answer
    assert history.conversations("x" * 50_000) == [] and history.conversations("redirects" * 20_000) == []
    assert history.conversations("%") == [] and history.conversations("follow_redirects") == []
    assert history.conversations("redirects\udcff") == []


def test_history_cli_hostile_arguments_end_in_one_line(answered):
    pipe, answer = answered
    pipe.collection.history.record(None, answer)
    run = lambda *args: subprocess.run([sys.executable, "-m", "repobot", "history", "--corpus", str(pipe.corpus), *args],
                                       capture_output=True, timeout=120)
    missing = run("--export", "9" * 24)
    assert missing.returncode == 2 and missing.stderr.decode().startswith(f"repobot: No conversation {'9' * 24} ")
    for search in (b"redirects\xff", "x" * 50_000):  # bytes: the argument is not UTF-8
        found = run("--search", search)
        assert found.returncode == 0 and found.stdout.startswith(b"No saved conversations containing") and not found.stderr
        assert len(found.stdout.decode().replace(f" for {pipe.corpus.resolve()}", "")) < 100  # the search, shortened


def test_a_turn_whose_saved_data_cannot_be_read_keeps_its_question_and_answer(tmp_path, answered):
    """A turn edited or damaged by hand: the rest of the conversation still opens and exports."""
    import sqlite3

    pipe, answer = answered
    history = pipe.collection.history
    conversation = history.record(None, answer)
    history.add(conversation, answer)
    with sqlite3.connect(history.path) as db:
        db.execute("UPDATE turns SET data = '{not json' WHERE position = 0")
    first, second = history.turns(conversation)
    assert (first.verdict, first.question, first.final_answer) == ("unreadable", answer.question, answer.final_answer)
    assert "could not be read" in first.notes[0] and second.verdict == "verified"
    run = lambda *args: subprocess.run([sys.executable, "-m", "repobot", "history", "--corpus", str(pipe.corpus), *args],
                                       capture_output=True, text=True, timeout=120)
    exported = run("--export", str(conversation))
    assert exported.returncode == 0 and "*Verdict: unreadable.*" in exported.stdout and not exported.stderr
    as_json = json.loads(run("--export", str(conversation), "--json").stdout)
    assert [t["verdict"] for t in as_json["turns"]] == ["unreadable", "verified"]


def test_a_history_file_that_cannot_be_opened_says_so_and_not_that_it_is_locked(tmp_path):
    """Not readable by this user (here: a folder where the file should be, as root may open any file)."""
    path = tmp_path / "history.sqlite3"
    path.mkdir()
    with pytest.raises(RepoBotError, match=r"^RepoBot cannot open its conversation history .*history\.sqlite3 "
                                           r"\(unable to open database file\): make it and .* readable and writable"):
        History(path)
    assert path.is_dir() and not list(tmp_path.glob("history.damaged-*"))


def test_a_history_removed_or_damaged_while_open_says_to_restart(tmp_path, answered):
    """Only opening it again helps: a damaged file is then set aside, a removed one started anew."""
    _, answer = answered
    path = tmp_path / "history.sqlite3"
    history = History(path)
    conversation = history.record(None, answer)
    path.unlink()
    with pytest.raises(RepoBotError, match=r"history\.sqlite3 was removed while RepoBot had it open, so this was not "
                                           r"saved; restart RepoBot to start a new one\.$"):
        history.add(conversation, answer)
    assert History(path).conversations() == []

    damaged = History(tmp_path / "other.sqlite3")
    damaged.record(None, answer)
    damaged.path.write_bytes(b"\x00garbage" * 2000)
    with pytest.raises(RepoBotError, match="was damaged while RepoBot had it open.*set it aside and start a new one"):
        damaged.conversations()


def test_titles_are_one_printable_line(tmp_path):
    history = History(tmp_path / "history.sqlite3")
    c = history.new("Does HTTPX\x1b]0;pwn\x07 follow\nredirects?\x00")
    history_titles = [x.title for x in history.conversations()]
    assert history_titles == ["Does HTTPX ]0;pwn follow redirects?"]
    history.rename(c, "\n\t")
    assert history.title(c) == "Conversation"


def test_a_history_that_may_not_be_looked_at_is_opened_to_say_why_not_shown_as_empty(tmp_path, monkeypatch):
    """Made on its first save, the history is looked for first: a look refused (EACCES) is no proof it is absent."""
    import errno
    import os

    path = tmp_path / "store" / "history.sqlite3"
    History(path).new("Redirects")
    real_lstat = os.lstat

    def lstat(target, *args, **kwargs):
        if str(target) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(target))
        return real_lstat(target, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat)
    assert [c.title for c in History(path).conversations()] == ["Redirects"]
    assert History(tmp_path / "none" / "history.sqlite3").conversations() == []
