"""Load cases and events beyond a study's programmed motion: the worst static pose (:mod:`.pose`), emergency
stops and the other cases of issue 31 (DESIGN.md, "Load cases and events")."""
