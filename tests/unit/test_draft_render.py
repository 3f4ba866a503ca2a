"""The answer as it streams in (desktop/render.draft_html): a code span is code before its closing backtick comes."""

from repobot.desktop.render import draft_html, streamed_html


def test_an_unclosed_code_span_in_the_line_being_written_shows_as_code_not_as_a_backtick():
    assert draft_html("Pass `follow_redi") == "Pass <code>follow_redi</code>"
    assert draft_html("Pass `follow_redirects=True` [1]. Or `") == (
        'Pass <code>follow_redirects=True</code> <a href="cite:-1:1">[1]</a>. Or ')
    assert "`" not in streamed_html("- use `httpx.Cli")  # a bullet too
    assert draft_html("Run:\n``") == draft_html("Run:\n")  # a fence being typed shows nothing yet
    assert draft_html("Run:\n```python\nx = `a") == 'Run:<pre style="background:#f6f8fa">x = `a</pre>'  # code as written


def test_a_finished_line_keeps_a_lone_backtick_as_written():
    assert draft_html("A ` alone.\nNext") == "A ` alone.<br>Next"
