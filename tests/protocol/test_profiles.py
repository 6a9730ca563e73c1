"""Profiles, leaderboards and the daily deal as typed values: the same maps back."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.codec import pack_value
from protocol.exceptions import InvalidField
from protocol.profiles import DailyDeal, LeaderboardEntry, PlayerProfile
from protocol.results import RacerStatus

#: Maps as the server builds them (server/services/records.py, daily.py), keys in its order.
PROFILE: dict[str, Any] = {
    "player": "u0123456789ab",
    "name": "Ann",
    "ratings": {"overall": {"rating": 1512, "provisional": True, "races": 1}},
    "races": {"overall": {"played": 2, "won": 1, "best": 88.5}, "gavotte": {"played": 1, "won": 0}},
    "recent": [
        {"race": "q1", "variant": "gavotte", "at": 1700000000.0, "place": 1, "of": 2,
         "status": "resigned", "time": 9.5, "home": 8, "change": 12, "rating": 1512},
        {"race": "q0", "variant": "gavotte", "at": 1690000000.0, "place": 2, "of": 2,
         "status": "won", "time": 88.5, "home": 104, "change": None, "rating": None},
    ],
}  # fmt: skip
DAILY: dict[str, Any] = {
    "variant": "gavotte",
    "day": "2024-05-01",
    "commitment": "ab" * 32,
    "board": [
        {"place": 1, "player": "u0123456789ab", "name": "Ann", "won": True, "time": 80.5},
        {"place": 2, "player": "u0123456789ac", "name": "Bob", "won": False, "home": 31},
    ],
    "yesterday": {"day": "2024-04-30", "seed": 42, "deal_version": 1, "commitment": "cd" * 32},
}


def test_a_profile_round_trips() -> None:
    """A profile map becomes a PlayerProfile and the very same bytes again."""
    profile = PlayerProfile.from_data(PROFILE)
    assert pack_value(profile.to_data()) == pack_value(PROFILE)
    assert (
        profile.recent[0].status is RacerStatus.RESIGNED and profile.races["gavotte"].best is None
    )


@pytest.mark.parametrize(
    "entry",
    [
        {"place": 1, "player": "u0123456789ab", "name": "Ann", "rating": 1600},
        {"place": 1, "player": "u0123456789ab", "name": "Ann", "time": 80.5},
    ],
)
def test_leaderboard_entries_round_trip(entry: dict[str, Any]) -> None:
    """A rating line and a fastest-win line each come back as they went."""
    assert LeaderboardEntry.from_data(entry).to_data() == entry


def test_a_daily_deal_round_trips() -> None:
    """The daily map, with a win, a game not won and yesterday's seed, comes back the same."""
    daily = DailyDeal.from_data(DAILY)
    assert pack_value(daily.to_data()) == pack_value(DAILY)
    assert pack_value(DailyDeal.from_data({**DAILY, "yesterday": None}).to_data()) == pack_value(
        {**DAILY, "yesterday": None}
    )


def test_a_bad_profile_is_refused_naming_the_key() -> None:
    """A rating that is not a number is refused with its path."""
    bad = {**PROFILE, "ratings": {"overall": {"rating": "high", "provisional": True, "races": 1}}}
    with pytest.raises(InvalidField) as caught:
        PlayerProfile.from_data(bad)
    assert caught.value.field == "profile.ratings.overall.rating"
