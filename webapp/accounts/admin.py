"""Accounts are Django's users; their admin is Django's own."""
