"""Each support status, with a deterministic embedder (the real one is tested in integration)."""

from repobot.engine.prompt import link_text
from repobot.engine.answer import verified
from repobot.engine.support import UNBACKED_HEADING, UNBACKED_LEAD, SupportChecker, passage_units
from repobot.engine.support_score import SUPPORT_THRESHOLD

PASSAGES = [
    "## Redirects\nHTTPX does not follow redirects by default. Enable them with `follow_redirects=True`:\n"
    "```python\nclient = httpx.Client(follow_redirects=True)\n```",
    "## Timeouts\nThe default timeout is five seconds of network inactivity. Use `timeout=None` to disable it.",
]


def check(fake_embedder, answer):
    return SupportChecker(fake_embedder, PASSAGES).check_answer(answer)


def test_supported(fake_embedder):
    [s] = check(fake_embedder, "HTTPX does not follow redirects by default [1].")
    assert s.status == "supported" and s.suggested is None and s.support[1] > s.support[2]


def test_miscited_names_the_passage_that_supports_it(fake_embedder):
    [s] = check(fake_embedder, "The default timeout is five seconds of network inactivity [1].")
    assert s.status == "miscited" and s.suggested == 2
    assert "[2]" in s.reason


def test_a_sentence_naming_what_the_documents_never_mention_is_unsupported(fake_embedder):
    checker = SupportChecker(fake_embedder, PASSAGES)
    sentence = "HTTPX does not follow redirects by default, even with LDAP [1]."
    assert checker.check_answer(sentence)[0].status == "supported"  # close enough to passage 1 on its own
    [s] = checker.check_answer(sentence, absent=["LDAP", "DATABASE_URL"])
    assert s.status == "unsupported" and "LDAP" in s.reason and "DATABASE_URL" not in s.reason
    assert checker.check_answer("HTTPX does not follow redirects by default [1].", absent=["LDAP"])[0].status == "supported"


def test_a_sentence_naming_what_the_question_asks_about_and_no_passage_mentions_is_unsupported(fake_embedder):
    """Seen: "You can deploy your FastAPI app to AWS Lambda with just one command [3]", backed by FastAPI Cloud's
    page; "Lambda" is in the release notes only, so the gate let the model try (``gate.unseen``)."""
    checker = SupportChecker(fake_embedder, PASSAGES)
    sentence = "HTTPX does not follow redirects by default on AWS Lambda [1]."
    assert checker.check_answer(sentence)[0].status == "supported"  # close enough to passage 1 on its own
    [s] = checker.check_answer(sentence, unseen=["AWS", "Lambda"])
    assert s.status == "unsupported" and "AWS, Lambda" in s.reason and "none of the passages" in s.reason
    french = checker.check_sentence("Elle ne suit pas les redirections [1].", "It does not follow redirects on Lambda.",
                                    unseen=["Lambda"])
    assert french.status == "unsupported" and "Lambda" in french.reason  # named in the English it was checked as


def test_unsupported(fake_embedder):
    [s] = check(fake_embedder, "HTTPX ships a built-in HTTP/3 server written in Rust [1].")
    assert s.status == "unsupported"


def test_uncited_suggests_an_id(fake_embedder):
    [s] = check(fake_embedder, "Use `timeout=None` to disable the timeout.")
    assert s.status == "uncited" and s.suggested == 2


def test_identifier_missing_from_the_cited_passage_is_not_supported(fake_embedder):
    [s] = check(fake_embedder, "HTTPX does not follow redirects by default, see `max_redirects` [1].")
    assert s.status != "supported"


def test_a_name_is_backed_by_the_same_name_not_by_the_words_it_is_made_of(fake_embedder):
    checker = SupportChecker(fake_embedder, ["Pass a custom certificate store to the client as `verify = ctx`."])
    [named] = checker.check_answer("Pass a custom `CertificateStore` to the client [1].")
    [spaced] = checker.check_answer("Pass a custom certificate store to the client as `verify=ctx` [1].")
    assert named.status == "unsupported" and spaced.status == "supported"


def test_exempt_escape_phrase_and_colon_line(fake_embedder):
    statuses = [s.status for s in check(fake_embedder, "The documents do not cover this.\nEnable it like this [1]:")]
    assert statuses == ["exempt", "exempt"]


def test_code_block_supported_up_to_whitespace_and_invented_code_not(fake_embedder):
    answer = (
        "Enable it like this [1]:\n```python\nclient = httpx.Client(\n    follow_redirects=True\n)\n```\n"
        "Or:\n```python\nhttpx.enable_magic()\n```"
    )
    code = [s for s in check(fake_embedder, answer) if s.is_code]
    assert [c.status for c in code] == ["supported", "unsupported"]
    assert code[0].suggested == 1


def test_a_fence_left_open_at_the_end_of_an_answer_is_not_a_claim(fake_embedder):
    answer = "HTTPX does not follow redirects by default [1].\n```python\nclient = httpx.Client(follow_redirects=True)\n```\n```"
    checked = check(fake_embedder, answer)
    assert [(s.status, s.is_code) for s in checked] == [("supported", False), ("supported", True)]


def test_a_link_definition_is_neither_a_passage_sentence_nor_sent_to_the_model():
    passage = "HTTPX requires Python 3.9+\n\n[sync-support]: https://github.com/encode/httpx/issues/572\n"
    assert [text for text, *_ in passage_units(passage)] == ["HTTPX requires Python 3.9+"]
    assert "github.com" not in link_text(passage)


def test_a_line_leading_into_code_that_names_something_no_passage_backs_is_not_shown(fake_embedder):
    answer = ("Enable them with `follow_redirects=True` [1]:\n```python\nclient = httpx.Client(follow_redirects=True)\n```\n"
              "Turn checks off with `verify=False` [1]:\n```python\nclient = httpx.Client(follow_redirects=True)\n```")
    checked = check(fake_embedder, answer)
    assert [s.status for s in checked] == ["exempt", "supported", "exempt", "supported"]
    assert checked[0].reason != UNBACKED_LEAD and checked[2].reason == UNBACKED_LEAD
    shown = verified(checked, answer).text
    assert "follow_redirects=True` [1]:" in shown and "verify=False" not in shown


def test_invalid_id_is_unsupported(fake_embedder):
    [s] = check(fake_embedder, "HTTPX does not follow redirects by default [7].")
    assert s.status in ("miscited", "unsupported")
    assert s.status == "miscited" and s.suggested == 1


def test_a_sentence_that_repeats_the_question_is_exempt_and_the_answer_after_it_is_checked(fake_embedder):
    question = "Our gateway only whitelists one address. Does HTTPX follow redirects by default?"
    checker = SupportChecker(fake_embedder, PASSAGES, question=question)
    echo, claim = checker.check_answer("Our gateway only whitelists one address. HTTPX does not follow redirects "
                                       "by default [1].")
    assert echo.status == "exempt" and "repeats the question" in echo.reason
    assert claim.status == "supported"


def test_code_copied_from_a_repl_session_or_with_another_url_is_supported_and_changed_code_is_not(fake_embedder):
    passages = [">>> r = httpx.get('https://httpbin.org/get')\n>>> r.status_code\n200\n>>> r.headers['content-type']"]
    checker = SupportChecker(fake_embedder, passages)
    assert checker.check_code("r = httpx.get('https://example.com/api')\nr.headers['content-type']").status == "supported"
    assert checker.check_code("r = httpx.get('https://example.com/api', verify=False)").status == "unsupported"
    assert checker.check_code("r.headers['content-type']\nr = httpx.get('https://x.org')").status == "unsupported"


def test_a_docs_build_include_line_copied_by_the_model_is_exempt_and_not_shown(fake_embedder):
    from repobot.engine.answer import choose

    passages = [PASSAGES[0] + "\n\n{* ../../docs_src/redirects/tutorial001_py310.py hl[2] *}\n"]
    answer = "HTTPX does not follow redirects by default [1].\n{* ../../docs_src/redirects/tutorial001_py310.py hl[2] *}"
    claim, include = SupportChecker(fake_embedder, passages).check_answer(answer)
    assert claim.status == "supported"
    assert include.status == "exempt" and "outside the folder" in include.reason
    choice = choose([claim, include], answer, [], "en")
    assert choice.verdict == "verified" and "docs_src" not in choice.text


def test_code_the_model_adapted_from_an_example_shows_the_example_and_invented_names_do_not(fake_embedder):
    example = ("def log_request(request):\n    print(f\"Request: {request.method} {request.url}\")\n\n"
               "client = httpx.Client(event_hooks={'request': [log_request], 'response': [log_response]})")
    passages = ["Register hooks on the client:\n```python\n" + example + "\n```", "A longer example:\n```python\n"
                + example + "\nresponse = client.get(url)\nresponse.raise_for_status()\n```"]
    checker = SupportChecker(fake_embedder, passages, question="How do I print the method and url of each request?")
    trimmed = ("def log_request(request):\n    print(request.method, request.url)\n\n"
               "client = httpx.Client(event_hooks={'request': [log_request]})")
    adapted = checker.check_code(trimmed)
    assert (adapted.status, adapted.suggested, adapted.example) == ("supported", 1, example)  # the smaller block
    assert "Adapts the example in passage [1]" in adapted.reason
    invented = checker.check_code("client = httpx.Client(event_hooks={'request': [log_request]})\nprint(r.elapsed)")
    assert invented.status == "unsupported" and invented.example is None
    assert checker.check_code("print(x)").status == "unsupported"  # too few names to tell what it adapts
    assert checker.check_code("print(request.method, request.url)").status == "unsupported"  # the question's own


def test_an_adapted_url_is_shown_as_the_example_of_the_same_shape(fake_embedder):
    # The model put the user's own parameter in the docs' URL: the block with a query string is its example, not the
    # bare URL further down, which also has every name left once the user's own are set aside.
    passages = ["Then, with a URL like:\n```\nhttp://localhost:8000/items/?q=foo&q=bar\n```\nyou receive a list.\n\n"
                "If you go to:\n```\nhttp://localhost:8000/items/\n```\nthe default is used."]
    checker = SupportChecker(fake_embedder, passages, question="how do I make a param accept a list like ?tag=a&tag=b")
    adapted = checker.check_code("http://localhost:8000/items/?tag=a&tag=b")
    assert (adapted.status, adapted.example) == ("supported", "http://localhost:8000/items/?q=foo&q=bar")


def test_code_that_keeps_an_examples_telling_lines_is_shown_as_that_example_not_one_with_only_its_names(
        fake_embedder):
    """Seen with the 0.5B after "How do I set a timeout for an asynchronous request?": its block kept the timeouts
    page's line (without the line's comment) and added a plain ``client.get``, and the extensions page's block, which
    has every one of its names but sets no ``timeout=``, was shown in its place."""
    extensions = ("# Timeout if a connection takes more than 5 seconds to established.\nclient = httpx.Client()\n"
                  "response = client.get(\n    \"https://www.example.com\",\n"
                  "    extensions={\"timeout\": {\"connect\": 5.0, \"pool\": 10.0}}\n)")
    timeouts = ("client = httpx.Client()              # Use a default 5s timeout everywhere.\n"
                "client = httpx.Client(timeout=10.0)  # Use a default 10s timeout everywhere.")
    passages = ["Set it per request:\n```python\n" + extensions + "\n```",
                "Set a timeout on a client instance:\n```python\n" + timeouts + "\n```"]
    checker = SupportChecker(fake_embedder, passages, question="How do I set a timeout for an asynchronous request?")
    code = checker.check_code("client = httpx.Client(timeout=10.0)\nresponse = client.get('https://www.example.com/')")
    assert (code.status, code.suggested, code.example) == ("supported", 2, timeouts)
    copied = checker.check_code("client = httpx.Client(timeout=10.0)")  # a trailing comment is no part of the code
    assert (copied.status, copied.suggested, copied.example) == ("supported", 2, None)


def test_each_unit_knows_the_section_it_is_in(fake_embedder):
    passages = ["A sentence before any heading.\n\n## Event hooks { #hooks }\n\nHooks run on every request.",
                "No heading in this one at all."]
    checker = SupportChecker(fake_embedder, passages, sections=["Opening section"])
    assert [(u.pid, u.text, u.section) for u in checker.units] == [
        (1, "A sentence before any heading.", "Opening section"), (1, "Event hooks", "Event hooks"),
        (1, "Hooks run on every request.", "Event hooks"), (2, "No heading in this one at all.", "")]


def test_words_the_question_already_has_are_weaker_evidence(fake_embedder):
    # The passage was retrieved for the question's words; saying them back does not show that it says the claim.
    passages = ["Mount another FastAPI application as a sub-application with app.mount."]
    sentence = "Yes, you can mount a Flask application."
    alone = SupportChecker(fake_embedder, passages).scores(sentence)[1]
    asked = SupportChecker(fake_embedder, passages, question="Can I mount a Flask application?").scores(sentence)[1]
    assert asked < alone
    other = SupportChecker(fake_embedder, passages, question="How do I serve a Django site?")  # shares no word
    assert other.scores(sentence)[1] == alone


def test_a_heading_the_model_copies_is_shown_in_bold_without_ids_and_is_not_a_claim(fake_embedder):
    answer = "## Redirects [1]\n\nHTTPX does not follow redirects by default [1].\n\n## Connection pooling over QUIC\n"
    checked = check(fake_embedder, answer)
    assert [(s.status, s.reason == UNBACKED_HEADING) for s in checked] == [
        ("exempt", False), ("supported", False), ("exempt", True)]
    shown = verified(checked, answer).text
    assert shown.startswith("**Redirects**\n") and "[1]\n" not in shown and "QUIC" not in shown


def test_an_html_tag_the_model_copies_is_not_a_claim_and_not_shown(fake_embedder):
    answer = 'HTTPX does not follow redirects by default [1].\n\n<img src="/img/redirects.png"> [1]\n'
    checked = check(fake_embedder, answer)
    assert [s.status for s in checked] == ["supported", "exempt"]
    assert "<img" not in verified(checked, answer).text


def test_a_passage_that_says_the_opposite_backs_no_claim_through_its_other_units(fake_embedder):
    # The lesson's case: "Unlike requests, HTTPX does not follow redirects by default", then a positive line (in the
    # docs, the example `httpx.Client(follow_redirects=True)`) that alone would back "HTTPX follows redirects".
    checker = SupportChecker(fake_embedder, ["HTTPX does not follow redirects by default.\n"
                                             "A client will follow redirects when told."])
    [wrong] = checker.check_answer("HTTPX will follow redirects by default [1].")
    [right] = checker.check_answer("HTTPX does not follow redirects by default [1].")
    [other] = checker.check_answer("A client will follow redirects when told [1].")
    assert wrong.status == "unsupported" and wrong.support[1] < 0.6
    assert right.status == "supported" and other.status == "supported"


def test_no_weight_lets_a_sentence_naming_what_its_passage_lacks_through():
    """The cap and the contradiction penalty are rules on top of the fitted model: whatever the signals, a passage
    lacking a name or number the sentence gives, or saying the opposite, never reaches the threshold."""
    import itertools

    from repobot.engine.support_score import SUPPORT_THRESHOLD, Signals, support_score

    grid = [0.0, 0.5, 1.0]
    for sim, ov, ov_all, length in itertools.product(grid, grid, grid, (1, 10, 40)):
        best = Signals(sim, ov, ov_all, 1.0, True, False, length)
        assert support_score(best._replace(identifiers=0.5)) < SUPPORT_THRESHOLD
        assert support_score(best._replace(numbers_ok=False)) < SUPPORT_THRESHOLD
        assert support_score(best._replace(contradicted=True)) < SUPPORT_THRESHOLD
    assert support_score(Signals(1.0, 1.0, 1.0, 1.0, True, False, 10)) >= SUPPORT_THRESHOLD


def test_the_logistic_fit_recovers_the_weights_of_a_known_model():
    import numpy as np

    from benchmarks.support_fit import fit_logistic

    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(2.0 * x[:, 0] - 1.0 * x[:, 1] + 0.5)))).astype(float)
    weights, intercept = fit_logistic(x, y, c=100.0)
    assert np.allclose(weights, [2.0, -1.0], atol=0.2) and abs(intercept - 0.5) < 0.2


def test_a_tooltips_full_stop_ends_no_sentence_of_a_passage():
    # FastAPI's pages put jokes in <dfn title="…">; cut at the title's full stop, a quote read '🍪">cookies in FastAPI.'
    passage = ('You can use **Pydantic models** to declare <dfn title="Have a last cookie before you go. 🍪">**cookies**'
               '</dfn> in **FastAPI**. 😎')
    assert [text for text, *_ in passage_units(passage)] == ["You can use Pydantic models to declare cookies in FastAPI."]


def test_a_sentence_copied_from_its_passage_is_backed_even_when_its_code_holds_a_negation_word(fake_embedder):
    """httpx's "The first element is an optional file name which can be set to `None`." was read as negative in the
    answer (code kept) but positive in the passage (markup stripped), so its own source "contradicted" it."""
    passage = "Files can be tuples.\n\n- The first element is an optional file name which can be set to `None`."
    checker = SupportChecker(fake_embedder, [passage])
    [s] = checker.check_answer("- The first element is an optional file name which can be set to `None`.")
    assert not checker.signals(s.text, s.text)[1].contradicted
    assert s.status == "uncited" and s.suggested == 1


def test_a_ranking_no_passage_makes_is_not_supported_however_close_its_words(fake_embedder):
    both_fast = "## Requests or HTTPX?\nHTTPX is a fast client, and so is requests."
    checker = SupportChecker(fake_embedder, [both_fast, "## Speed\nHTTPX is faster than requests."])
    scores = checker.scores("HTTPX is faster than requests [1].")
    assert scores[1] < SUPPORT_THRESHOLD <= scores[2]  # passage 1 has the words (it scored 0.53 before the rule)
    assert checker.check_answer("HTTPX is faster than requests [1].")[0].suggested == 2


def test_a_value_no_passage_gives_is_not_supported_however_close_its_words(fake_embedder):
    """"Set the `SSL_CERT_FILE` environment variable to an empty string [1]" passed at 0.503 against a passage
    that names the variable and no such value (the user had asked how to turn certificate checks off)."""
    passage = ("## `SSL_CERT_FILE`\nValid values: a filename\n\nIf this environment variable is set then HTTPX will "
               "load CA certificate from the specified file instead of the default location.")
    checker = SupportChecker(fake_embedder, [passage, 'Example: `SSL_CERT_FILE=""` turns the variable off.'])
    sentence = "Set the `SSL_CERT_FILE` environment variable to an empty string [1]."
    assert not checker.signals(sentence, sentence)[1].numbers_ok and checker.signals(sentence, sentence)[2].numbers_ok
    assert checker.scores(sentence)[1] < SUPPORT_THRESHOLD


def test_a_yes_or_no_before_the_claim_does_not_steer_it_to_a_passage_that_says_no(fake_embedder):
    """"No, HTTPX does not follow redirects by default." was attributed to a passage on request instantiation
    ("There is no notion of prepared requests"), because that one had the word "no" and the one that says it did not."""
    passages = ["## Redirects\nHTTPX does not follow redirects by default, unlike requests.",
                "## Request instantiation\nThere is no notion of prepared requests in HTTPX. It does not follow "
                "the same rules."]
    checker = SupportChecker(fake_embedder, passages)
    [s] = checker.check_answer("No, HTTPX does not follow redirects by default.")
    assert s.status == "uncited" and s.suggested == 1
    assert checker.scores("No, HTTPX does not follow redirects by default.") == checker.scores(
        "HTTPX does not follow redirects by default.")


def test_a_sentence_saying_the_opposite_word_of_its_passage_is_not_backed_by_it(fake_embedder):
    """Seen: "The `item_id` path parameter is optional [1]" scored 0.618 against FastAPI's "A path parameter is
    always required" (0.371 since): the check knew "not", but not opposite words."""
    page = "## Order the parameters\nA path parameter is always required as it has to be part of the path."
    checker = SupportChecker(fake_embedder, [page])
    assert checker.signals("A path parameter is optional.", "A path parameter is optional.")[1].contradicted
    assert not checker.signals("A path parameter is required.", "A path parameter is required.")[1].contradicted
    both = SupportChecker(fake_embedder, ["A query parameter is optional; a path parameter is required."])
    assert not both.signals("A path parameter is optional.", "A path parameter is optional.")[1].contradicted
