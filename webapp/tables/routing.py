"""The tables' WebSocket routes (``webapp.asgi``)."""

from django.urls import path

from webapp.tables.consumers import TableConsumer

websocket_urlpatterns = [path("ws/tables/<int:table_id>/", TableConsumer.as_asgi())]
