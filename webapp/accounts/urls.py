"""The ``accounts`` app's API routes are registered on the one router in ``webapp.urls_api``; pages live in ``webapp.pages``."""

urlpatterns: list[object] = []
