"""API routes of hosted bots, included under ``/api/v1/`` by ``webapp.urls_api``."""

from django.urls import path

from webapp.hosting.views import MatchLogsView, UploadDetailView, UploadView

urlpatterns = [
    path("bots/<int:bot_id>/upload/", UploadView.as_view(), name="api-bot-upload"),
    path("hosted-uploads/<int:upload_id>/", UploadDetailView.as_view(), name="api-hosted-upload"),
    path("matches/<int:match_id>/hosted-logs/", MatchLogsView.as_view(), name="api-match-hosted-logs"),
]
