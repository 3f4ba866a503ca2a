"""Property tests: the chunker and the checker never crash, and their invariants hold on any input."""

from hypothesis import given, settings, strategies as st

from repobot.engine.check import check_citations
from repobot.engine.chunk import chunk_markdown, closes_only, piece_budget
from repobot.engine.embed import estimate_pieces
from repobot.engine.index import embedding_text
from repobot.engine.text import file_lines

LINE = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["", "# Title", "## Section", "### Sub", "```", "```python", "~~~", "- item", "x = a[1]",
                     "Text [1].", "Done [9]!", "文档里没有找到相关说明。", "Use it:", "1. First step."]),
)
MARKDOWN = st.lists(LINE, max_size=60).map("\n".join)


def says_something(lines: list[str]) -> set[int]:
    """The numbers of the lines a chunk must cover: all but markup alone (a closing ``///``, ``</details>``, a
    rule), which the chunker leaves out when it would start a chunk of its own."""
    return {n for n, line in enumerate(lines, 1) if line.strip() and not closes_only([(n, line)])}


@settings(max_examples=300, deadline=None)
@given(MARKDOWN)
def test_chunks_lie_inside_the_file_and_cover_every_line_that_says_something(text):
    lines = file_lines(text)  # newlines only, as editors and the viewer number lines
    chunks = chunk_markdown("f.md", text)
    covered = set()
    for c in chunks:
        assert 1 <= c.start <= c.end <= len(lines)
        covered.update(range(c.start, c.end + 1))
    assert says_something(lines) <= covered


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=120).map("\n".join), st.sampled_from([16, 32, 64]))
def test_chunks_fit_a_small_window_unless_they_are_code(text, window):
    budget = piece_budget(estimate_pieces, window)
    lines = file_lines(text)  # newlines only, as editors and the viewer number lines
    has_fence = any(line.lstrip().startswith(("```", "~~~")) for line in lines)
    covered = set()
    for c in chunk_markdown("f.md", text, budget):
        assert 1 <= c.start <= c.end <= len(lines)
        covered.update(range(c.start, c.end + 1))
        if not has_fence and estimate_pieces(c.heading) < window // 2:
            assert estimate_pieces(embedding_text(c)) + 2 <= window, c
    assert says_something(lines) <= covered


@settings(max_examples=300, deadline=None)
@given(MARKDOWN, st.integers(min_value=0, max_value=10))
def test_checker_invariants(text, n_docs):
    check = check_citations(text, n_docs)
    assert check.cited == sorted(set(check.cited))
    assert set(check.invalid) <= set(check.cited)
    assert all(not 1 <= i <= n_docs for i in check.invalid)
    assert all(len(s) > 8 for s in check.uncited)
