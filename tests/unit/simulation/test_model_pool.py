"""The model pool of an edge host: one model, many edges, calls in turn across edges, a bounded queue."""

from __future__ import annotations

import threading
import time

import pytest

from shared.core.model_api import GenerationRequest
from simulation.fakes import HashEmbedder, ScriptedGenerator
from simulation.model_pool import FairQueue, ModelBusyError, ModelPool


def test_each_edge_gets_the_models_answers() -> None:
    pool = ModelPool(ScriptedGenerator(lambda r: r.prompt.upper()), HashEmbedder(16))
    try:
        gen_a, emb_a = pool.for_edge("a")
        gen_b, _ = pool.for_edge("b")
        assert gen_a.generate(GenerationRequest(prompt="hi")).texts == ("HI",)
        assert gen_b.generate(GenerationRequest(prompt="yo")).texts == ("YO",)
        assert emb_a.embed(["x", "y"]).shape == (2, 16) and emb_a.dim == 16
        assert pool.slm_queue.stats().calls == {"a": 1, "b": 1}
    finally:
        pool.close()


def test_calls_run_one_at_a_time_and_take_edges_in_turn() -> None:
    queue = FairQueue("test", max_waiting=100)
    gate = threading.Event()
    order: list[str] = []
    running = [0]
    overlap = [False]

    def work(edge: str) -> str:
        running[0] += 1
        overlap[0] |= running[0] > 1
        gate.wait(5)
        order.append(edge)
        running[0] -= 1
        return edge

    threads = [threading.Thread(target=queue.submit, args=("a", lambda: work("a")))]
    threads[0].start()
    time.sleep(0.05)  # "a" is running; now a queues 5 more, b queues 2
    for edge, n in (("a", 5), ("b", 2)):
        for _ in range(n):
            t = threading.Thread(target=queue.submit, args=(edge, lambda e=edge: work(e)))
            t.start()
            threads.append(t)
            time.sleep(0.01)
    gate.set()
    for t in threads:
        t.join(5)
    queue.close()
    assert not overlap[0], "one call at a time"
    assert order[:5] == ["a", "b", "a", "b", "a"], f"b is not starved behind a's queue: {order}"


def test_a_full_queue_refuses_with_a_clear_error_and_errors_reach_the_caller() -> None:
    queue = FairQueue("test", max_waiting=1)
    gate = threading.Event()
    first = threading.Thread(target=queue.submit, args=("a", lambda: gate.wait(5)))
    first.start()
    time.sleep(0.05)
    second = threading.Thread(target=queue.submit, args=("a", lambda: None))
    second.start()
    time.sleep(0.05)
    with pytest.raises(ModelBusyError, match="limit 1"):
        queue.submit("a", lambda: None)
    gate.set()
    first.join(5)
    second.join(5)

    def boom() -> None:
        raise ValueError("bad prompt")

    with pytest.raises(ValueError, match="bad prompt"):
        queue.submit("b", boom)
    assert queue.submit("b", lambda: 7) == 7, "the worker survives a failing call"
    queue.close()
