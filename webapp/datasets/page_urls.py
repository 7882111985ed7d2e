"""The dataset's download page, included at the site's root by ``webapp.urls``."""

from django.urls import path

from webapp.datasets.views import datasets_page

urlpatterns = [path("datasets/", datasets_page, name="datasets")]
