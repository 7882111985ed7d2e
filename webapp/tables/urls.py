"""The tables' pages (``/tables/...``)."""

from django.urls import path

from webapp.tables import views

urlpatterns = [
    path("new/<str:game>/", views.new_table, name="table-new"),
    path("join/<str:invite>/", views.join_table, name="table-join"),
    path("<int:table_id>/", views.table_page, name="table"),
]
