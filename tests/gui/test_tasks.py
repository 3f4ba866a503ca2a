"""The one task helper: jobs run off the GUI thread, one at a time; background work gives way to a question."""

import threading
import time

from repobot.desktop.tasks import Busy, TaskRunner
from repobot.engine.errors import RepoBotError


def test_a_background_job_gives_way_to_a_question_and_then_resumes(qtbot):
    runner = TaskRunner()
    order, done = [], []
    gui = threading.get_ident()
    submitted = threading.Event()
    in_step = threading.Event()  # the job is inside step 3 (not between steps, where a question would go first)

    def embedding(context):
        for step in range(20):
            assert threading.get_ident() != gui  # never on the GUI thread
            if step == 3:
                in_step.set()
                assert submitted.wait(5)  # the question comes while this step is being worked on
            order.append(f"embed {step}")
            yield step

    def question(context):
        order.append("question")
        return "answer"

    runner.submit(Busy.EMBEDDING, embedding, on_done=lambda _: done.append("embedding"))
    qtbot.waitUntil(in_step.is_set, timeout=5000)
    assert runner.busy is Busy.EMBEDDING
    runner.submit(Busy.ANSWERING, question, on_done=done.append)
    assert runner.busy is Busy.ANSWERING  # a question in flight is what the window shows
    submitted.set()
    qtbot.waitUntil(lambda: done == ["answer", "embedding"], timeout=5000)
    # the question runs as soon as the step under way is done, and the job then resumes where it was
    assert order == [f"embed {n}" for n in range(4)] + ["question"] + [f"embed {n}" for n in range(4, 20)]
    assert runner.busy is Busy.IDLE
    runner.shutdown()


def test_failures_become_one_message_and_cancel_reaches_the_running_job(qtbot):
    runner = TaskRunner()
    messages = []

    def failing(context):
        raise RepoBotError("No such folder: /x. Give --corpus an existing folder.")

    def endless(context):
        while not context.cancelled():
            time.sleep(0.01)
            yield "tick"
        raise RepoBotError("stopped on request")

    runner.submit(Busy.INDEXING, failing, on_failed=messages.append)
    runner.submit(Busy.ANSWERING, endless, on_failed=messages.append)
    qtbot.waitUntil(lambda: len(messages) == 1 and runner.busy is Busy.ANSWERING, timeout=5000)
    runner.cancel()
    qtbot.waitUntil(lambda: len(messages) == 2, timeout=5000)
    assert messages == ["No such folder: /x. Give --corpus an existing folder.", "stopped on request"]
    runner.shutdown()
