"""A model server's features are each said in one line at start: served, or what the product does instead."""

from __future__ import annotations

from shared.core.model_api import Completion, GenerationRequest, TextSink
from shared.models.served_probe import served_features


class Plain:
    """A server that answers text alone: no token probabilities, no stream."""

    name = "plain"

    def generate(self, request: GenerationRequest) -> Completion:
        text = '{"city": "Oslo"}' if request.json_schema else "Yes"
        return Completion((text,), 5, 1)

    def close(self) -> None:
        return None


class Full(Plain):
    """A server that gives each token's probability and streams."""

    def generate(self, request: GenerationRequest) -> Completion:
        text = Plain.generate(self, request).texts[0]
        return Completion((text,), 5, 1, None, ((-0.1,),), ((text,),))

    def generate_streaming(self, request: GenerationRequest, on_text: TextSink) -> Completion:
        done = self.generate(request)
        on_text(done.texts[0])
        return done


def test_every_feature_served_is_said_so() -> None:
    assert served_features(Full()) == [
        "token log-probabilities: served",
        "streaming: served",
        "JSON under a schema: served",
    ]


def test_a_missing_feature_says_why_and_what_the_product_does_instead() -> None:
    lines = served_features(Plain())
    assert lines[0].startswith("token log-probabilities: not served (") and "confidence" in lines[0]
    assert lines[1].startswith("streaming: not served (the plain backend has no streaming call)")
    assert "arrives whole" in lines[1]
    assert lines[2] == "JSON under a schema: served"
