"""The form checker: the lesson's three worked outputs, plus the English/French extensions."""

from repobot.engine.check import check_citations, is_escape, split_sentences

REDIRECTS = """httpx 默认**不会**自动跟随重定向，所有 HTTP 方法都是如此 [1][3]。

你可以在单个请求上显式开启 [1][3]：

```python
response = client.get(url, follow_redirects=True)
```

或者在创建 `Client` 时就默认开启 [1]：

```python
client = httpx.Client(follow_redirects=True)
```

开启后，可以通过 `response.history` 属性查看被跟随的重定向响应列表，按发生顺序排列 [3]。"""

HTTP3 = "文档里没有找到相关说明。"

RETRIES = """httpx 自带连接层面的重试功能，通过直接实例化 transport 来使用：当发生 `httpx.ConnectError` 或 `httpx.ConnectTimeout` 时，请求会按给定的次数重试，从而在链路不稳定的网络下更平滑地运行 [2]。
（代码示例省略）
如果只需要专门的 HTTPX 重试层，可以看 httpx-retries，它是一个 for HTTPX 的 retry layer [1]。若需要其他形式的重试行为（例如处理读/写错误，或针对 `503 Service Unavailable` 做出反应），文档建议考虑 tenacity 这类通用工具 [2]。"""


def test_lesson_redirects():
    check = check_citations(REDIRECTS, 5)
    assert (check.cited, check.invalid, len(check.uncited)) == ([1, 3], [], 0)


def test_lesson_http3_escape_phrase_is_uncited_but_recognised():
    check = check_citations(HTTP3, 5)
    assert (check.cited, check.invalid, check.uncited) == ([], [], ["文档里没有找到相关说明。"])
    assert is_escape(check.uncited[0])


def test_lesson_retries_with_omitted_code_line():
    check = check_citations(RETRIES, 5)
    assert (check.cited, check.invalid, len(check.uncited)) == ([1, 2], [], 0)


def test_code_blocks_are_not_sentences_and_their_brackets_are_not_citations():
    answer = "Use this [1]:\n```python\nfor x in items[2]:\n    print(x)  # no citation here at all\n```\nDone now [1]."
    check = check_citations(answer, 1)
    assert check == ([1], [], [])


def test_invented_ids_are_invalid():
    check = check_citations("Redirects are off by default [1][7]. HTTP/2 is optional [0].", 5)
    assert check.cited == [0, 1, 7]
    assert check.invalid == [0, 7]


def test_colon_line_introduces_code_and_is_not_counted():
    assert check_citations("To enable it, write the following:\n```\nx\n```", 3).uncited == []
    assert check_citations("要开启它，请这样写：\n```\nx\n```", 3).uncited == []


def test_short_fragments_are_ignored():
    assert check_citations("OK.\n好的。\nThe client is closed [1].", 2).uncited == []


def test_english_sentences_do_not_split_inside_identifiers_versions_urls_or_eg():
    text = (
        "Create an httpx.Client, e.g. with timeouts, since version 0.28.1 [1]. "
        "The docs live at https://www.python-httpx.org/quickstart/ for details [2]. "
        "This one has no source at all."
    )
    assert split_sentences(text) == [
        "Create an httpx.Client, e.g. with timeouts, since version 0.28.1 [1].",
        "The docs live at https://www.python-httpx.org/quickstart/ for details [2].",
        "This one has no source at all.",
    ]
    assert check_citations(text, 2).uncited == ["This one has no source at all."]


def test_citation_after_the_full_stop_stays_with_its_sentence():
    text = "Redirects are not followed by default. [1] You can enable them per request. [2][3]"
    check = check_citations(text, 3)
    assert check.uncited == []
    assert check.cited == [1, 2, 3]


def test_french_sentences():
    text = "HTTPX ne suit pas les redirections par défaut [1]. Il faut les activer ! Voilà pourquoi [2]."
    assert check_citations(text, 2).uncited == ["Il faut les activer !"]


def test_numbered_list_items_are_not_split_at_their_number():
    text = "1. Install the package with pip [1].\n2. Import it in your code [2]."
    assert split_sentences(text) == ["1. Install the package with pip [1].", "2. Import it in your code [2]."]


def test_escape_phrases_in_every_language():
    assert is_escape("The documents do not cover this.")
    assert is_escape("Les documents ne traitent pas de ce point.")
    assert is_escape("文档里没有找到相关说明")
    assert not is_escape("The documents cover this in detail [1].")


def test_a_docs_build_include_copied_by_the_model_cites_nothing():
    # FastAPI's pages pull code in with {* file hl[9] *}; the 0.5B copies the line, and its line mark is no source.
    text = ("You can declare a list like this:\n\n{* ../../docs_src/query_params_str_validations/tutorial012_an_py310.py"
            " hl[9] *}\n\nThen call it with several values [2].")
    check = check_citations(text, 5)
    assert (check.cited, check.invalid) == ([2], [])
