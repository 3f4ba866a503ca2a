"""The terminal progress bar: stages timed from where they begin, never an absurd first rate."""

import io
import time

from repobot.cli.progress import ProgressBar


def test_a_stage_is_timed_from_the_call_before_its_first_one():
    out = io.StringIO()
    bar = ProgressBar(out, enabled=True, width=4)
    bar("chunk", 10, 10)
    bar("searchable", 0, 100)
    time.sleep(0.6)  # the first group of passages is being embedded
    bar("embed", 50, 100)
    last = out.getvalue().rsplit("\r", 1)[-1]
    assert last.startswith("embedding [##..] 50/100 passages")
    rate = float(last.split("  ")[1].removesuffix("/s"))
    assert 20 <= rate <= 90  # about 50 passages in 0.6 s, not 50 in a microsecond
    assert "searchable: 100 passages; embedding 100 passages for hybrid search" in out.getvalue()


def test_nothing_is_drawn_off_a_terminal():
    out = io.StringIO()
    ProgressBar(out)("embed", 1, 2)
    assert out.getvalue() == ""
