"""Generated protocol code (``brawl.<api>.v1``); edit the ``.proto`` files and run ``make proto``."""
