"""The answer of ``repobot ask``, written on a worker thread: the main thread keeps Ctrl-C; the model loads on
another while the index does."""

from __future__ import annotations

import queue
import threading
from contextlib import contextmanager
from typing import Callable, Iterator


def off_main_thread(events, cancel: threading.Event):
    """What ``events()`` yields, made on a worker thread: a Ctrl-C is handled here (the main thread) at once, and
    ``cancel`` stops the model where it is, reading the prompt too (``LLM.stopping_on``), instead of after it.
    An error in the worker is raised here.

    >>> list(off_main_thread(lambda: iter([1, 2]), threading.Event()))
    [1, 2]
    """
    items: queue.Queue = queue.Queue()
    end = object()

    def work():
        try:
            for item in events():
                items.put((item, None))
            items.put((end, None))
        except BaseException as err:  # noqa: BLE001 - raised again on the main thread
            items.put((end, err))

    worker = threading.Thread(target=work, name="repobot-ask", daemon=True)
    worker.start()
    try:
        while True:
            try:
                item, err = items.get(timeout=0.2)  # a wait with a timeout, which Ctrl-C interrupts on every system
            except queue.Empty:
                continue
            if err is not None:
                raise err
            if item is end:
                return
            yield item
    finally:
        if worker.is_alive():  # stopped by Ctrl-C, or by an error here
            cancel.set()
        worker.join()


@contextmanager
def loading_beside(load: Callable[[], object]) -> Iterator[None]:
    """``load()`` run on a thread while the block runs (the model, 0.9 s here, while the index loads, 1 s). A failure
    there is left for the block, whose own use of what it loads meets it again and reports it. The block's end waits
    for the load: the process never exits while llama.cpp is still loading.

    >>> with loading_beside(lambda: 1 / 0):
    ...     print("the block runs")
    the block runs
    """

    def quietly():
        try:
            load()
        except Exception:  # noqa: BLE001 - met again, and reported, where the command uses the model
            pass

    thread = threading.Thread(target=quietly, name="repobot-load", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()
