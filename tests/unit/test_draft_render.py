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


def test_an_unclosed_bold_span_in_the_line_being_written_is_bold_until_it_closes():
    assert draft_html("It is **not") == "It is <b>not</b>"  # it showed "It is **not" until the closing marks came
    assert draft_html("It is **not** followed, **by def") == "It is <b>not</b> followed, <b>by def</b>"
    assert draft_html("It is **") == "It is "  # the marks alone: nothing shown for them yet
    assert draft_html("- one\n- **two") == "• one<br>• <b>two</b>"
    assert draft_html("* item **bo") == "• item <b>bo</b>"  # a "* " bullet stays a bullet
    assert draft_html("* **") == "• "


def test_bold_marks_in_code_or_between_numbers_are_not_taken_for_an_open_bold_span():
    assert draft_html("Pass `**kwargs` on") == "Pass <code>**kwargs</code> on"
    assert draft_html("Pass `**kwar") == "Pass <code>**kwar</code>"  # inside the open code span
    assert draft_html("It is 2 ** 3") == "It is 2 ** 3"  # not followed by a word: not an opening
    assert draft_html("**Use `x`") == "Use <code>x</code>"  # bold cannot hold code here: the marks are hidden
    assert draft_html("It is **not\nNext") == "It is **not<br>Next"  # a finished line as written


def test_what_the_model_copies_from_its_prompt_is_not_shown_while_it_streams():
    """A reader watched a coffee machine's descaling cycle and ``<doc id="1" source="…`` go by in the draft; the checked
    answer leaves them out, so the draft does too, from their first words on."""
    pasted = "Use `verify=False` [1]. Start a descaling cycle from Python [1]:\n\n```python\nmachine.descale(tablets=1)\n```"
    for end in range(len("Use `verify=False` [1]. Start a desc"), len(pasted) + 1):
        shown = streamed_html(pasted[:end])
        assert "descal" not in shown.lower() and "machine" not in shown, pasted[:end]
        assert "verify=False" in shown
    assert "doc id" not in streamed_html('Set it [2].\n<doc id="1" source="environment_variables.md')
    assert "<docs>" not in streamed_html("Set it [2]. <docs>") and "Set it" in streamed_html("Set it [2]. <docs>")
    assert streamed_html("Start the client [1].") == streamed_html("Start the client [1].")  # not the example's
    assert "Start the client" in streamed_html("Start the client [1].")


def test_a_fence_just_typed_opens_its_code_block_and_does_not_show_two_backticks():
    assert draft_html("Run:\n```") == 'Run:<pre style="background:#f6f8fa"></pre>'  # it showed "Run:<br>``"
