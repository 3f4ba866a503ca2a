"""The terminal progress bar: stages timed from where they begin, never an absurd first rate."""

import io

from repobot.cli.progress import ProgressBar


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_stage_is_timed_from_the_call_before_its_first_one():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(out, enabled=True, width=4, clock=clock)
    clock.now += 3.0
    bar("chunk", 10, 10)
    bar("searchable", 0, 100)
    clock.now += 0.6  # the first group of passages is being embedded
    bar("embed", 50, 100)
    last = out.getvalue().rsplit("\r", 1)[-1]
    # 50 passages in the 0.6 s since the "searchable" call: not 50 in the microsecond since the first "embed" call,
    # and not 50 in the 3.6 s since the bar was made
    assert last == "embedding [##..] 50/100 passages  83/s  ETA 1s"
    assert "searchable: 100 passages; embedding 100 passages for hybrid search" in out.getvalue()


def test_nothing_is_drawn_off_a_terminal():
    out = io.StringIO()
    ProgressBar(out)("embed", 1, 2)
    assert out.getvalue() == ""


def test_work_that_stops_once_searchable_does_not_say_it_is_embedding():
    """`repobot search --mode bm25` indexes a new folder up to BM25 only: the rest is embedded by a later hybrid use."""
    out = io.StringIO()
    ProgressBar(out, enabled=True, embeds=False)("searchable", 0, 293)
    assert out.getvalue() == "searchable: 293 passages; 293 passages not embedded yet (a hybrid search embeds them)\n"


def test_waiting_for_another_repobot_is_said_once_and_the_embedding_after_it_is_timed_from_its_end():
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(out, enabled=True, width=4, clock=clock)
    bar("searchable", 0, 100)
    for _ in range(50):  # the other RepoBot embeds for 10 s
        clock.now += 0.2
        bar("wait", 0, 100)
    clock.now += 1.0
    bar("embed", 100, 100)
    lines = out.getvalue().split("\n")
    assert lines[1] == "another RepoBot is embedding this folder: waiting to use its work (Ctrl-C stops)"
    assert out.getvalue().count("another RepoBot") == 1
    assert lines[2] == "\rembedding [####] 100/100 passages  100/s  ETA 0s"
    quiet = io.StringIO()  # off a terminal (a script, `2>log`, --json) the bar is off, but a wait is still said
    bar = ProgressBar(quiet, enabled=False)
    bar("wait", 0, 100), bar("wait", 0, 100), bar("embed", 50, 100)
    assert quiet.getvalue() == lines[1] + "\n"


def test_the_bar_writes_to_stderr_as_it_is_when_the_bar_is_made(monkeypatch):
    """The default stream was sys.stderr as it was when the module was imported: once that stream was closed (a test's
    captured stderr), every later bar failed with "I/O operation on closed file"."""
    now = io.StringIO()
    monkeypatch.setattr("sys.stderr", now)
    ProgressBar(enabled=True)("searchable", 0, 3)
    assert now.getvalue() == "searchable: 3 passages; embedding 3 passages for hybrid search\n"


def test_the_first_stage_shows_no_rate_until_it_has_timed_a_few_files_of_its_own():
    """`repobot index`'s first line read "1/23 files 0/s ETA 465s": the first file's stage was timed from when the bar
    was made, before the folder was read and the embedder loaded."""
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(out, enabled=True, width=4, clock=clock)
    clock.now += 20.0  # the folder read, the embedder loaded
    bar("chunk", 1, 23)
    clock.now += 0.3
    bar("chunk", 2, 23)
    clock.now += 0.3
    bar("chunk", 4, 23)
    assert out.getvalue().split("\r")[1:] == ["  reading [....] 1/23 files", "  reading [....] 2/23 files",
                                              "  reading [....] 4/23 files  5/s  ETA 4s"]  # 3 files in 0.6 s
