"""API routes of author notifications, included under ``/api/v1/`` by ``webapp.urls_api``."""

from django.urls import path

from webapp.notifications.views import EventFeedView, WebhookDetailView, WebhookListView

urlpatterns = [
    path("bots/<int:bot_id>/webhooks/", WebhookListView.as_view(), name="api-bot-webhooks"),
    path("bots/<int:bot_id>/events/", EventFeedView.as_view(), name="api-bot-events"),
    path("webhooks/<int:webhook_id>/", WebhookDetailView.as_view(), name="api-webhook"),
]
