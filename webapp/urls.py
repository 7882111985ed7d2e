"""Top-level URLs: pages, the API, its schema and docs, the admin, and static files."""

from django.contrib import admin
from django.contrib.staticfiles.views import serve
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from webapp.health import healthz
from webapp.metrics import metrics

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("healthz/", healthz),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("webapp.urls_api")),
    # The referees' calls (bot token checks), behind the internal service credential (webapp/internal.py).
    path("internal/v1/", include("webapp.internal")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin): the site's icon, not a 404.
    path("favicon.ico", RedirectView.as_view(url="/static/webapp/favicon.svg", permanent=True)),
    path("hosted/", include("webapp.hosting.page_urls")),
    path("", include("webapp.pages.urls")),
]

# The site serves its own static files whatever DEBUG says: no CDN, and it works offline.
urlpatterns.append(re_path(r"^static/(?P<path>.*)$", serve, {"insecure": True}))

# Errors nobody answered: JSON with a stable code under /api/, HTML pages elsewhere (webapp/errors.py).
handler400 = "webapp.errors.bad_request"
handler403 = "webapp.errors.permission_denied"
handler404 = "webapp.errors.page_not_found"
handler500 = "webapp.errors.server_error"
