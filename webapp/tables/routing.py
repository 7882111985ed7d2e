"""The tables' WebSocket routes (``webapp.asgi``)."""

from django.urls import path

from webapp.tables.consumers import TableConsumer

# Channels routes with Django's own path(); the stubs expect a view there.
websocket_urlpatterns = [path("ws/tables/<int:table_id>/", TableConsumer.as_asgi())]  # type: ignore[arg-type]
