"""The Brawl Ladder web site and JSON API (Django + Django REST framework).

Apps by domain: ``accounts``, ``bots``, ``matches``, ``rankings``, ``tournaments``, plus ``pages``
for the server-rendered pages. Each domain app writes its models only through its ``services.py``.
This package is not the referee and not the rating maths: it persists what they produce.
"""
