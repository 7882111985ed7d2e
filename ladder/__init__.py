"""The ladder: ratings, matchmaking and tournament formats as pure functions over plain values.

Nothing here imports Django, Celery or the network, reads a clock or touches the global random
generator: "now" and a seeded :class:`random.Random` are parameters. The web app stores what these
functions return and the workers call them; see ``docs/ladder.md`` for the API and the decisions.

Modules: :mod:`ladder.ids` (id types), :mod:`ladder.results` (a rated game as data),
:mod:`ladder.elo`, :mod:`ladder.glicko2`, :mod:`ladder.history` (ratings as a replay of results),
:mod:`ladder.matchmaking` and :mod:`ladder.tournaments`.
"""
