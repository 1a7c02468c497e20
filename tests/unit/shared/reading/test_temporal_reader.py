"""Yes/no questions about when things happened, read from the passages' dates without a model."""

from __future__ import annotations

from datetime import timedelta

from shared.reading.compose import compose
from shared.reading.plan import plan_reading
from shared.reading.span_reader import Passage
from shared.reading.temporal import passage_time, read_times, time_question

CHATS = [
    Passage(1, "Time: 20260110_21:00\nAdamSmith: Hey Li Hua, the building maintenance schedule is out for March.", "a"),
    Passage(2, "Time: 20260114_09:00\nAdmin: The construction schedule changes for a while due to weather.", "b"),
    Passage(
        3,
        "Time: 20260301_10:00\nJakeWatson: Want to practice dribbling skills this weekend?\n"
        "LiHua: Sure! Which classic UCL matches should we watch first?",
        "c",
    ),
]


def test_questions_about_order_and_intervals_are_recognised_and_others_are_not() -> None:
    asked = time_question(
        "Did Li Hua ask Jennifer for advice on soreness after an intense workout before he told her about his arm?"
    )
    assert asked is not None and asked.relation == "before" and asked.second == "he told her about his arm"
    interval = time_question("Is the time interval more than 3 days between Adam asking A and Adam telling B?")
    assert interval is not None and (interval.relation, interval.amount) == ("more", timedelta(days=3))
    took = time_question("Did it take more than a week from Adam asking the date to Adam reminding LiHua?")
    assert took is not None and took.amount == timedelta(weeks=1)
    for other in (
        "Does the article from The Verge suggest X is unnecessary, while TechCrunch reports Y after Z happened?",
        "Was there a change in the narrative after the TechCrunch report on OpenAI's launch?",
        "Who founded Acme before 2020?",
    ):
        assert time_question(other) is None, other


def test_a_passage_is_dated_by_its_first_date_else_by_its_source() -> None:
    assert passage_time(CHATS[0]).isoformat() == "2026-01-10T21:00:00"
    article = Passage(1, "Source: The Verge, published 2023-11-24\n\nPrices fell.", "x")
    assert passage_time(article).isoformat() == "2023-11-24T00:00:00"
    assert passage_time(Passage(1, "no date here", "20260213_12:45")).isoformat() == "2026-02-13T12:45:00"
    assert passage_time(Passage(1, "no date", "notes.txt")) is None


def test_order_and_intervals_are_read_from_the_dates_and_an_unfound_event_gives_no_verdict() -> None:
    q = (
        "Did Adam Smith send Li Hua the building maintenance schedule before the administrators announced a change "
        "in the construction schedule due to weather?"
    )
    assert read_times(q, CHATS).short == "Yes"
    assert read_times(q.replace(" before ", " after "), CHATS).short == "No"
    same_chat = "Did Jake ask about practicing dribbling skills before Li Hua asked which classic UCL matches to watch?"
    assert read_times(same_chat, CHATS).short == "Yes", "two events of one chat are ordered by where they are told"
    gap = "Is the time interval more than 7 days between Adam sending the maintenance schedule and Jake on dribbling?"
    assert read_times(gap, CHATS).short == "Yes"
    assert read_times(gap.replace("7 days", "2 weeks").replace("more", "less"), CHATS).short == "No"
    unknown = "Did Wolfgang arrive in Hong Kong before he booked the violin lessons for his daughter?"
    assert read_times(unknown, CHATS) is None


def test_a_dated_verdict_answers_before_the_vote() -> None:
    q = "Did Adam Smith send Li Hua the maintenance schedule before the administrators changed the construction plan?"
    dated = compose(plan_reading(q, CHATS), ["No", "No"], withhold_below=0.0)
    assert (dated.short, dated.reader) == ("Yes", "dates")
    voted = compose(plan_reading("Is the maintenance schedule out?", CHATS), ["Yes", "Yes"], withhold_below=0.0)
    assert (voted.short, voted.reader) == ("Yes", "vote")


def test_a_chat_lines_speaker_counts_toward_the_event_it_tells() -> None:
    fridge = [
        Passage(
            1,
            "Time: 20261116_16:00\nAdamSmith: Hey Li Hua! Just checking in, what size fridge are you thinking of?",
            "a",
        ),
        Passage(2, "Time: 20261123_23:00\nAdamSmith: Hey Li Hua, the fridge will be delivered tomorrow at 4pm.", "b"),
    ]
    q = (
        "Is the time interval more than 5 days between Adam asking LiHua about the size of the fridge and Adam "
        "informing LiHua that the fridge will be delivered at 4pm next day?"
    )
    found = read_times(q, fridge)
    assert found is not None and found.short == "Yes"  # the size question is Adam's line, though not his sentence
    assert found.passage.number == 2


def test_two_events_best_matching_one_sentence_are_read_from_two_places() -> None:
    same = [
        Passage(1, "Time: 20260301_10:00\nJake: The match and the party plans are both set.", "a"),
        Passage(2, "Time: 20260305_10:00\nJake: That party was great.", "b"),
    ]
    found = read_times("Did Jake mention the match before Jake shared the party plans?", same)
    assert found is not None and found.short == "Yes" and found.passage.number == 2


def test_an_event_matched_equally_well_at_two_dates_gives_no_verdict() -> None:
    trips = [
        Passage(1, "Time: 20261219_19:00\nWolfgang: Off to Hong Kong next week!\nLiHua: Have a nice trip!", "a"),
        Passage(2, "Time: 20261223_23:00\nWolfgang: Just landed in Hong Kong!", "b"),
    ]
    assert read_times("Did Wolfgang arrive in Hong Kong after he told Li Hua about his trip?", trips) is None
