"""The JSON API under ``/api/v1/``."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from webapp.accounts.views import ApiTokenView, MeView
from webapp.bots.views import BotViewSet, GameViewSet
from webapp.matches.challenges import ChallengeView
from webapp.matches.views import MatchViewSet
from webapp.rankings.views import RatingHistoryViewSet, RatingViewSet
from webapp.tournaments.views import TournamentViewSet

router = DefaultRouter()
router.register("games", GameViewSet, basename="game")
router.register("bots", BotViewSet, basename="bot")
router.register("ratings", RatingViewSet, basename="rating")
router.register("rating-history", RatingHistoryViewSet, basename="rating-history")
router.register("matches", MatchViewSet, basename="match")
router.register("tournaments", TournamentViewSet, basename="tournament")

urlpatterns = [
    path("me/", MeView.as_view(), name="api-me"),
    path("me/api-token/", ApiTokenView.as_view(), name="api-token"),
    path("bots/<int:pk>/challenge/", ChallengeView.as_view(), name="bot-challenge"),
    path("", include("webapp.hosting.urls")),
    path("", include("webapp.notifications.urls")),
    path("", include("webapp.datasets.urls")),
    path("", include(router.urls)),
]
