"""Page routes of hosted bots (the author's upload form and an upload's logs), under ``/hosted/``."""

from django.urls import path

from webapp.hosting import pages

urlpatterns = [
    path("bots/<int:bot_id>/upload/", pages.upload_page, name="hosted-upload"),
    path("uploads/<int:upload_id>/", pages.upload_detail_page, name="hosted-upload-detail"),
]
