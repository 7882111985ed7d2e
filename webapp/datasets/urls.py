"""API routes of the learning dataset, included under ``/api/v1/`` by ``webapp.urls_api``."""

from django.urls import path, re_path

from webapp.datasets.views import DatasetDetailView, DatasetFileView, DatasetListView

urlpatterns = [
    path("datasets/", DatasetListView.as_view(), name="dataset-list"),
    path("datasets/<str:game>/<str:month>/", DatasetDetailView.as_view(), name="dataset-detail"),
    re_path(
        r"^datasets/(?P<game>[^/]+)/(?P<month>[^/]+)/(?P<table>[A-Za-z0-9_-]+)\.(?P<form>[A-Za-z0-9.]+)$",
        DatasetFileView.as_view(),
        name="dataset-file",
    ),
]
