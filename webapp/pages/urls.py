"""Page URLs."""

from django.contrib.auth import views as auth_views
from django.urls import path

from webapp.pages import views
from webapp.tournaments import console

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game>/", views.leaderboard_page, name="leaderboard"),
    path("bots/<int:bot_id>/", views.bot_page, name="bot"),
    path("matches/", views.matches_page, name="matches"),
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("tournaments/", views.tournaments_page, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/enter/", views.enter_tournament, name="tournament-enter"),
    path("organize/", console.console_index, name="console"),
    path("organize/tournaments/<int:tournament_id>/", console.console_tournament, name="console-tournament"),
    path("organize/tournaments/<int:tournament_id>/<str:verb>/", console.console_action, name="console-action"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("me/bots/", views.my_bots, name="my-bots"),
    path("me/bots/new/", views.create_bot, name="create-bot"),
    path("me/bots/<int:bot_id>/", views.manage_bot, name="manage-bot"),
    path("me/bots/<int:bot_id>/<str:verb>/", views.bot_action, name="bot-action"),
    path("me/matches/", views.my_matches, name="my-matches"),
    path("me/replays.zip", views.my_replays_zip, name="my-replays-zip"),
]
