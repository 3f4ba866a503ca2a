import threading

from repobot.engine.generate import Generation
from tests.conftest import FakeLLM


def test_streams_all_tokens_and_records_stats():
    gen = Generation(FakeLLM("Redirects are off by default [1]."), [], max_tokens=100)
    pieces = list(gen)
    assert "".join(pieces) == "Redirects are off by default [1]."
    assert gen.tokens == len(pieces) and gen.stop_reason == "end"
    assert gen.first_token_s is not None


def test_thinking_is_hidden_from_stream_and_text():
    gen = Generation(FakeLLM("<think>maybe [7]?</think>Off by default [1]."), [], max_tokens=100)
    shown = "".join(gen)
    assert "think" not in shown and "[7]" not in shown
    assert gen.text == "Off by default [1]."


def test_repetition_stops_generation():
    gen = Generation(FakeLLM("Intro. " + "Use follow_redirects=True [1]. " * 20), [], max_tokens=1000)
    list(gen)
    assert gen.stop_reason == "repetition"
    assert gen.text.count("follow_redirects") < 6


def test_cancel_is_checked_at_every_token():
    cancel = threading.Event()
    gen = Generation(FakeLLM("x" * 400, piece=1), [], max_tokens=1000, cancel=cancel)
    got = []
    for piece in gen:
        got.append(piece)
        if len(got) == 5:
            cancel.set()
    assert len(got) == 5 and gen.stop_reason == "cancelled"
