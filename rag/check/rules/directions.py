"""A word of direction turned to its opposite where the sentence restates its source: "increased" for
"decreased", "slower" for "faster", "higher" for "lower"; or a part or state turned into the other one:
"anterior" for "posterior", "unstable" for "stable"."""

from __future__ import annotations

from rag.check.rules.finding import Finding, says_instead
from rag.check.rules.polarity import opposed
from rag.check.rules.rule import MAX_SWAPPED_WORDS, Comparison, Edit, Example, Rule, Stage

CODE = "reversed-direction"


def _turned(edit: Edit) -> tuple[str, str] | None:
    """A word of direction of a substitution turned; or one of a word or two put in place of a few more, where it
    stands for the last of them ("delayed the" for "resulted in an accelerated"; not "inhibited" for "caused a
    global inhibition of")."""
    if edit.substituted:
        return opposed(edit.said, edit.replaced)
    if edit.op == "replace" and len(edit.said) <= 2 and len(edit.replaced) <= 2 * MAX_SWAPPED_WORDS:
        return opposed(edit.said, edit.replaced[-1:])
    return None


def find(c: Comparison) -> list[Finding]:
    return [Finding(CODE, p[0], p[1]) for e in c.edits if (p := _turned(e))]


SOURCE = "Caffeine intake was associated with shorter sleep duration and significantly faster reaction times."
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.ALIGNED,
    find=find,
    describe=says_instead,
    must_find=(
        Example("Caffeine intake was associated with longer sleep duration.", SOURCE),
        Example("Caffeine intake was associated with significantly slower reaction times.", SOURCE),
        Example("Soil CO2 flux declined with time since fire.", "Soil CO2 flux increased with time since fire."),
        Example(  # an amount, in other words than the source's
            "Phage DNA concentrations rose during periods of high flow.",
            "Phage DNA concentrations were significantly lower during periods of high flow.",
        ),
        Example(  # which part: the opposite end, the other subunit
            "High levels of Nos protein at the anterior pole of the embryo inhibit Hunchback translation.",
            "High levels of Nos protein at the posterior pole of the embryo inhibit Hunchback translation.",
        ),
        Example(
            "Forecasts at 0-h lead time got the lowest skill scores.",
            "Forecasts at 0-h lead time got the highest skill scores.",
        ),
        Example(
            "The Barents Sea is a net importer of carbon to the Arctic Ocean.",
            "The Barents Sea is a net exporter of carbon to the Arctic Ocean.",
        ),
        Example(
            "In the symmetric configuration the vortex dipole was unstable.",
            "In the symmetric configuration the vortex dipole was stable.",
        ),
        Example(
            "Rett syndrome is an X-linked recessive disorder caused by mutations in MeCP2.",
            "Rett syndrome is an X-linked dominant disorder caused by mutations in MeCP2.",
        ),
        Example(  # a word for a few
            "Giving an arginase inhibitor to recipient mice delayed the rejection of corneal grafts.",
            "Giving an arginase inhibitor to recipient mice resulted in an accelerated rejection of corneal grafts.",
        ),
        Example(  # which side
            "Word-retrieval deficits were tied to neural sites in the right temporal lobe.",
            "Word-retrieval deficits were tied to neural sites in the left temporal lobe.",
        ),
    ),
    must_pass=(
        Example("Caffeine intake was associated with shorter sleep duration.", SOURCE),
        Example(
            "Word-retrieval deficits were tied to sites in the left temporal lobe.",
            "Word-retrieval deficits were tied to neural sites in the left temporal lobe.",
        ),
        Example("Caffeine went with faster reactions and less sleep.", SOURCE),
    ),
)
