"""People's tables: a person plays either game in the browser, against bots or other people (issue 26)."""
