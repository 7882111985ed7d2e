"""Accounts use Django's own ``auth.User``: an author is a user, an organizer is a staff user.

No extra model is needed yet; API tokens for authors are DRF's ``authtoken.Token``.
"""
