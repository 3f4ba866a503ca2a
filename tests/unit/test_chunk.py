from repobot.engine.chunk import MAX_CHARS, chunk_markdown, closes_only, find_version

DOC = """# Guide

Intro paragraph.

## Install

Run pip.

```bash
pip install thing
# this is a comment, not a heading
```

## Use

First paragraph of use.

### Detail

A small detail.
"""


def test_chunks_keep_source_heading_and_line_span():
    chunks = chunk_markdown("guide.md", DOC)
    lines = DOC.splitlines()
    for c in chunks:
        assert c.source == "guide.md"
        assert c.text == "\n".join(lines[c.start - 1 : c.end])
    assert [c.heading for c in chunks] == ["Guide", "Guide > Install", "Guide > Use"]


def test_heading_inside_code_fence_is_not_a_heading():
    install = chunk_markdown("guide.md", DOC)[1]
    assert "# this is a comment" in install.text
    assert install.text.count("```") == 2


def test_small_subsection_merges_into_its_section_but_sections_never_merge():
    use = chunk_markdown("guide.md", DOC)[2]
    assert "A small detail." in use.text
    assert "Run pip" not in use.text


def test_long_section_splits_on_paragraphs_and_never_cuts_a_fence():
    para = "word " * 60
    code = "```\n" + "x = 1\n" * 60 + "```"
    text = "# Big\n\n" + "\n\n".join([para] * 6 + [code] + [para] * 3)
    chunks = chunk_markdown("big.md", text)
    assert len(chunks) > 3
    for c in chunks:
        assert c.text.count("```") % 2 == 0
        if "```" not in c.text:
            assert len(c.text) <= MAX_CHARS + 10


def test_one_huge_line_is_sliced_with_the_same_line_span():
    text = "# Huge\n\n" + "a" * 20000 + "\n"
    chunks = chunk_markdown("huge.md", text)
    assert len(chunks) > 5
    assert all(c.start >= 1 and c.end <= 3 for c in chunks)
    assert sum(len(c.text) for c in chunks) >= 20000


def test_text_before_any_heading_and_empty_files():
    assert chunk_markdown("a.md", "") == []
    chunks = chunk_markdown("a.md", "Preamble line.\n\n# Title\nBody.")
    assert chunks[0].heading == "" and chunks[0].start == 1


def test_versions_from_path_and_front_matter():
    assert find_version("v1/api.md", "") == "v1"
    assert find_version("docs/2.0/api.md", "") == "2.0"
    assert find_version("api.md", "---\nversion: 3.1\n---\n# API") == "3.1"
    assert chunk_markdown("v2/a.md", "# A\nbody")[0].version == "v2"


def test_the_paragraph_before_a_code_block_goes_with_it():
    intro = "The transport retries failed connections, and this paragraph says how to turn that on for a client."
    text = ("# Transports\n\n" + "\n\n".join(["Filler prose about other settings, long enough to matter here."] * 9)
            + f"\n\n{intro}\n\n```python\ntransport = httpx.HTTPTransport(retries=1)\n```\n")
    chunks = chunk_markdown("t.md", text)
    holder = next(c for c in chunks if "retries=1" in c.text)
    assert intro in holder.text and len(chunks) >= 2
    assert sum(c.text.count(intro) for c in chunks) == 1  # moved, not copied
    lines = text.splitlines()
    for c in chunks:  # the line spans still match the text
        assert c.text == "\n".join(lines[c.start - 1 : c.end])


def test_line_spans_count_newlines_only_as_the_viewer_does():
    """A form feed or U+2028 inside a line is not a line break: the highlighted lines would be one off."""
    text = "# Guide\nIntro\x0cwith a form feed.\n\n## Redirects\nNot by default\u2028at all.\n"
    chunks = chunk_markdown("a.md", text)
    assert [(c.heading, c.start, c.end) for c in chunks][-1] == ("Guide > Redirects", 4, 5)


def test_a_longer_fence_shows_a_shorter_one_without_closing():
    text = "# Writing docs\n\n````markdown\n```bash\n# not a heading\n```\n````\n\nAfter the example.\n"
    assert [c.heading for c in chunk_markdown("a.md", text)] == ["Writing docs"]


def test_markup_alone_never_starts_a_chunk_and_spans_stay_exact():
    tip = "/// tip\n\n" + "A long tip sentence about settings. " * 19 + "\n\n///"
    text = "# Guide\n\n" + "\n\n".join([tip, "Short after.", tip, "## Next", "More text here.", tip]) + "\n"
    lines = text.splitlines()
    chunks = chunk_markdown("guide.md", text)
    for c in chunks:
        assert c.text == "\n".join(lines[c.start - 1 : c.end])
        first = next(line for line in c.text.splitlines() if line.strip() and not line.startswith("#"))
        assert not closes_only([(c.start, first)]), c.text
    assert any("Short after." in c.text for c in chunks) and any("More text here." in c.text for c in chunks)


def test_front_matter_is_no_passage_and_its_title_heads_the_page():
    """A Jekyll, Hugo or Obsidian page opens with metadata ("title: Setup", "tags: [a, b]"): it was a passage of its
    own, found for its tags and quoted as text. Its lines are left out (the others keep their numbers)."""
    text = "---\ntitle: Setup\ntags: [cli, install]\n---\nInstall with `pipx install foo`.\n\n## Upgrade\n\nRun it again.\n"
    chunks = chunk_markdown("setup.md", text)
    assert [(c.heading, c.start, c.end) for c in chunks] == [("Setup", 5, 5), ("Upgrade", 7, 9)]
    assert not any("tags" in c.text for c in chunks)
    toml = chunk_markdown("p.md", "+++\ntitle = 'Hugo page'\nversion = '2.1'\n+++\n# Page\n\nBody.\n")
    assert [(c.heading, c.start, c.version) for c in toml] == [("Page", 5, "2.1")]
    rule = chunk_markdown("r.md", "---\nJust prose after a rule.\n---\nMore prose.\n")  # a rule, not metadata
    assert "Just prose" in rule[0].text
