"""Every rule of the citation check carries examples it must find and must pass (proselint's example table,
flake8's codes), and each is held to them here, alone and in the whole loop."""

from __future__ import annotations

import pytest

from rag.check.rules import RULES, Comparison, Example, Rule, SourceFacts, best_aligned, run_rules, windows
from rag.text import split_sentences


def _comparison(example: Example) -> Comparison:
    restates, _ = best_aligned(example.sentence, windows(split_sentences(example.source)))
    return Comparison.of(example.sentence, [SourceFacts.of(example.source)], restates=restates)


def test_every_rule_has_a_unique_code_and_examples_both_ways() -> None:
    assert len({rule.code for rule in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.must_find, f"{rule.code} has no example it must find"
        assert rule.must_pass, f"{rule.code} has no example it must pass"


@pytest.mark.parametrize(
    ("rule", "example"), [(r, e) for r in RULES for e in r.must_find], ids=lambda x: getattr(x, "code", "")
)
def test_a_rule_finds_what_it_must(rule: Rule, example: Example) -> None:
    comparison = _comparison(example)
    assert [f for f in rule.find(comparison) if f.code == rule.code], example
    assert rule.code in {f.code for f in run_rules(comparison)}, example  # the loop keeps it too
    for finding in rule.find(comparison):
        assert rule.describe(finding, "[1]", None)


@pytest.mark.parametrize(
    ("rule", "example"), [(r, e) for r in RULES for e in r.must_pass], ids=lambda x: getattr(x, "code", "")
)
def test_a_rule_passes_what_it_must(rule: Rule, example: Example) -> None:
    assert not rule.find(_comparison(example)), example


def test_a_swap_is_told_as_a_swap_not_also_as_a_missing_name() -> None:
    source = "Treatment reduced weight gain in mice with type 2 diabetes."
    findings = run_rules(_comparison(Example("Treatment reduced weight gain in rats with type 2 diabetes.", source)))
    assert [(f.code, f.said, f.source_says) for f in findings] == [("swapped", "rats", "mice")]


def test_a_direction_turned_and_a_denial_added_cancel_out() -> None:
    assert not run_rules(_comparison(Example("X did not increase Y.", "X decreased Y.")))


def test_a_denial_dropped_word_for_word_is_told_once() -> None:
    """ "has fallen" for "neither ... nor ... changed", restated word for word: the denial rule tells it, the
    no-change rule (which also reads looser restatements) does not tell it again."""
    source = "In US hospitals, neither the incidence of sepsis nor the death rate changed from 2009 to 2014."
    sentence = "In US hospitals, the incidence of sepsis and the death rate have fallen since 2009."
    assert [f.code for f in run_rules(_comparison(Example(sentence, source)))] == ["reversed-denial"]
