"""Choosing what is shown: the model's checked answer (citations corrected or added), quotes, or the fixed phrase."""

from repobot.engine.answer import choose, verified
from repobot.engine.quote import extractive
from repobot.engine.support import LEAD, REPEATS, Support, Unit

RANKED = [
    (Unit(1, 0, "HTTPX does not follow redirects by default, unlike requests.", False), 0.8),
    (Unit(1, 1, "Enable them per request like this:", False), 0.5),
    (Unit(1, 2, "client.get(url, follow_redirects=True)", True), 0.4),
    (Unit(2, 0, "Timeouts default to five seconds of network inactivity.", False), 0.1),
]


def prose_ranked(*scored):
    """Ranked prose units of passage 1, one paragraph each, from (text, relevance) pairs, best first."""
    return [(Unit(1, n, text, False, n + 1), score) for n, (text, score) in enumerate(scored)]


def sentence(text, cited, status, suggested=None, code=False):
    return Support(text, cited, status, {1: 0.9, 2: 0.1}, suggested, "", code)


def test_uncited_and_miscited_sentences_get_the_passage_that_supports_them():
    answer = "Redirects are off by default. You enable them per request [2]. Made up [1]."
    sentences = [sentence("Redirects are off by default.", [], "uncited", 1),
                 sentence("You enable them per request [2].", [2], "miscited", 1),
                 sentence("Made up [1].", [1], "unsupported")]
    choice = choose(sentences, answer, RANKED, "en")
    assert choice.verdict == "verified"
    assert choice.text.startswith("Redirects are off by default [1]. You enable them per request [1].\n\n"
                                  "```\nclient.get(url, follow_redirects=True)\n```\n\n"  # what its sentence leads into
                                  "Also in the documents:")  # then the quote of what it does not say
    assert [s.cited_by for s in choice.sentences[:3]] == ["checker", "checker", "checker"]


def test_invented_ids_are_never_shown():
    answer = "Redirects are off by default [1][7]."
    choice = verified([sentence(answer, [1, 7], "supported")], answer)
    assert choice.text == "Redirects are off by default [1]." and choice.sentences[0].cited_by == "model"


def test_unsupported_code_is_dropped_and_copied_code_kept():
    answer = "Enable it:\n```python\nclient.get(url, follow_redirects=True)\n```\n```python\nmagic()\n```"
    sentences = [Support("Enable it:", [], "exempt", {}, None, ""),
                 sentence("client.get(url, follow_redirects=True)", [], "supported", 1, code=True),
                 sentence("magic()", [], "unsupported", code=True)]
    choice = verified(sentences, answer)
    assert "follow_redirects=True" in choice.text and "magic" not in choice.text


def test_a_backed_line_leading_into_shown_code_gets_the_checkers_id():
    """"You can install SOCKS support using `pip`:" (a passage's own line), left uncited before the command it
    introduces, was shown with no id; in Chinese it then read as an uncited claim."""
    answer = "You can install SOCKS support using `pip`:\n\n```shell\n$ pip install httpx[socks]\n```"
    sentences = [Support("You can install SOCKS support using `pip`:", [], "exempt", {1: 0.79, 2: 0.3}, None, LEAD),
                 Support("$ pip install httpx[socks]", [], "supported", {1: 1.0}, 1, "Copied from passage [1].", True)]
    choice = verified(sentences, answer)
    assert choice.text.startswith("You can install SOCKS support using `pip` [1]:\n\n```shell\n$ pip install")
    lead = choice.sentences[0]
    assert (lead.cited, lead.cited_by, lead.status) == ([1], "checker", "exempt")
    unscored = [Support("Here's an example:", [], "exempt", {}, None, LEAD), sentences[1]]
    assert verified(unscored, answer.replace("You can install SOCKS support using `pip`:", "Here's an example:")
                    ).text.startswith("Here's an example:\n")  # it names nothing: no passage is said to back it


def test_a_line_leading_into_code_that_is_not_shown_is_dropped_or_ends_as_a_sentence():
    """The model's code failed the check: "Here's an example:" would lead into nothing, and the next paragraph would
    start with the space that followed the dropped code's sentence."""
    answer = ("Off by default [1]. Here's an example:\n\n```python\nmagic()\n```\n\nMade up. Pass it per request [1].\n"
              "Change it per request with `timeout`:\n```python\nmore_magic()\n```")
    sentences = [sentence("Off by default [1].", [1], "supported"),
                 Support("Here's an example:", [], "exempt", {}, None, LEAD),
                 sentence("magic()", [], "unsupported", code=True),
                 sentence("Made up.", [], "unsupported"),
                 sentence("Pass it per request [1].", [1], "supported"),
                 Support("Change it per request with `timeout`:", [], "exempt", {2: 0.85}, None, LEAD),
                 sentence("more_magic()", [], "unsupported", code=True)]
    choice = verified(sentences, answer)
    assert choice.text == "Off by default [1].\n\nPass it per request [1].\nChange it per request with `timeout` [2]."
    last = choice.sentences[-1]
    assert (last.cited_by, last.cited, last.status) == ("checker", [2], "supported")


def test_a_line_too_short_for_a_sentence_goes_with_the_code_it_leads_into():
    """Seen with the 0.5B: "例如：" on a line of its own, too short to be checked as a sentence, stayed in the shown
    answer over nothing when the code under it failed the check. Now checked as any line leading into code is."""
    answer = "它提供了 `timeout` 参数 [1]。\n\n例如：\n\n```python\nmagic()\n```\n\n默认是 5 秒 [1]。"
    sentences = [sentence("它提供了 `timeout` 参数 [1]。", [1], "supported"),
                 Support("例如：", [], "exempt", {}, None, LEAD),  # a line leading into code is checked at any length
                 sentence("magic()", [], "unsupported", code=True),
                 sentence("默认是 5 秒 [1]。", [1], "supported")]
    assert verified(sentences, answer).text == "它提供了 `timeout` 参数 [1]。\n\n默认是 5 秒 [1]。"


def test_a_line_leading_into_code_that_is_shown_stays():
    answer = "Enable it:\n```python\nclient.get(url, follow_redirects=True)\n```"
    sentences = [Support("Enable it:", [], "exempt", {}, None, LEAD),
                 sentence("client.get(url, follow_redirects=True)", [], "supported", 1, code=True)]
    assert verified(sentences, answer).text == answer


def test_adapted_code_is_shown_as_the_documents_example_once():
    code = "client.get(u, follow_redirects=True)"
    answer = f"Enable it:\n```python\n{code}\n```\nAgain:\n```\n{code}\n```"
    adapted = Support("client.get(u, follow_redirects=True)", [], "supported", {1: 1.0}, 1, "", True,
                      example="client.get(url, follow_redirects=True)")
    choice = verified([Support("Enable it:", [], "exempt", {}, None, ""), adapted,
                       Support("Again:", [], "exempt", {}, None, ""), adapted], answer)
    assert choice.text.count("client.get(url, follow_redirects=True)") == 1 and "(u," not in choice.text
    assert [(s.text, s.cited_by) for s in choice.sentences if s.is_code] == [(adapted.example, "checker")]


def test_quotes_come_under_the_heading_of_their_section_once():
    ranked = [(Unit(1, 0, "httpx-ws", False, 1, "httpx-ws"), 0.9),
              (Unit(1, 1, "WebSocket support for HTTPX, built on its transports.", False, 2, "httpx-ws"), 0.8),
              (Unit(1, 2, "It works with both Client and AsyncClient instances.", False, 2, "httpx-ws"), 0.7),
              (Unit(2, 0, "Allows consuming Server-Sent Events with HTTPX.", False, 1, "httpx-sse"), 0.6)]
    choice = extractive(ranked, "en")
    assert choice.text.splitlines()[2:] == [
        "**httpx-ws**", "> WebSocket support for HTTPX, built on its transports. [1]",
        "> It works with both Client and AsyncClient instances. [1]",
        "**httpx-sse**", "> Allows consuming Server-Sent Events with HTTPX. [2]"]
    assert [s.section for s in choice.sentences] == ["httpx-ws", "httpx-ws", "httpx-sse"]


def test_a_failed_answer_gives_quotes_with_the_code_they_introduce():
    choice = choose([sentence("Made up [1].", [1], "unsupported")], "Made up [1].", RANKED, "en")
    assert choice.verdict == "extractive"
    assert choice.text.splitlines()[0] == "Quoted from the documents:"
    assert "> HTTPX does not follow redirects by default, unlike requests. [1]" in choice.text
    assert "client.get(url, follow_redirects=True)" in choice.text  # introduced by the chosen ':' sentence
    assert "five seconds" not in choice.text  # below the relevance floor


def test_the_escape_phrase_and_weak_quotes_give_the_fixed_phrase():
    escape = [Support("文档里没有找到相关说明。", [], "exempt", {}, None, "")]
    assert choose(escape, "文档里没有找到相关说明。", RANKED, "zh").text == "文档里没有找到相关说明"
    assert extractive([(u, 0.05) for u, _ in RANKED], "en") is None


def test_a_sentence_introducing_code_brings_the_code_the_model_left_out():
    answer = "You can enable them per request [1]:"
    choice = verified([sentence(answer, [1], "supported")], answer, [u for u, _ in RANKED])
    assert choice.text == "You can enable them per request [1]:\n\n```\nclient.get(url, follow_redirects=True)\n```"
    code = choice.sentences[-1]
    assert code.is_code and code.cited == [1] and code.cited_by == "checker"
    # a sentence after the line, on the same line, starts a paragraph under the block, with no stray space
    then = "Redirects are off by default [1]."
    choice = verified([sentence(answer, [1], "supported"), sentence(then, [1], "supported")], f"{answer} {then}",
                      [u for u, _ in RANKED])
    assert choice.text.endswith(f"follow_redirects=True)\n```\n\n{then}")


def test_code_under_a_line_shows_the_block_that_line_introduces_in_its_passage():
    """The model copied the page's lead into its verify=False example, then the page's other block (the error that
    verification raises): each is backed, and together they mislead."""
    units = [Unit(1, 0, "By default httpx verifies HTTPS, and raises an error for invalid SSL cases...", False),
             Unit(1, 1, ">>> httpx.get(bad)\nhttpx.ConnectError: certificate verify failed", True),
             Unit(1, 2, "You can disable SSL verification completely and allow insecure requests...", False),
             Unit(1, 3, ">>> httpx.get(bad, verify=False)\n<Response [200 OK]>", True)]
    lead = "You can disable SSL verification completely and allow insecure requests..."
    answer = f"{lead}\n\n```pycon\n{units[1].text}\n```"
    sentences = [Support(lead, [], "uncited", {1: 0.9}, 1, ""),
                 Support(units[1].text, [], "supported", {1: 1.0}, 1, "Copied from passage [1].", True)]
    choice = verified(sentences, answer, units)
    assert choice.text == f"{lead} [1]\n\n```pycon\n{units[3].text}\n```"
    assert [(s.text, s.cited_by) for s in choice.sentences if s.is_code] == [(units[3].text, "checker")]
    right = [sentences[0], sentences[1]._replace(text=units[3].text)]  # the block it introduces: left as written
    assert verified(right, f"{lead}\n\n```pycon\n{units[3].text}\n```", units).text.endswith(units[3].text + "\n```")
    other = Support("get(url)", [], "supported", {2: 1.0}, 2, "Copied from passage [2].", True)  # another page's block
    answer = f"{lead}\n\n```pycon\nget(url)\n```"
    assert verified([sentences[0], other], answer, units).text.endswith(units[3].text + "\n```")


def test_blocks_the_model_swapped_or_moved_come_back_under_the_lines_that_introduce_them():
    units = [Unit(1, 0, "By default httpx raises an error for invalid SSL cases...", False),
             Unit(1, 1, "httpx.get(bad)  # ConnectError", True),
             Unit(1, 2, "You can disable SSL verification completely and allow insecure requests...", False),
             Unit(1, 3, "httpx.get(bad, verify=False)", True)]
    first, second = units[0].text, units[2].text
    lines = [Support(first, [], "uncited", {1: 0.9}, 1, ""), Support(second, [], "uncited", {1: 0.9}, 1, "")]

    def code(text):
        return Support(text, [], "supported", {1: 1.0}, 1, "Copied from passage [1].", True)

    expected = f"{first} [1]\n\n```\n{units[1].text}\n```\n\n{second} [1]\n\n```\n{units[3].text}\n```"
    swapped = f"{first}\n\n```\n{units[3].text}\n```\n\n{second}\n\n```\n{units[1].text}\n```"
    assert verified([lines[0], code(units[3].text), lines[1], code(units[1].text)], swapped, units).text == expected
    moved = f"{first}\n\n```\n{units[3].text}\n```\n\n{second}"  # nothing under the second line
    assert verified([lines[0], code(units[3].text), lines[1]], moved, units).text == expected


def test_repeats_and_a_trailing_not_covered_are_not_shown_and_side_by_side_code_stays_apart():
    answer = ("Redirects are off by default [1]. Redirects are off by default [1].\n"
              "```python\nclient.get(url, follow_redirects=True)\n```\n```\nhttpx.Client(follow_redirects=True)\n```\n\n"
              "The documents do not cover this.")
    sentences = [sentence("Redirects are off by default [1].", [1], "supported"),
                 sentence("Redirects are off by default [1].", [1], "supported"),
                 sentence("client.get(url, follow_redirects=True)", [], "supported", 1, code=True),
                 sentence("httpx.Client(follow_redirects=True)", [], "supported", 1, code=True),
                 Support("The documents do not cover this.", [], "exempt", {}, None, "")]
    choice = verified(sentences, answer)
    assert choice.text.count("Redirects are off by default") == 1
    assert "do not cover" not in choice.text
    assert choice.text.count("```") == 4  # two blocks, each closed


def test_quotes_bring_the_example_right_after_their_paragraph():
    ranked = [(Unit(2, 0, "Connection retries are available on the transport.", False, 1), 0.7),
              (Unit(2, 1, "Other failures need a general-purpose retry tool.", False, 1), 0.2),
              (Unit(2, 2, "transport = httpx.HTTPTransport(retries=1)", True, 2), 0.3)]
    choice = extractive(ranked, "en")
    assert "> Connection retries are available on the transport. [2]" in choice.text
    assert "HTTPTransport(retries=1)" in choice.text


def test_quotes_prefer_a_sentence_that_names_what_the_question_does_not():
    ranked = prose_ranked(("After the upgrade a failed login gets 401 instead of 403.", 0.8),
                          ("Some clients still expect the old 403 after a failed login.", 0.7),
                          ("To get 403 back, override make_not_authenticated_error in a subclass.", 0.5),
                          ("Too weak to quote, though it names HTTPBearer.", 0.3))
    asked = "We upgraded and a failed login now gets 401 instead of 403. Can I get 403 back?"
    choice = extractive(ranked, "en", asked=asked, most=2)
    assert "make_not_authenticated_error" in choice.text  # third by relevance, but it names the fix
    assert "After the upgrade" in choice.text and "Some clients" not in choice.text  # then the most relevant
    assert "HTTPBearer" not in choice.text  # below the relevance floor, whatever it names
    assert "make_not_authenticated_error" not in extractive(ranked, "en", most=2).text  # no question: relevance alone


def test_a_sentence_naming_the_fix_is_quoted_below_the_relevance_floor_when_the_best_sentence_is_weak():
    ranked = prose_ranked(("Behind the proxy, the docs page cannot load the schema.", 0.55),
                          ("The proxy strips the /api/v1 prefix before the app sees the request.", 0.38),
                          ("Pass it with root_path and the schema's server URL follows.", 0.3),
                          ("A page about WebSockets that mentions websocket_route.", 0.2),
                          ("Try it: curl https://api.example.com", 0.3))
    asked = "Behind nginx at /api/v1 my /docs page cannot load the schema."
    text = extractive(ranked, "en", asked=asked).text
    assert "root_path" in text  # 0.3: under the 0.36 floor, but it names the fix and is within 0.3 of the best
    assert "websocket_route" not in text  # names something new too, but 0.35 below the best
    assert "curl" not in text  # an example address is not a name that answers
    assert "root_path" in extractive(ranked, "en", asked=asked, most=1).text  # chosen first (shown in page order)
    assert extractive([(u, 0.35) for u, _ in ranked], "en", asked=asked) is None  # nothing relevant enough: refused


def test_a_short_code_example_that_names_the_fix_is_quoted_with_the_sentence_that_leads_into_it():
    lead = Unit(1, 1, "A transport also connects through a Unix Domain Socket:", False, 2, "HTTP Transport")
    example = Unit(1, 2, 'transport = httpx.HTTPTransport(uds="/var/run/docker.sock")\nclient = httpx.Client(transport=transport)',
                   True, 3, "HTTP Transport")
    ranked = [(example, 0.73), (Unit(1, 0, "You can call a WSGI application directly through its transport.", False, 1,
                                     "WSGI Transport"), 0.41), (lead, 0.3)]
    asked = "I need the Docker Engine API through /var/run/docker.sock. Does httpx do unix sockets?"
    text = extractive(ranked, "en", asked=asked).text
    assert 'uds="/var/run/docker.sock"' in text  # the best match is the example: quoted as it stands
    assert "> A transport also connects through a Unix Domain Socket: [1]" in text  # with the line that leads into it
    assert text.index("Unix Domain Socket:") < text.index("HTTPTransport(uds=")
    long_example = example._replace(text="\n".join(["x = 1"] * 20) + "\nuds_transport()")
    assert "uds_transport" not in extractive([(long_example, 0.73)] + ranked[1:], "en", asked=asked).text  # too long
    assert extractive([(example, 0.73)], "en", asked=asked) is None  # code alone is no evidence: nothing relevant
    better = [(Unit(2, i, f"A sentence about transports and unix sockets, number {i}.", False, i), 0.8) for i in range(3)]
    assert "HTTPTransport(uds=" not in extractive(better + ranked, "en", asked=asked).text  # not among the best 3


def test_a_checked_answer_drops_the_documentation_markup_the_model_copied():
    answer = ("/// tip\n\nDeclare it with `Query` for a list [1].\n\n///\n\n!!! warning Reuse one client [2].\n\n"
              "```python\n/// not markup inside code\n```")
    shown = [sentence("Declare it with `Query` for a list [1].", [1], "supported"),
             sentence("Reuse one client [2].", [2], "supported")]
    text = verified(shown, answer).text
    assert text.startswith("Declare it with `Query` for a list [1].\n\nReuse one client")
    assert "/// tip" not in text and "!!!" not in text
    assert "/// not markup inside code" in text  # code is shown as written
    ended = verified([sentence("Set REPOBOT_HOME to move the data [1].", [1], "supported")],
                     "Set REPOBOT_HOME to move the data [1].\n<br>\n\n```html\n<br>\n```").text
    assert ended == "Set REPOBOT_HOME to move the data [1].\n\n```html\n<br>\n```"  # a page's <br>, copied after it


def test_a_failed_answer_about_a_name_the_documents_lack_gives_the_fixed_phrase_not_quotes():
    failed = [sentence("Install ddtrace and enable Datadog APM tracing [1].", [1], "unsupported")]
    text = failed[0].text
    assert choose(failed, text, RANKED, "en", lacking=["Datadog", "APM"]).verdict == "not_found"
    # names the answer does not mention are not what it is about
    assert choose(failed, text, RANKED, "en", lacking=["q1.pdf", "DATABASE_URL", "React"]).verdict == "extractive"
    passing = [sentence("HTTPX does not follow redirects by default [1].", [1], "supported")]
    assert choose(passing, passing[0].text + " Datadog too.", RANKED, "en", lacking=["Datadog"]).verdict == "verified"


def test_the_prompts_own_tags_echoed_back_are_not_shown():
    answer = "Redirects are off by default <docs> [1]. <docs> [1]"
    sentences = [sentence("Redirects are off by default <docs> [1].", [1], "supported"),
                 Support("<docs> [1]", [1], "exempt", {}, None, "")]
    choice = verified(sentences, answer)
    assert choice.text == "Redirects are off by default [1]." and len(choice.sentences) == 1


def test_the_html_layout_the_model_copied_from_a_page_is_not_shown():
    # The proxies page opens with a figure; the 0.5B copied it with its caption, which a passage backs.
    figure = '<div align="center"> <img src="proxy.svg"/> <figcaption><em>Diagram of how a proxy works [1].'
    caption_end = 'Your client requests <code>example.com</code> through a proxy.</em></figcaption> </div>'
    answer = f"{figure} {caption_end}\n\nPass the proxy URL to the client [1]. <b>Pass</b> the proxy URL to the client [1]."
    sentences = [sentence(figure, [1], "supported"), sentence(caption_end, [], "uncited", 1),
                 sentence("Pass the proxy URL to the client [1].", [1], "supported"),
                 sentence("<b>Pass</b> the proxy URL to the client [1].", [1], "supported")]  # said again, in bold
    choice = verified(sentences, answer)
    assert choice.text == ("Diagram of how a proxy works [1]. Your client requests `example.com` through a proxy [1]."
                           "\n\nPass the proxy URL to the client [1].")
    assert "<" not in "".join(s.text for s in choice.sentences)


def test_a_sentence_repeating_the_question_is_not_shown_nor_counted():
    answer = "Our proxy needs a password. Redirects are off by default [1]."
    sentences = [Support("Our proxy needs a password.", [], "exempt", {}, None, REPEATS),
                 sentence("Redirects are off by default [1].", [1], "supported")]
    choice = choose(sentences, answer, [], "en")
    assert choice.verdict == "verified" and choice.text == "Redirects are off by default [1]."


def test_a_checked_answer_is_followed_by_the_quotes_that_say_what_it_does_not():
    ranked = prose_ranked(("You can control the connection pool size using the limits keyword argument.", 0.89),
                          ("Use httpx.Limits(max_connections=10) on the client.", 0.6))
    answer = "Timeouts default to five seconds [1]."
    sentences = [sentence(answer, [1], "supported")]
    asked = "How do I limit the number of connections in the pool?"
    choice = choose(sentences, answer, ranked, "en", asked)
    assert choice.verdict == "verified" and choice.text.startswith(answer + "\n\nAlso in the documents:\n")
    assert "> Use httpx.Limits(max_connections=10) on the client. [1]" in choice.text
    assert [s.cited_by for s in choice.sentences] == ["model", None, "checker", "checker"]  # the label cites nothing

    named = "Pass httpx.Limits(max_connections=10) to the client [1]."  # already names what the quote names
    assert choose([sentence(named, [1], "supported")], named, ranked[1:], "en", asked).text == named


def test_the_quotes_after_a_checked_answer_leave_out_what_it_says_in_other_words():
    ranked = prose_ranked(("The history property of the response can be used to inspect any followed redirects.", 0.8),
                          ("You can change redirect handling with the follow_redirects parameter.", 0.6))
    asked = "With redirects on, how do I see the hops?"
    said_it = "The `history` property of the response can be used to inspect followed redirects [1]."
    choice = choose([sentence(said_it, [1], "supported")], said_it, ranked, "en", asked)
    assert "> The history property" not in choice.text  # said already, with a word less and code marks
    assert "> You can change redirect handling with the follow_redirects parameter. [1]" in choice.text


def test_the_quotes_after_a_translated_answer_leave_out_what_it_said_in_english():
    ranked = prose_ranked(("HTTPX does not follow redirects by default.", 0.9))
    english = Support("HTTPX does not follow redirects by default [1].", [1], "supported", {1: 0.9}, None, "")
    choice = choose([english], english.text, ranked, "zh", "HTTPX 默认会跟随重定向吗？",
                    translate=lambda c: verified([english._replace(text="HTTPX 默认不跟随重定向 [1]。",
                                                                   checked_as=english.text)], "HTTPX 默认不跟随重定向 [1]。"))
    assert choice.text == "HTTPX 默认不跟随重定向 [1]。"  # names nothing new, but its only quote is what it said


def test_the_quotes_after_a_checked_answer_leave_out_the_code_it_shows():
    ranked = [(Unit(1, 0, "Redirects are not followed by default, unlike in requests.", False, 1), 0.8),
              (Unit(1, 1, "You can still enable them, but explicitly:", False, 2), 0.7),
              (Unit(1, 2, "client.get(url, follow_redirects=True)", True, 3), 0.5)]
    answer = "Turn them on per request [1].\n\n```python\nclient.get(url,  follow_redirects=True)\n```"
    sentences = [sentence("Turn them on per request [1].", [1], "supported"),
                 sentence("client.get(url,  follow_redirects=True)", [], "supported", 1, code=True)]
    choice = choose(sentences, answer, ranked, "en", "Does httpx follow redirects?")
    assert "> You can still enable them, but explicitly: [1]" in choice.text  # quoted: it says what the answer does not
    assert choice.text.count("follow_redirects=True") == 1  # its code is on screen already, in the answer


def test_a_section_the_model_copied_past_its_answer_is_not_shown_when_it_is_off_the_question():
    """Seen on the lesson's question: after the redirect answer, the 0.5B copied its passage on into
    "## Client instances" (`requests.Session` and `httpx.Client`), which matches the question at 0.28 against 0.75."""
    from repobot.engine.answer import off_topic_sections
    from repobot.engine.support import HEADING

    ranked = [(Unit(1, 0, "HTTPX does not follow redirects by default.", False, 1, "Redirects"), 0.75),
              (Unit(1, 1, "The equivalent of requests.Session is httpx.Client.", False, 2, "Client instances"), 0.28),
              (Unit(1, 2, "Proxies can be set on the client.", False, 3, "Proxies"), 0.5)]
    answer = ("HTTPX does not follow redirects by default.\n\n## Client instances\n\n"
              "The equivalent of requests.Session is httpx.Client.\n\n## Proxies\n\nProxies can be set on the client.")
    sentences = [sentence("HTTPX does not follow redirects by default.", [], "uncited", 1),
                 Support("## Client instances", [], "exempt", {}, None, HEADING),
                 sentence("The equivalent of requests.Session is httpx.Client.", [], "uncited", 1),
                 Support("## Proxies", [], "exempt", {}, None, HEADING),
                 sentence("Proxies can be set on the client.", [], "uncited", 1)]
    assert off_topic_sections(ranked) == {"client instances"}
    choice = verified(sentences, answer, [u for u, _ in ranked], off_topic_sections(ranked))
    assert choice.text == ("HTTPX does not follow redirects by default [1].\n\n**Proxies**\n\n"
                           "Proxies can be set on the client [1].")  # the next section, on the question, is shown
    assert "requests.Session" in verified(sentences, answer).text  # nothing is off the question without scores
    short = answer.replace("## Proxies", "## SSL")  # a heading too short to be a sentence still ends the section
    assert verified(sentences[:3] + sentences[4:], short, [], {"client instances"}).text.endswith(
        "## SSL\n\nProxies can be set on the client [1].")
    first = [Support("## Client instances", [], "exempt", {}, None, HEADING)] + sentences[2:3]
    opening = "## Client instances\n\nThe equivalent of requests.Session is httpx.Client."
    assert "requests.Session" in verified(first, opening, [], {"client instances"}).text  # only after an answer


def test_code_a_line_introduces_is_shown_under_it_when_the_model_wrote_it_only_in_a_section_not_shown():
    """The model wrote the lead, copied an off-topic section, then the lead's block inside that section: the block,
    not shown where it was, comes under its line (the review of 2026-12-06 found the line ending on a bare colon)."""
    from repobot.engine.support import HEADING

    units = [Unit(1, 0, "You can disable SSL verification completely like this:", False, 1, "SSL"),
             Unit(1, 1, "httpx.get(url, verify=False)", True, 1, "SSL"),
             Unit(2, 0, "The equivalent of requests.Session is httpx.Client.", False, 1, "Client instances")]
    lead = "You can disable SSL verification completely like this:"
    answer = (f"{lead}\n\n## Client instances\n\nThe equivalent of requests.Session is httpx.Client.\n\n"
              "```\nhttpx.get(url, verify=False)\n```")
    sentences = [Support(lead, [1], "supported", {1: 0.9}, None, ""),
                 Support("## Client instances", [], "exempt", {}, None, HEADING),
                 Support("The equivalent of requests.Session is httpx.Client.", [], "uncited", {2: 0.9}, 2, ""),
                 Support("httpx.get(url, verify=False)", [], "supported", {1: 1.0}, 1, "Copied.", True)]
    choice = verified(sentences, answer, units, {"client instances"})
    assert choice.text == f"{lead[:-1]} [1]:\n\n```\nhttpx.get(url, verify=False)\n```"
    assert [(s.is_code, s.cited_by) for s in choice.sentences] == [(False, "model"), (True, "checker")]
    shown_there = verified(sentences, answer, units)  # nothing off the question: the model's block stays in place
    assert shown_there.text.count("verify=False") == 1 and shown_there.text.endswith("verify=False)\n```")
    # a line ending in a colon, as the checker marks it (a lead), whose next line is skipped: it keeps its colon
    as_lead = [sentences[0]._replace(status="exempt", reason=LEAD)] + sentences[1:]
    assert verified(as_lead, answer, units, {"client instances"}).text == f"{lead}\n\n```\nhttpx.get(url, verify=False)\n```"
    # the model's own block, further on and shown, holds the passage's block among other lines: not shown twice
    joined = "import httpx\nhttpx.get(url, verify=False)"
    answer = f"{lead} Verification is on by default.\n\n```\n{joined}\n```"
    sentences = [sentences[0], Support("Verification is on by default.", [1], "supported", {1: 0.9}, None, ""),
                 Support(joined, [], "supported", {1: 1.0}, 1, "Copied.", True)]
    assert verified(sentences, answer, units).text.count("verify=False") == 1


def test_quotes_stand_under_their_own_passage_not_the_heading_of_the_quote_before_them():
    """Under a verified Japanese answer on cookies, a quote of advanced/transports.md (which opens before the page's
    first heading) and the Cookies example of quickstart.md stood under "**Content encoding**", [1]'s heading, and
    the example showed no id."""
    from repobot.engine.quote import quoted

    units = [Unit(1, 0, "For response bodies HTTPX guesses an encoding.", False, 0, "Content encoding"),
             Unit(2, 0, "The Client also accepts a transport argument.", False, 0, "advanced/transports.md"),
             Unit(3, 4, "cookies = httpx.Cookies()", True, 2, "Cookies"),
             Unit(3, 5, "Send them on every request.", False, 3, "Cookies")]
    lines, shown = quoted(units, units)
    assert lines == ["**Content encoding**", "> For response bodies HTTPX guesses an encoding. [1]",
                     "**advanced/transports.md**", "> The Client also accepts a transport argument. [2]",
                     "**Cookies**", "```", "cookies = httpx.Cookies()", "```", "[3]", "> Send them on every request. [3]"]
    assert [s.section for s in shown] == ["Content encoding", "advanced/transports.md", "Cookies", "Cookies"]
    lead = [Unit(4, 0, "Enable it like this:", False, 0, "Redirects"), Unit(4, 1, "httpx.get(u, follow_redirects=True)", True, 0, "Redirects")]
    assert quoted(lead[:1], lead)[0] == ["**Redirects**", "> Enable it like this: [4]", "```",
                                         "httpx.get(u, follow_redirects=True)", "```"]  # its own lead's code: no heading again
