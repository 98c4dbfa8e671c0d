"""A sentence's opposite, and the judge reading a source as stating it: a reversal caught however the sentence
is worded, and only where the passage's own words bear it out."""

from __future__ import annotations

import pytest

from rag.check import judge
from rag.check.rules.opposites import Opposite, Turn, borne_out, opposites
from rag.check.scoring import score_against_sources
from rag.check.titles import without_title
from rag.corpus.roles import is_aim, is_method
from rag.records import Paper

ABSTRACT = (
    "Shift work is common among nurses. In a cohort of 2,100 hospital nurses followed for six years, night "
    "shifts were associated with a 30% higher incidence of type 2 diabetes. The association was stronger in "
    "nurses younger than 40. Sleep duration did not explain the difference."
)
PAPER = Paper(id="p1", text=ABSTRACT, title="Night shifts and diabetes in nurses", authors=["Lee, Ana"], year=2020)
REVERSED = "Nurses working night shifts had a lower incidence of type 2 diabetes."


@pytest.fixture(autouse=True)
def judge_on() -> None:
    judge.use_judge(True)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Times were faster after caffeine.", [("Times were slower after caffeine.", Turn.DIRECTION)]),
        ("Higher doses helped.", [("Lower doses helped.", Turn.DIRECTION)]),
        ("Exercise does not reduce pain.", [("Exercise does reduce pain.", Turn.DENIAL)]),
        ("It doesn't work.", [("It does work.", Turn.DENIAL)]),
        ("Trials cannot show it.", [("Trials can show it.", Turn.DENIAL)]),
        ("No effect was found.", [("Effect was found.", Turn.DENIAL)]),
        (
            "Exercise did not increase pain.",
            [("Exercise did not decrease pain.", Turn.DIRECTION), ("Exercise did increase pain.", Turn.DENIAL)],
        ),
        ("Sleep was measured in 40 adults.", []),
        ("We were not able to replicate the link.", []),  # the author's own work, set against the source's
        ("The mechanism is reviewed elsewhere and is not the focus of this chapter.", []),  # the thesis itself
        ("This study did not find an effect.", [("This study did find an effect.", Turn.DENIAL)]),  # the one cited
        ("Our cohort showed no higher risk.", [("Our cohort showed no lower risk.", Turn.DIRECTION)]),
        ("The US trial found no effect.", [("The US trial found effect.", Turn.DENIAL)]),
        ("Air pollution is unrelated to anxiety.", [("Air pollution is related to anxiety.", Turn.DENIAL)]),
        ("Ineffective drugs were stopped.", [("Effective drugs were stopped.", Turn.DENIAL)]),
        ("The drug is not ineffective.", [("The drug is ineffective.", Turn.DENIAL)]),  # "not" is dropped first
        # a "not" that denies nothing: when a thing happens, "not only", "whether or not"
        ("Abscission is not completed until the following G2 phase.", []),
        ("Cells not only divide but also migrate.", []),
        ("Whether or not cells divide is unclear.", []),
        ("It wasn't until 2010 that the method was adopted.", []),
        ("It was not until 2010 that the method was adopted.", []),
        ("Cells do not divide, and not only in culture.", [("Cells do divide, and not only in culture.", Turn.DENIAL)]),
    ],
)
def test_a_sentence_turned_to_its_opposite(sentence: str, expected: list[tuple[str, Turn]]) -> None:
    assert [(o.text, o.turn) for o in opposites(sentence)] == expected


def test_the_opposite_counts_only_where_the_passage_bears_it_out() -> None:
    """In its own words: the opposite's direction and word, not the sentence's ("a lower incidence" is borne out
    by "lower", not by "higher", nor by a passage saying both)."""
    (lower,) = opposites("Diabetes was higher in night-shift nurses.")
    assert (lower.said, lower.instead) == ("higher", "lower")
    assert borne_out(lower, "Night shifts were associated with a lower incidence of diabetes.")
    assert not borne_out(lower, "Night shifts were associated with a 30% higher incidence of diabetes.")
    assert not borne_out(lower, "Incidence was lower in day shifts and higher in night shifts.")
    assert not borne_out(lower, "Night shifts were associated with an increased incidence, lower in the young.")
    undenied = Opposite("Sleep explained the difference.", Turn.DENIAL)
    assert borne_out(undenied, "Sleep duration explained most of the difference.")
    assert not borne_out(undenied, "Sleep duration did not explain the difference.")
    (related,) = opposites("Anxiety is unrelated to air pollution.")
    assert borne_out(related, "Anxiety was associated with exposure to air pollution.")
    assert not borne_out(related, "Anxiety was unrelated to exposure to air pollution.")


def test_a_source_stating_what_a_word_denies_is_a_conflict() -> None:
    """ "Unrelated" denies as "not related" does: a source finding the association states the opposite."""
    abstract = (
        "OBJECTIVE To determine whether past exposure to particulate air pollution is associated with prevalent "
        "high symptoms of anxiety. RESULTS Among 71,271 women, exposure to fine particulate matter (PM2.5) was "
        "associated with high symptoms of anxiety, with more recent exposures more relevant than distant ones."
    )
    unrelated, related = judge.judge_texts(
        [
            "Exposure to fine particulate air pollution is unrelated to anxiety prevalence.",
            "Exposure to fine particulate air pollution is related to anxiety prevalence.",
        ],
        [abstract, abstract],
    )
    assert "associated with high symptoms of anxiety" in unrelated.opposite
    assert related.opposite == ""


def test_a_source_stating_the_opposite_in_other_words_is_a_conflict() -> None:
    """The judge alone reads "lower incidence" as only somewhat contradicted; its opposite, "higher incidence",
    the abstract states outright."""
    reversed_, faithful = judge.judge_texts(
        [REVERSED, "Night shifts were associated with a higher incidence of type 2 diabetes."], [ABSTRACT, ABSTRACT]
    )
    assert "30% higher incidence" in reversed_.opposite
    assert faithful.opposite == ""
    (score,), (kept,) = score_against_sources([REVERSED, "The association was stronger in younger nurses."], [PAPER])
    assert score.conflict and score.opposite and not kept.conflict


def test_off_no_opposite_is_read() -> None:
    judge.use_judge(False)
    (score,) = score_against_sources([REVERSED], [PAPER])[0]
    assert score.opposite == ""


def test_an_aim_states_no_opposite() -> None:
    """ "To assess the association between X and Y" names an association it did not find: the judge read it as
    stating "X is related to Y", the opposite of a sentence the abstract's finding bears out."""
    abstract = (
        "OBJECTIVE To assess the association between use of macrolide antibiotics in infants and infantile "
        "hypertrophic pyloric stenosis. RESULTS Use of macrolides in infants was not associated with infantile "
        "hypertrophic pyloric stenosis."
    )
    (read,) = judge.judge_texts(
        ["Macrolide use in infants is unrelated to infantile hypertrophic pyloric stenosis."], [abstract]
    )
    assert read.opposite == ""


@pytest.mark.parametrize(
    ("sentence", "aim"),
    [
        ("OBJECTIVE To determine whether past exposure is associated with anxiety.", True),
        ("OBJECTIVES: To evaluate the programme.", True),
        ("We aimed to test whether sleep predicts mood.", True),
        ("The purpose of this study was to compare two drugs.", True),
        ("Exposure was associated with anxiety.", False),
        ("To our knowledge, this is the first such cohort.", False),
        ("To date, no trial has compared them.", False),
    ],
)
def test_an_aim_is_told_by_its_label_or_opening(sentence: str, aim: bool) -> None:
    assert is_aim(sentence) is aim


@pytest.mark.parametrize(
    ("sentence", "method"),
    [
        ("METHODS: We recruited 40 men from two clinics.", True),
        ("DESIGN, SETTING, AND PARTICIPANTS A randomized trial of 52 adults in a sleep clinic.", True),
        ("INTERVENTION CBT (sleep restriction and relaxation; n = 20) or placebo (n = 14).", True),
        ("MAIN OUTCOME MEASURES Mortality at 30 days.", True),
        ("Design: cohort study of 1,200 nurses.", True),
        ("RESULTS Of the 32,441 samples 16 were positive.", False),
        ("CONCLUSION CBT was superior to zolpidem.", False),
        ("METHODS AND RESULTS We found that sleep improved.", False),  # two roles: left to the model
        ("DNA damage was increased in mice.", False),
        ("MTOR DNA is high in tumours.", False),  # capitals that are no label
    ],
)
def test_a_method_is_told_by_its_label_with_or_without_a_colon(sentence: str, method: bool) -> None:
    assert is_method(sentence) is method


def test_a_methods_passage_states_no_opposite_and_leaves_room_for_the_finding() -> None:
    """Read beside the methods sentences naming the therapy and the condition, the judge found the opposite of
    "... is an ineffective treatment" nowhere; methods state no finding: without them it reads the conclusion,
    which states that the therapy works."""
    abstract = (
        "Insomnia is common in older adults. DESIGN, SETTING, AND PARTICIPANTS A randomized, placebo-controlled "
        "trial of 52 adults with chronic primary insomnia in a university sleep clinic. INTERVENTION Cognitive "
        "behavioral therapy (sleep restriction, stimulus control and relaxation; n = 20), zolpidem (n = 18) or "
        "placebo (n = 14). CONCLUSION Cognitive behavioral therapy was superior to zolpidem in the short- and "
        "long-term treatment of insomnia."
    )
    (read,) = judge.judge_texts(["Cognitive behavioral therapy is an ineffective treatment for insomnia."], [abstract])
    assert "superior to zolpidem" in read.opposite
    assert all("INTERVENTION" not in passage and "DESIGN" not in passage for passage in read.opposites)


def test_a_word_denying_in_itself_is_turned_as_a_direction_is_where_the_passage_speaks_of_it() -> None:
    """ "Ineffective" turned to "effective" is a word swapped for its opposite, read at a direction's bar (a "not"
    dropped needs more: the judge leans to reading any undenied sentence as stated); the passage must speak of
    what the word denies: "Actin 5C was unaffected", beside genes a source does study, is no finding on them."""
    sentence = judge.Judgement(0.1, 0.1, "")
    (effective,) = opposites("Cognitive behavioral therapy is an ineffective treatment for insomnia.")
    (undenied,) = opposites("Cognitive behavioral therapy is not an effective treatment for insomnia.")
    conclusion = "Cognitive behavioral therapy was superior to zolpidem in the long-term treatment of insomnia."
    assert judge._bar(effective, conclusion) == judge.RESTATED_OPPOSITE_STATED[Turn.DIRECTION]
    assert judge._bar(undenied, conclusion) == judge.RESTATED_OPPOSITE_STATED[Turn.DENIAL]
    assert judge._states(effective, 0.75, conclusion, sentence)
    assert not judge._states(undenied, 0.75, conclusion, sentence)
    sentence_on_genes = "Cyclin B and aurora B were reduced; in contrast the housekeeping gene Actin 5C was unaffected."
    (affected,) = [o for o in opposites(sentence_on_genes) if o.turn is Turn.DENIAL]
    assert not borne_out(affected, "Cyclin B localizes at the cytokinesis bridge, where it promotes abscission.")
    assert borne_out(affected, "Levels of the Actin 5C transcript fell in mutant ovaries.")


def test_a_title_naming_its_topic_states_no_opposite_even_beside_a_sentence() -> None:
    """The judge read "Use of macrolides ... and risk of infantile hypertrophic pyloric stenosis" with the
    methods sentence after it as stating the association a sentence denies: a title naming its topic is left out
    of what an opposite is read in, one asserting something is not."""
    title = "Use of macrolides in mother and child and risk of infantile hypertrophic pyloric stenosis"
    text = f"{title}. PARTICIPANTS 999,378 liveborn singleton infants and their mothers."
    sentence = "There is no relation between macrolide use and infantile hypertrophic pyloric stenosis."
    (untitled,) = judge.judge_texts([sentence], [text])
    (titled,) = judge.judge_texts([sentence], [text], [title])
    assert untitled.opposite and not titled.opposite


def test_only_a_title_naming_its_topic_is_left_out() -> None:
    assert without_title(
        "Vortex Photography in Liquid Helium. We image vortices.", "Vortex Photography in Liquid Helium"
    ) == ("We image vortices.")
    asserting = "Rok1p Is a Putative RNA Helicase Required for rRNA Processing"
    assert without_title(f"{asserting}. Rok1p binds.", asserting) == f"{asserting}. Rok1p binds."
    assert without_title("No title here. Text.", None) == "No title here. Text."


def test_a_dropped_denial_needs_less_in_a_passage_restating_the_sentence() -> None:
    """Read at 0.88 where the passage restates the sentence (the reference standard for diagnosing hypertension),
    the opposite is stated: there the judge reads what is denied, not a neighbouring point, which needs 0.9."""
    abstract = (
        "The diagnosis of hypertension has traditionally been based on blood pressure measured in the clinic, but "
        "home and ambulatory measurements correlate better with cardiovascular outcome. We compared clinic and home "
        "measurements with ambulatory monitoring as the reference standard for diagnosing hypertension in 2,400 "
        "adults. Ambulatory monitoring as a diagnostic strategy after a raised clinic reading would reduce "
        "misdiagnosis and save costs."
    )
    (read,) = judge.judge_texts(["Ambulatory monitoring is not accurate for diagnosing hypertension."], [abstract])
    assert "reference standard for diagnosing hypertension" in read.opposite
    assert judge.OPPOSITE_STATED[Turn.DENIAL] > judge.RESTATED_OPPOSITE_STATED[Turn.DENIAL]


def test_the_bar_an_opposite_must_clear() -> None:
    """A dropped denial read at 0.92 against a sentence read at 0.6 (the judge reads a "not" as stated too) is
    stated; a direction turned is stated at 0.75 against 0.6 only where the passage restates the sentence."""
    sentence = judge.Judgement(0.6, 0.1, "")
    (undenied,) = [o for o in opposites("Reminders did not improve adherence in adults.") if o.turn is Turn.DENIAL]
    elsewhere = "Text messages were sent weekly to every participant of the trial."
    assert judge._states(undenied, 0.92, elsewhere, sentence)
    assert not judge._states(undenied, 0.85, elsewhere, sentence)
    (turned,) = opposites("Bleeding was lower with the new drug than with warfarin.")
    restating = "Bleeding was higher with the new drug than with warfarin (rate ratio 1.6)."
    assert judge._states(turned, 0.75, restating, sentence)
    assert not judge._states(turned, 0.75, "Major bleeding was higher in older patients.", sentence)
