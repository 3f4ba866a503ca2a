"""The command line: one-line errors with a non-zero exit, never a traceback."""

import json
import os
import subprocess
import sys

import pytest


def repobot(*args, stdin=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "repobot", *args], input=stdin, capture_output=True, text=True, timeout=300, env=env
    )


def test_check_reads_stdin_and_prints_the_lesson_json():
    result = repobot("check", "--n-docs", "5", stdin="默认不会自动跟随重定向 [1][3]。可以查看历史记录列表 [9]。")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"cited": [1, 3, 9], "invalid": [9], "uncited": []}


@pytest.mark.parametrize(
    "args, message",
    [
        (["index", "--corpus", "/no/such/folder"], "No such folder: /no/such/folder"),
        (["search", "x", "--corpus", "/no/such/folder"], "No such folder"),
        (["ask", "Does it work?", "--model", "/no/such/model.gguf"], "Model file not found"),
        (["ask", "Does it work?", "--model", ""], "--model: it is empty: give a .gguf file, or leave --model out"),
        (["check", "--n-docs", "-1"], "--n-docs must be 0 or more"),
        (["history", "--corpus", "/no/such/folder"], "No such folder: /no/such/folder"),
        (["history", "--export", "1", "--search", "proxy"], "--export prints one whole conversation and --search"),
        (["search", "x", "--k", "0"], "--k must be at least 1"),
        (["search", "x", "--docs-version", ""], "--docs-version: it is empty: give a version of the documents"),
        (["eval", "questions.jsonl", "--modes", ","], "--modes takes one or more of hybrid,bm25,dense"),
        (["eval", "questions.jsonl", "--modes", "hybrid,fast"], "(not fast)"),
        (["eval", "questions.jsonl", "--no-answers", "--model", "x.gguf"], "--no-answers answers nothing: drop one"),
        (["gui", "--open-source", "1"], "--open-source N opens source N"),
        (["gui", "--ask", "Why?", "--open-source", "0"], "--open-source N opens source N"),
        (["gui", "--ask", "", "--quit"], "--ask needs a question"),
        (["gui", "--screenshot", "", "--quit"], "The screenshot cannot be written to ''"),
        (["gui", "--screenshot", "/proc/nope/x.png", "--quit"], "ends in .png, in a folder that exists"),
        (["gui", "--screenshot", "/tmp", "--quit"], "The screenshot cannot be written to '/tmp'"),
        (["index", "/"], "Give a folder as --corpus /"),
        (["ask"], 'the following arguments are required: question. A question that starts with "-" goes after --: '
         '`repobot ask -- "-x?"`. See `repobot ask --help`'),
        (["search", "x", "--k", "many"], "invalid int value"),
        (["search", "x", "--corpus", ""], "--corpus: it is empty: give a folder of markdown files"),
        (["index", "--corpus", "/no/such\nfolder\x1b[31m"], "No such folder: /no/such\\nfolder\\x1b[31m."),
        (["search", "x", "a\nb"], "unrecognized arguments: a\\nb."),
    ],
)
def test_errors_are_one_line_with_non_zero_exit(args, message):
    result = repobot(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_empty_folder_and_not_a_gguf(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = repobot("index", "--corpus", str(empty))
    assert result.returncode == 2 and "No readable markdown" in result.stderr
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"not a model at all")
    result = repobot("ask", "question?", "--model", str(fake))
    assert result.returncode == 2 and "is not a GGUF model file" in result.stderr


def test_a_search_without_hits_a_rebuilt_index_and_an_unknown_docs_version_are_said(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Clients\n\nReuse one client for many requests.\n")
    env = {**os.environ, "REPOBOT_HOME": str(tmp_path / "home")}
    nothing = repobot("search", "zzzqqq", "--corpus", str(tmp_path / "docs"), "--mode", "bm25", env=env)
    assert (nothing.returncode, nothing.stdout) == (0, "")
    assert nothing.stderr == "No passage matches 'zzzqqq': try other words, or --mode dense (by meaning).\n"
    store = next((tmp_path / "home" / "indexes").iterdir())
    (store / (store / "CURRENT").read_text().strip() / "meta.json").write_text("[1, 2]")
    rebuilt = repobot("search", "client", "--corpus", str(tmp_path / "docs"), env=env)
    assert rebuilt.returncode == 0 and rebuilt.stdout.startswith("[1] a.md:")
    assert rebuilt.stderr.startswith("note: The saved index in ") and rebuilt.stderr.endswith("it will be rebuilt.\n")
    version = repobot("search", "client", "--corpus", str(tmp_path / "docs"), "--docs-version", "v9", env=env)
    assert version.returncode == 2
    assert version.stderr == ("repobot: No chunks of version 'v9': this folder has no versioned pages, "
                              "or leave out --docs-version.\n")


def test_output_to_a_full_disk_closed_stdin_and_undecodable_bytes_end_in_one_line(tmp_path):
    strict = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    latin1 = subprocess.run([sys.executable, "-m", "repobot", "check", "--n-docs", "2"], input=b"caf\xe9 [1].",
                            capture_output=True, env=strict, timeout=300)
    assert (latin1.returncode, json.loads(latin1.stdout)["cited"]) == (0, [1])
    closed = subprocess.run(f"{sys.executable} -m repobot check --n-docs 2 <&-", shell=True, capture_output=True,
                            text=True, timeout=300)
    assert closed.returncode == 2
    assert closed.stderr.startswith("repobot: check reads the answer on its standard input, which is closed")
    silenced = subprocess.run(f"{sys.executable} -m repobot models >&-", shell=True, capture_output=False,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    assert silenced.returncode == 2  # not 0 with its listing lost
    assert silenced.stderr.startswith("repobot: its output is closed, so models could not say anything")
    if os.path.exists("/dev/full"):
        full = subprocess.run(f"{sys.executable} -m repobot check --n-docs 2 > /dev/full", shell=True, input="x [1].",
                              capture_output=True, text=True, timeout=300)
        assert full.returncode == 2
        assert full.stderr == ("repobot: cannot write the output: No space left on device. Free some space (or write "
                               "the output elsewhere) and run it again.\n")


def test_version_and_help():
    assert repobot("--version").stdout.startswith("repobot ")
    assert "ask" in repobot("--help").stdout


def test_an_answer_that_cannot_be_saved_is_still_printed(docs, monkeypatch, capsys):
    from repobot.cli import commands, main as cli
    from repobot.engine.errors import RepoBotError
    from repobot.engine.history import History
    from repobot.engine.pipeline import Pipeline
    from tests.conftest import fake_models

    def unsaved(self, conversation, answer):
        raise RepoBotError("The conversation could not be saved (disk I/O error); check that it is writable.")

    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(
        docs, models=fake_models("HTTPX does not follow redirects by default [1].")))
    monkeypatch.setattr(History, "record", unsaved)
    assert cli.main(["ask", "Does HTTPX follow redirects by default?", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["final_answer"] == "HTTPX does not follow redirects by default [1]."
    assert err.startswith("warning: The conversation could not be saved")


def test_ask_says_a_long_question_was_cut_before_it_reads_the_folder_and_not_again_after_the_answer(
        docs, monkeypatch, capsys):
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline
    from tests.conftest import fake_models

    said_before = []

    def pipeline(args, with_model=False):
        said_before.append(capsys.readouterr().err)
        return Pipeline(docs, models=fake_models("HTTPX does not follow redirects by default [1]."))

    monkeypatch.setattr(commands, "_pipeline", pipeline)
    assert cli.main(["ask", "Does HTTPX follow redirects? " * 100]) == 0
    note = "note: The question was shortened from 2899 to 2000 characters.\n"
    assert said_before == [note]
    captured = capsys.readouterr()
    assert "shortened" not in captured.out + captured.err and "Verdict:" in captured.out
    assert cli.main(["ask", "Does HTTPX follow redirects? " * 100, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"][0] == note[6:-1]  # the JSON keeps every note
    assert cli.main(["ask", " \x00 "]) == 2  # an empty question: refused before the folder is read
    assert len(said_before) == 2 and "The question is empty" in capsys.readouterr().err


def test_ask_prints_the_quotes_then_the_draft_under_its_language_then_the_checked_answer(docs, monkeypatch, capsys):
    from tests.conftest import ask_with, redirects_in_chinese

    ask = ask_with(redirects_in_chinese(), docs, monkeypatch)
    assert ask(["ask", "HTTPX 默认会跟随重定向吗？"]) == 0
    out = capsys.readouterr().out
    # said in the answer's language, as the labels around them are (they were in English)
    label = "模型正在用英文（文档的语言）写作（尚未核对；核对后的回答以中文显示）："
    checking = "正在对照段落核对草稿，然后把核对后的回答译成中文…"
    order = ["检索到的段落：[1] guide/redirects.md", "> HTTPX does not follow redirects by default. [1]", label,
             "HTTPX does not follow redirects by default [1].", checking, "结论：已核实", "HTTPX 默认不跟随重定向 [1]。"]
    assert [out.index(line) for line in order] == sorted(out.index(line) for line in order)
    # the translation's wait is said under the draft (it lasted up to half a minute in silence), a blank line apart
    assert f"default [1].\n\n{checking}\n\n检索用语：" in out
    # the notes the languages file has, and the timings, in Chinese too; the JSON keeps them in English
    assert "说明：由本地模型从核对过的英文回答译成中文：译文可能有误" in out and "（检索 " in out and "首个词元" in out
    assert "note:" not in out and "(retrieve" not in out


def test_the_documents_example_shown_for_the_model_code_names_its_passage():
    import io

    from repobot.cli.report import print_answer
    from repobot.engine.chunk import Chunk
    from repobot.engine.result import Answer
    from repobot.engine.retrieve import Hit
    from repobot.engine.support import Support

    hits = [Hit(n, 0, Chunk(f"tutorial/page{n}.md", "", 10 * n, 10 * n + 5, "t"), 0.5) for n in (1, 2, 3)]
    lead = Support("Then, with a URL like:", [], "exempt", {}, None, "")
    code = Support("http://localhost:8000/items/?q=foo&q=bar", [], "supported", {3: 1.0}, 3, "", True, "checker",
                   example="http://localhost:8000/items/?q=foo&q=bar")
    answer = Answer("Q?", "en", "m", [], hits, final_sentences=[lead, code], verdict="verified",
                    final_answer="Then, with a URL like:\n\n```\nhttp://localhost:8000/items/?q=foo&q=bar\n```")
    out = io.StringIO()
    print_answer(answer, out)
    assert "  [3] the documents' example: http://localhost:8000/items/?q=foo&q=bar" in out.getvalue()
    assert "Sources: [3] tutorial/page3.md:30-35" in out.getvalue()


def test_two_code_blocks_that_open_on_the_same_comment_are_listed_by_their_code():
    """The timeouts page's two examples both open on "# Using the top-level API:": the check and the list of
    citations RepoBot added name each block by its first line of code, not twice by that comment."""
    import io

    from repobot.cli.report import print_answer
    from repobot.engine.chunk import Chunk
    from repobot.engine.result import Answer
    from repobot.engine.retrieve import Hit
    from repobot.engine.support import Support

    hits = [Hit(1, 0, Chunk("advanced/timeouts.md", "", 6, 28, "t"), 0.5)]
    blocks = [Support(f"# Using the top-level API:\nhttpx.get(url, timeout={t})", [], "supported", {1: 1.0}, 1, "",
                      True, "checker") for t in ("10.0", "None")]
    answer = Answer("Q?", "en", "m", [], hits, sentences=blocks, final_sentences=blocks, verdict="verified")
    out = io.StringIO()
    print_answer(answer, out)
    printed = out.getvalue()
    assert "  [1] httpx.get(url, timeout=10.0)\n  [1] httpx.get(url, timeout=None)\n" in printed  # added
    assert "supported   httpx.get(url, timeout=None) …\n" in printed  # the check
    assert "# Using the top-level API" not in printed


def test_the_quotes_under_an_answer_are_not_listed_or_counted_as_citations_added_to_the_model():
    """RepoBot's own quotes ("Also in the documents") carry its ids, but it added no citation to the model's words
    there: the CLI's list, the export's marks and the eval's ``attributed`` name only the model's sentences."""
    import io

    from repobot.cli.report import print_answer
    from repobot.engine.chunk import Chunk
    from repobot.engine.evaluate import answer_row
    from repobot.engine.questions import Question
    from repobot.engine.export import answer_markdown
    from repobot.engine.result import Answer
    from repobot.engine.retrieve import Hit
    from repobot.engine.support import QUOTED, Support

    hits = [Hit(n, 0, Chunk(f"page{n}.md", "", 1, 5, "t"), 0.5) for n in (1, 2)]
    own = Support("Redirects are off by default [1].", [1], "supported", {1: 0.8}, None, "", cited_by="checker")
    quote = Support("> Use follow_redirects=True. [2]", [2], "supported", {2: 1.0}, None, QUOTED.format(pid=2),
                    cited_by="checker")
    answer = Answer("Q?", "en", "m", [], hits, final_sentences=[own, quote], verdict="verified",
                    final_answer="Redirects are off by default [1].\n\nAlso in the documents:\n\n" + quote.text)
    out = io.StringIO()
    print_answer(answer, out)
    listed = out.getvalue().split("Every citation in the model's answer was added or corrected by RepoBot.")[1].split("Sources:")[0]
    assert listed.strip() == ""  # its one sentence is not printed twice; the quote's [2] is not RepoBot's addition
    exported = answer_markdown(answer)
    assert "supported (citation added by RepoBot): Redirects are off" in exported
    assert "supported: > Use follow_redirects=True. [2]" in exported
    row = answer_row(Question("Q?", True, ["page1.md"], ["off"], "en", "report"), answer)
    assert (row["shown"], row["attributed"]) == (1, 1)


def test_eval_warns_when_the_questions_name_pages_the_folder_lacks(tmp_path):
    """Pointed at the wrong folder, every question scored 0 with exit 0 and no word why."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Clients\n\nReuse one client for many requests.\n")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "How do I reuse a client?", "answerable": True,
                                     "gold_sources": ["advanced/clients.md"], "key_facts": []}) + "\n")
    env = {**os.environ, "REPOBOT_HOME": str(tmp_path / "home")}
    result = repobot("eval", str(questions), "--corpus", str(tmp_path / "docs"), "--no-answers", env=env)
    assert result.returncode == 0
    assert "warning: 1 of the 1 gold pages the questions name are not in" in result.stderr
    assert "advanced/clients.md" in result.stderr and "Check --corpus" in result.stderr


def test_an_answer_cap_the_context_cannot_hold_is_refused_before_anything_is_printed(docs, monkeypatch, capsys):
    """`repobot ask --max-tokens 100000` printed the retrieved sources and the quotes, then the error."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline
    from tests.conftest import fake_models

    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(docs, models=fake_models()))
    assert cli.main(["ask", "Does HTTPX follow redirects by default?", "--max-tokens", "100000"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "--max-tokens, at most" in err and "100000-token answer" in err


def test_a_question_the_documents_do_not_cover_gets_the_fixed_phrase_whatever_the_answer_cap(docs, monkeypatch, capsys):
    """The cap is checked only for an answer the model will write: the gate's refusal needs no room for one."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline
    from tests.conftest import fake_models

    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(docs, models=fake_models()))
    assert cli.main(["ask", "How do I configure Kubernetes ingress annotations for Zookeeper?", "--max-tokens",
                     "100000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "not_found" and out["stop_reason"] == "gate"


def test_ask_loads_the_model_beside_the_index_once(docs, monkeypatch, capsys):
    """`repobot ask` loads the model on a thread while the index loads (0.4 s sooner to the first token on httpx);
    the answer's own use of the model waits for that load instead of making a second one."""
    import threading
    import time

    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.registry import ModelSet, register_embedder, register_llm
    from tests.conftest import FakeEmbedder, FakeLLM

    loads, threads = [], set()

    def slow_load():
        threads.add(threading.current_thread().name)
        time.sleep(0.3)
        loads.append(1)
        return FakeLLM("HTTPX does not follow redirects by default [1].")

    register_llm("slow-fake-llm", slow_load)
    register_embedder("fake", FakeEmbedder)
    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(
        docs, models=ModelSet("slow-fake-llm", "fake")))
    assert cli.main(["ask", "Does HTTPX follow redirects by default?", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "verified"
    assert loads == [1] and threads == {"repobot-load"}


def test_ask_reports_a_model_that_cannot_load_once_in_one_line(docs, monkeypatch, capsys):
    from repobot.cli import commands, main as cli
    from repobot.engine.errors import ModelError
    from repobot.engine.pipeline import Pipeline
    from repobot.engine.registry import ModelSet, register_embedder, register_llm
    from tests.conftest import FakeEmbedder

    def broken():
        raise ModelError("llama.cpp could not load broken.gguf (bad magic): choose another GGUF.")

    register_llm("broken-fake-llm", broken)
    register_embedder("fake", FakeEmbedder)
    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(
        docs, models=ModelSet("broken-fake-llm", "fake")))
    assert cli.main(["ask", "Does HTTPX follow redirects by default?"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "choose another GGUF" in err and "Traceback" not in err


def test_terminal_escapes_in_a_page_or_its_name_are_printed_not_obeyed_and_an_unsaved_answer_names_no_conversation(
        tmp_path):
    """A hostile folder must not clear the screen, retitle the window or hide words inside a checked answer."""
    import io

    from repobot.cli.report import Terminal, print_answer
    from repobot.engine.chunk import Chunk
    from repobot.engine.result import Answer
    from repobot.engine.retrieve import Hit

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "esc\x1b[31m.md").write_text("# Setup \x1b]0;PWNED\x07 guide\n\nSet the wombat timeout.\n")
    env = {**os.environ, "REPOBOT_HOME": str(tmp_path / "home")}
    found = repobot("search", "wombat", "--corpus", str(tmp_path / "docs"), "--mode", "bm25", env=env)
    assert found.returncode == 0 and "\x1b" not in found.stdout and "\x07" not in found.stdout
    assert found.stdout.startswith("[1] esc\\x1b[31m.md:") and "Setup \\x1b]0;PWNED\\x07 guide" in found.stdout

    hits = [Hit(1, 0, Chunk("a.md", "", 1, 5, "t"), 0.5)]
    answer = Answer("Q?", "en", "m", [], hits, verdict="verified",
                    final_answer="Set \x1b[8mhidden\x1b[0m wombat_timeout=5 [1].\nNext line.")
    out = io.StringIO()
    print_answer(answer, Terminal(out))
    assert "Set \\x1b[8mhidden\\x1b[0m wombat_timeout=5 [1].\nNext line." in out.getvalue()
    assert answer.conversation is None and "saved in conversation" not in out.getvalue()
    answer.conversation = 4
    print_answer(answer, out)
    assert "(saved in conversation 4: continue it with --conversation 4)" in out.getvalue()


def test_a_bm25_search_of_a_new_folder_does_not_wait_for_the_embedding_and_a_hybrid_one_embeds_it(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Clients\n\nReuse one client for many requests.\n")
    env = {**os.environ, "REPOBOT_HOME": str(tmp_path / "home")}
    lexical = repobot("search", "client", "--corpus", str(tmp_path / "docs"), "--mode", "bm25", "--json", env=env)
    assert lexical.returncode == 0 and json.loads(lexical.stdout)["hits"][0]["source"] == "a.md"
    indexed = json.loads(repobot("index", "--corpus", str(tmp_path / "docs"), "--json", env=env).stdout)
    assert indexed["embedded_chunks"] == indexed["chunks"] == 1  # left for later by the BM25 search
    hybrid = repobot("search", "client", "--corpus", str(tmp_path / "docs"), "--json", env=env)
    assert hybrid.returncode == 0
    again = json.loads(repobot("index", "--corpus", str(tmp_path / "docs"), "--json", env=env).stdout)
    assert again["embedded_chunks"] == 0
    long = repobot("search", "client " * 1000, "--corpus", str(tmp_path / "docs"), "--json", env=env)
    assert len(json.loads(long.stdout)["searched_for"]) == 2000  # cut as ask cuts it, and said
    assert long.stderr == "note: The question was shortened from 6999 to 2000 characters.\n"


def test_a_search_refused_for_its_question_or_options_reads_no_folder(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Clients\n\nReuse one client for many requests.\n")
    env = {**os.environ, "REPOBOT_HOME": str(tmp_path / "home")}
    for args in (["x", "--k", "0"], ["🚀🔥"]):
        result = repobot("search", *args, "--corpus", str(tmp_path / "docs"), "--mode", "bm25", env=env)
        assert result.returncode == 2 and result.stderr.startswith("repobot: ")
    assert not (tmp_path / "home" / "indexes").exists() or not any((tmp_path / "home" / "indexes").iterdir())


def test_listing_the_conversations_of_a_folder_never_asked_about_leaves_nothing_behind(tmp_path):
    """`history` on a folder without markdown, or one never asked about, reads; it makes no store folder or file."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("not markdown\n")
    home = tmp_path / "home"
    listed = repobot("history", "--corpus", str(tmp_path / "notes"), env={**os.environ, "REPOBOT_HOME": str(home)})
    assert (listed.returncode, listed.stdout) == (0, f"No saved conversations for {(tmp_path / 'notes').resolve()}.\n")
    assert not (home / "indexes").exists()
    searched = repobot("history", "--corpus", str(tmp_path / "notes"), "--search", "proxy", "--json",
                       env={**os.environ, "REPOBOT_HOME": str(home)})
    assert searched.returncode == 0 and json.loads(searched.stdout) == []
    assert not (home / "indexes").exists()


def test_a_folder_whose_markdown_files_are_all_empty_is_said_in_one_line_with_the_fix(tmp_path, monkeypatch, capsys):
    """`ask` printed an empty "Retrieved: ", then that the documents do not mention "(no passages retrieved)"; `search`
    said no passage matched: the folder has nothing to search, and --corpus is to be pointed elsewhere."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline
    from tests.conftest import fake_models

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("")
    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(tmp_path / "docs",
                                                                                       models=fake_models()))
    said = (f"repobot: {tmp_path / 'docs'} has no text to search: its one markdown file, README.md, is empty. Point "
            "--corpus at the folder that holds your documentation.\n")
    for args in (["ask", "what is this?"], ["search", "what is this?"], ["search", "x", "--mode", "bm25", "--json"]):
        assert cli.main(args) == 2
        assert capsys.readouterr() == ("", said)
    (tmp_path / "docs" / "guide.md").write_text("---\ntitle: Guide\n---\n")  # front matter alone: no text either
    assert cli.main(["search", "x", "--mode", "bm25"]) == 2
    assert "its 2 markdown files are empty" in capsys.readouterr().err


def test_a_search_without_hits_suggests_only_another_mode_than_its_own(docs, monkeypatch, capsys):
    """`search x --mode dense` without hits suggested "try other words, or --mode dense"."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline, Search
    from tests.conftest import fake_models

    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(docs, models=fake_models()))
    monkeypatch.setattr(Pipeline, "search", lambda self, question, options: Search([]))
    said = {}
    for mode in ("bm25", "dense", "hybrid"):
        assert cli.main(["search", "zzzqqq", "--mode", mode]) == 0
        out, said[mode] = capsys.readouterr()
        assert out == ""
    assert said == {"bm25": "No passage matches 'zzzqqq': try other words, or --mode dense (by meaning).\n",
                    "dense": "No passage matches 'zzzqqq': try other words, or --mode bm25 (by words).\n",
                    "hybrid": "No passage matches 'zzzqqq': try other words.\n"}


def test_history_without_a_folder_says_it_listed_the_user_guides_and_that_conversations_are_kept_per_folder(
        tmp_path, monkeypatch, capsys):
    """`repobot history` said only "No saved conversations.": a user who had asked about a folder of their own
    thought its conversations were gone."""
    from repobot.cli import main as cli

    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path / "home"))
    assert cli.main(["history"]) == 0
    assert capsys.readouterr().out == ("No saved conversations for RepoBot's user guide. Conversations are kept per "
                                       "folder: add --corpus DIR.\n")
    assert cli.main(["history", "--search", "proxy"]) == 0
    assert capsys.readouterr().out == ("No saved conversations containing 'proxy' for RepoBot's user guide. "
                                       "Conversations are kept per folder: add --corpus DIR.\n")


def test_an_unknown_conversation_is_said_to_be_unknown_in_this_folder_not_in_this_collection(docs, monkeypatch, capsys):
    """"Collection" is the window's word; on the command line it is the folder given with --corpus."""
    from repobot.cli import main as cli

    monkeypatch.setenv("REPOBOT_HOME", str(docs / "home"))
    assert cli.main(["history", "--corpus", str(docs), "--export", "7"]) == 2
    assert capsys.readouterr().err == ("repobot: No conversation 7 in this folder; known ids: none yet. "
                                       "See `repobot history`.\n")


def test_a_note_on_pages_not_indexed_gives_the_command_line_its_command_not_the_windows_button():
    """The CLI said "to have them read too, add Japanese in Languages… (repobot index …)": a window's button."""
    import io

    from repobot.cli.report import print_answer
    from repobot.engine.languages import unindexed_note
    from repobot.engine.result import Answer

    note = unindexed_note("ja", {"en": 9, "ja": 4}, frozenset({"en"}), "/docs/fast api")
    answer = Answer("サーバーを再起動するには？", "ja", "m", [], [], verdict="not_found", final_answer="x", notes=[note])
    out = io.StringIO()
    print_answer(answer, out)
    assert ("note: Answered from the en pages. This folder also has 4 pages in Japanese, which were only searched for "
            "your question: to have them read too, run `repobot index --corpus '/docs/fast api' --languages en,ja`.\n"
            ) in out.getvalue()
    assert "Languages…" not in out.getvalue() and answer.notes == [note]  # the JSON and the window keep theirs


def test_a_translated_answer_shows_under_each_sentence_the_english_it_was_checked_as_and_so_does_its_export(
        docs, monkeypatch, capsys):
    """The note says "each sentence keeps the English it was checked as", but only the JSON's checked_as had it."""
    import re

    from repobot.cli import main as cli
    from tests.conftest import ask_with, redirects_in_chinese

    monkeypatch.setenv("REPOBOT_HOME", str(docs.parent / f"{docs.name}-home"))
    ask_with(redirects_in_chinese(), docs, monkeypatch)
    assert cli.main(["ask", "HTTPX 默认会跟随重定向吗？", "--corpus", str(docs)]) == 0
    out = capsys.readouterr().out
    assert "\nHTTPX 默认不跟随重定向 [1]。\n    核对所依据的原文：HTTPX does not follow redirects by default.\n" in out
    assert "每句都保留了核对时所依据的英文原句" in out
    conversation = re.search(r"已保存在对话 (\d+) 中", out)[1]
    assert cli.main(["history", "--corpus", str(docs), "--export", conversation]) == 0
    exported = capsys.readouterr().out
    assert ("- ✓ supported: HTTPX 默认不跟随重定向 [1]。\n  - checked as: HTTPX does not follow redirects by default.\n"
            in exported)


def test_an_answer_refused_before_the_model_ran_prints_no_model_timings(docs, monkeypatch, capsys):
    """A gate refusal printed "first token -, total 40 ms, 0 prompt tokens, 0.0 tokens/s"."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import Pipeline
    from tests.conftest import fake_models

    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(docs, models=fake_models()))
    assert cli.main(["ask", "How do I configure Kubernetes ingress annotations for Zookeeper?"]) == 0
    out = capsys.readouterr().out
    timings = [line for line in out.splitlines() if line.startswith("(retrieve ")]
    assert len(timings) == 1 and timings[0].endswith(" ms; the model was not run)")
    assert "first token" not in out and "tokens/s" not in out and "prompt tokens" not in out
    assert cli.main(["ask", "How do I configure Kubernetes ingress annotations for Zookeeper?", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)  # the JSON keeps every field
    assert answer["stop_reason"] == "gate" and answer["timings"]["prompt_tokens"] == 0
    assert set(answer["timings"]) == {"retrieve_ms", "first_content_ms", "first_token_ms", "total_ms", "tokens_per_s",
                                      "prompt_tokens"}


def test_the_checks_uncited_count_counts_the_sentences_it_lists(docs, monkeypatch, capsys):
    """"uncited 3" stood over one claim without a citation: the form check's count took in the heading and the HTML
    tag, which the list under it shows as exempt."""
    from repobot.cli import commands, main as cli
    from repobot.engine.pipeline import AskOptions, Pipeline
    from tests.conftest import fake_models

    reply = ('## Redirects\n\nHTTPX does not follow redirects by default [1].\n\n'
             '<img src="/img/tutorial/redirects/image01.png">\n\nSet a breakpoint in your editor.')
    monkeypatch.setattr(commands, "_pipeline", lambda args, with_model=False: Pipeline(docs, models=fake_models(reply)))
    assert cli.main(["ask", "Does HTTPX follow redirects by default?", "--no-retry"]) == 0
    out = capsys.readouterr().out
    summary = next(line for line in out.splitlines() if line.startswith("Check: "))
    listed = out.split(summary + "\n")[1].split("\n\nVerdict:")[0].splitlines()
    assert len(listed) == 4 and summary == "Check: cited [1], invalid none, uncited 1"
    assert [line.split()[1] for line in listed if "exempt" in line] == ["exempt", "exempt"]  # the heading, the HTML
    assert "Set a breakpoint in your editor." in next(line for line in listed if "exempt" not in line and "[" not in line)
    answer = Pipeline(docs, models=fake_models(reply)).ask("Does HTTPX follow redirects by default?",
                                                           AskOptions(retry=False))
    assert len(answer.check.uncited) == 3  # the JSON's form check, as the lesson counts, is unchanged
