"""String references to models of other apps, kept in one place so apps never import each other's models for keys."""

USER = "auth.User"
BOT = "bots.Bot"
BOT_VERSION = "bots.BotVersion"
MATCH = "matches.Match"
TOURNAMENT = "tournaments.Tournament"
