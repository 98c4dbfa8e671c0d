"""A model that does not speak OpenAI's API, added as a provider: one class beside the others
(rag.llm.providers), its model any ChatModel; the response cache and every check of the writing pipeline
apply to it unchanged."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SEEDS

from rag.check import AnswerMode, Support
from rag.config import Settings, load_settings
from rag.corpus import load_paths
from rag.llm import (
    PROVIDERS,
    Activity,
    ChatModel,
    ChatPlaces,
    Completion,
    EndpointMemory,
    JsonSchema,
    Level,
    OnToken,
    OpenAICompatible,
    ProbeLine,
    StreamWatch,
    Usage,
    chat_model,
    provider_for,
)
from rag.records import Notify
from rag.text import split_prose
from rag.writing import Composer

_SOURCE = re.compile(r'<source n="(\d+)">\n(?:[A-Z][a-z]+: .*\n)*(?P<text>.*?)\n</source>', re.DOTALL)


class ExtractiveEngine:
    """Not an HTTP endpoint: answers in-process by restating the first sentence of its first source, cited."""

    name = "restating-engine"
    accepts_schema = False

    def __init__(self) -> None:
        self.calls = 0

    def complete(
        self,
        system: str,
        user: str,
        on_token: OnToken | None = None,
        *,
        schema: JsonSchema | None = None,
        watch: StreamWatch | None = None,
        max_tokens: int | None = None,
        checking: bool = False,
    ) -> Completion:
        self.calls += 1
        source = _SOURCE.search(user)
        assert source is not None, "the prompt holds numbered sources"
        text = f"{split_prose(source['text'])[0]} [{source[1]}]"
        if on_token:
            on_token(text)
        return Completion(text, Usage(len(user) // 4, len(text) // 4, calls=1))


class EngineProvider:
    """The provider a contributor adds: when it applies, how it builds its model, what doctor says of it."""

    def __init__(self) -> None:
        self.engine = ExtractiveEngine()

    def applies(self, settings: Settings) -> bool:
        return settings.llm_model == ExtractiveEngine.name

    def build(
        self, settings: Settings, memory: EndpointMemory, activity: Activity | None, notify: Notify
    ) -> tuple[ChatModel, str]:
        return self.engine, f"engine:{self.engine.name}"

    def probe(self, settings: Settings) -> list[ProbeLine]:
        return [ProbeLine("llm", Level.OK, f"{self.engine.name} runs in this process")]


def test_a_provider_that_is_not_openai_compatible_writes_checked_cached_answers(tmp_path: Path) -> None:
    provider = EngineProvider()
    providers = (provider, *PROVIDERS)
    settings = load_settings(llm_model=ExtractiveEngine.name, data_dir=tmp_path / "data")
    assert provider_for(settings, providers) is provider
    assert isinstance(provider_for(load_settings(llm_model="gpt-4o-mini")), OpenAICompatible)
    places = ChatPlaces(tmp_path / "answers", tmp_path / "capabilities.json")
    papers = list(load_paths([SEEDS / "000_e22c73655386b99b.txt"]).papers.values())[:3]

    for _ in range(2):  # the second time from the response cache: the engine is not asked again
        model = chat_model(settings, places, providers=providers)
        summary = Composer(model, None).summary("decentralized training", papers)
        assert summary.mode is AnswerMode.LLM and summary.model == ExtractiveEngine.name
        assert [s.support for s in summary.sentences] == [Support.EVIDENCE], "checked as any model's sentence"
    assert provider.engine.calls == 1
    assert provider.probe(settings)[0].level is Level.OK
