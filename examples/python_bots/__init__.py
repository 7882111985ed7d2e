"""Example bots written against the Python SDK; each plays any game from its options alone.

Run one against a referee:

    brawl bot run examples.python_bots.greedy:GreedyBot --server HOST:PORT --token T

or locally against a house bot:

    brawl play --game scrumbrawl examples.python_bots.greedy:GreedyBot random --games 10
"""
