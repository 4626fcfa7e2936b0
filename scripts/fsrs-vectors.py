#!/usr/bin/env python3
"""Reference vectors for devcoach's FSRS scheduler, produced by py-fsrs (the reference
implementation, https://github.com/open-spaced-repetition/py-fsrs).

    python3 -m venv /tmp/fsrs && /tmp/fsrs/bin/pip install fsrs==6.3.2
    /tmp/fsrs/bin/python scripts/fsrs-vectors.py > tests/fixtures/fsrs/reference-vectors.json

Scheduling as devcoach does it: no learning or relearning steps (a lesson is reviewed days
apart, not drilled within minutes), no fuzz. Each case is a card reviewed with `ratings`, the
i-th review `elapsed_days[i]` whole days after the one before (the first is the card's first
review). For every review the vector holds the interval in days, stability, difficulty and the
retrievability the scheduler saw just before that review.
"""
import importlib.metadata
import json
import random
from datetime import datetime, timedelta, timezone

import fsrs
from fsrs import Card, Rating, Scheduler

START = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)


def run(parameters, retention, ratings, elapsed, maximum_interval=36500):
    scheduler = Scheduler(
        parameters=parameters,
        desired_retention=retention,
        learning_steps=(),
        relearning_steps=(),
        maximum_interval=maximum_interval,
        enable_fuzzing=False,
    )
    card = Card()
    at = START
    steps = []
    for i, (rating, days) in enumerate(zip(ratings, elapsed)):
        at = at + timedelta(days=days) if i else at
        before = scheduler.get_card_retrievability(card, at) if i else 0.0
        card, _ = scheduler.review_card(card, Rating(rating), at)
        steps.append({
            "interval": (card.due - at).days,
            "stability": card.stability,
            "difficulty": card.difficulty,
            "retrievability": before,
        })
    return steps


def main():
    rng = random.Random(20261130)
    default = list(fsrs.scheduler.DEFAULT_PARAMETERS)
    lows, highs = fsrs.scheduler.LOWER_BOUNDS_PARAMETERS, fsrs.scheduler.UPPER_BOUNDS_PARAMETERS
    cases = []

    def add(name, parameters, retention, ratings, elapsed, maximum_interval=36500):
        cases.append({
            "name": name,
            "parameters": parameters,
            "desired_retention": retention,
            "maximum_interval": maximum_interval,
            "ratings": ratings,
            "elapsed_days": elapsed,
            "steps": run(parameters, retention, ratings, elapsed, maximum_interval),
        })

    # The example of `devcoach review schedule --help`.
    add("cli example", default, 0.9, [3, 3, 1, 4], [0, 1, 3, 10])
    for first in (1, 2, 3, 4):
        add(f"first rating {first}", default, 0.9, [first], [0])
    add("same-day reviews (short-term stability)", default, 0.9, [3, 3, 1, 3, 4], [0, 0, 0, 0, 0])
    add("long gaps", default, 0.9, [3, 3, 3, 3, 3], [0, 30, 200, 900, 3000])
    add("maximum interval", default, 0.9, [4, 4, 4, 4, 4, 4], [0, 10, 60, 400, 2000, 9000], 365)
    for retention in (0.7, 0.8, 0.85, 0.95, 0.97):
        add(f"retention {retention}", default, retention, [3, 3, 2, 3, 1, 3], [0, 2, 7, 20, 45, 10])
    # Random cards under the default parameters, then under random valid parameters.
    for n in range(40):
        k = rng.randint(2, 12)
        ratings = [rng.choice([1, 2, 3, 3, 3, 4]) for _ in range(k)]
        elapsed = [0] + [rng.choice([0, 1, 2, 3, 5, 8, 13, 30, 90, 365]) for _ in range(k - 1)]
        add(f"random default {n}", default, 0.9, ratings, elapsed)
    for n in range(40):
        parameters = [round(rng.uniform(lo, min(hi, lo + (hi - lo) * 0.6)), 4) for lo, hi in zip(lows, highs)]
        k = rng.randint(2, 10)
        ratings = [rng.randint(1, 4) for _ in range(k)]
        elapsed = [0] + [rng.randint(0, 120) for _ in range(k - 1)]
        add(f"random parameters {n}", parameters, round(rng.uniform(0.75, 0.97), 3), ratings, elapsed)
    # One case per line: diffs stay readable when the generator changes.
    head = json.dumps(f"py-fsrs {importlib.metadata.version('fsrs')}")
    print('{"generator": ' + head + ', "cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}")


if __name__ == "__main__":
    main()
