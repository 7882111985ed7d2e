"""No routes of its own: the API is on the router in ``webapp.urls_api``, pages in ``webapp.pages``."""

urlpatterns: list[object] = []
