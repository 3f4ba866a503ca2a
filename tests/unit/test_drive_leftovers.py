"""Leftovers of a new user's drive of the command line (docs/known-problems.md), each with a test that failed
before its mend."""

import pytest

from repobot.engine.answer import choose, verified
from repobot.engine.check import check_citations
from repobot.engine.quote import extractive
from repobot.engine.support import LEAD, REPEATS, Support, Unit


def test_a_quoted_code_block_shows_its_passage_id_in_the_text():
    """A code block quoted without the sentence that leads into it (the ``httpx.Cookies()`` example of [3]) showed
    as a bare fenced block in ``final_answer`` and the command line's text: only the window linked it."""
    ranked = [(Unit(3, 4, "cookies = httpx.Cookies()\ncookies.set('k', 'v', domain='example.org')", True, 2, "Cookies"),
               0.72),
              (Unit(2, 0, "A client sends the cookies of its jar with every request it makes.", False, 0, "Clients"),
               0.6),
              (Unit(3, 6, "Pass a Cookies instance to a client and it keeps them for you.", False, 4, "Cookies"), 0.5)]
    text = extractive(ranked, "en", asked="How do I send cookies with httpx.Cookies?").text
    lines = text.splitlines()
    end = lines.index("```", lines.index("```") + 1)  # the block's closing fence
    assert lines[end + 1] == "[3]"  # its id, on the line after it, as a quoted sentence ends with its own
    form = check_citations(text, 3)  # the form check reads the id line as a citation, not as an uncited sentence
    assert (form.cited, form.invalid) == ([2, 3], []) and all(s.startswith("**") for s in form.uncited)  # headings
    lead = [(Unit(1, 1, "Enable them per request like this:", False, 1), 0.7),
            (Unit(1, 2, "client.get(url, follow_redirects=True)", True, 2), 0.4)]
    led = extractive(lead, "en").text.splitlines()
    assert led[-4:] == ["> Enable them per request like this: [1]", "```", "client.get(url, follow_redirects=True)",
                        "```"]  # the quote that leads into it, right above, gives its id already


@pytest.mark.parametrize("lead", ["For example:", "Par exemple :", "在代码中："])
def test_a_lead_in_after_a_sentence_that_failed_is_not_shown(lead):
    """The shown answer opened on "Par exemple :" when the sentence it led on from failed the support check."""
    code = "transport = httpx.HTTPTransport(retries=1)"
    answer = (f"HTTPX retries every failed request three times [1]. {lead}\n\n```python\n{code}\n```\n\n"
              "Connection retries are set on the transport [2].")
    failed = Support("HTTPX retries every failed request three times [1].", [1], "unsupported", {1: 0.2}, None, "")
    sentences = [failed, Support(lead, [], "exempt", {}, None, LEAD),
                 Support(code, [], "supported", {2: 1.0}, 2, "Copied from passage [2].", True),
                 Support("Connection retries are set on the transport [2].", [2], "supported", {2: 0.9}, None, "")]
    choice = choose(sentences, answer, [], "en")
    assert choice.verdict == "verified"
    assert choice.text.startswith(f"```python\n{code}\n```") and lead not in choice.text
    assert [s.is_code for s in choice.sentences] == [True, False]
    shown_first = Support("Retries are set on the transport [2].", [2], "supported", {2: 0.9}, None, "")
    kept = verified([shown_first] + sentences[1:3], f"Retries are set on the transport [2]. {lead}\n\n```python\n{code}\n```")
    assert kept.text.startswith(f"Retries are set on the transport [2]. {lead}")  # it leads on from a shown sentence
    said = "The correct way to stream a request body with the async client is:"  # it says what the code does
    own = verified([failed, Support(said, [], "exempt", {}, None, LEAD)] + sentences[2:3], answer.replace(lead, said))
    assert own.text.startswith(said)
    repeats = Support("Switched to AsyncClient and now it fails.", [], "exempt", {}, None, REPEATS)  # not a claim
    after = verified([repeats] + sentences[1:3], answer.replace("HTTPX retries every failed request three times [1].",
                                                                repeats.text))
    assert after.text.startswith(lead)  # only a claim left out leaves a lead dangling
    named = Support("Set it with `retries=1` [2]:", [2], "exempt", {2: 0.8}, None, LEAD)  # a passage backs what it says
    alone = verified([failed, named] + sentences[2:3], answer.replace(lead, named.text))
    assert alone.text.startswith("Set it with `retries=1` [2]:")


def test_the_command_lines_labels_are_in_the_answers_language_and_its_json_is_unchanged(docs, monkeypatch, capsys):
    """Under a Chinese answer, `ask` printed "Retrieved:", "Check: …", "Verdict: verified" and "Sources:" in English."""
    import io
    import json

    from repobot.cli.report import print_answer
    from repobot.engine.result import Answer
    from tests.conftest import ask_with, redirects_in_chinese

    ask = ask_with(redirects_in_chinese(), docs, monkeypatch)
    assert ask(["ask", "HTTPX 默认会跟随重定向吗？"]) == 0
    out = capsys.readouterr().out
    for english in ("Retrieved:", "Check:", "Verdict:", "Sources:", "checked as:", "saved in conversation"):
        assert english not in out
    lines = out.splitlines()
    assert lines[0].startswith("检索到的段落：[1] guide/redirects.md")
    assert "结论：已核实" in lines and "    核对所依据的原文：HTTPX does not follow redirects by default." in lines
    assert any(line.startswith("检查：引用 [1]，无效 无，未引用 0") for line in lines)
    assert any(line.startswith("  ✓ 有依据 ") for line in lines)
    assert any(line.startswith("来源：[1] guide/redirects.md:") for line in lines)
    assert ask(["ask", "HTTPX 默认会跟随重定向吗？", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)  # the JSON keeps its English field names and values
    assert answer["verdict"] == "verified" and answer["language"] == "zh" and "final_sentences" in answer
    french = io.StringIO()
    print_answer(Answer("Q ?", "fr", "m", [], [], verdict="not_found", final_answer="x", stop_reason="gate",
                        missing_terms=["Zookeeper"]), french)
    assert "(pas de réponse générée : les documents ne mentionnent pas Zookeeper)" in french.getvalue()
    assert "Verdict : introuvable" in french.getvalue()
    english = io.StringIO()
    print_answer(Answer("Q?", "en", "m", [], [], verdict="not_found", final_answer="x"), english)
    assert "\nVerdict: not_found\n" in english.getvalue() and "Check: cited [], invalid none, uncited 0" in english.getvalue()


def test_every_language_says_every_command_line_text_with_the_fields_english_formats():
    """A translator's text that drops or misspells a field ({shown}) would raise a KeyError in the middle of an
    answer, or print a language name it never filled in."""
    import string

    from repobot.engine.languages import LANGUAGES

    def fields(text):
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    english = LANGUAGES["en"].command_line
    for code, lang in LANGUAGES.items():
        assert set(lang.names) == set(LANGUAGES), code  # each answer language named in each
        for key, text in english.items():
            assert fields(lang.command_line[key]) == fields(text), (code, key)


def test_the_notes_and_timings_of_an_answer_are_printed_in_its_language_and_unknown_notes_in_english():
    """`repobot ask` in Japanese printed its labels in Japanese, then "note: …" and "(retrieve … tokens/s)"."""
    import io

    from repobot.cli.report import print_answer
    from repobot.engine.result import Answer, Timings
    from repobot.engine.translate import untranslated_note

    notes = [untranslated_note(2, "en", "ja"), "Generation stopped: length."]
    answer = Answer("Q？", "ja", "m", [], [], verdict="extractive", final_answer="x", notes=notes,
                    timings=Timings(retrieve_ms=12, first_content_ms=30, first_token_ms=3100, total_ms=7000,
                                    prompt_tokens=900, tokens_per_s=35.0))
    out = io.StringIO()
    print_answer(answer, out)
    lines = out.getvalue().splitlines()
    assert "注：2 文を英語のまま表示しています：ローカルモデルは忠実な日本語訳を出せませんでした。" in lines
    assert "note: Generation stopped: length." in lines  # a note the languages file lacks, all of it in English
    assert "（検索 12 ms、引用 30 ms、最初のトークン 3100 ms、合計 7000 ms、プロンプト 900 トークン、毎秒 35.0 トークン）" in lines
    assert answer.to_json()["notes"] == notes  # the JSON keeps the engine's English
