"""Static company & IPO data API: a build-time generator of JSON/CSV files and edge rewrite rules."""
