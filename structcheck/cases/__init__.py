"""Load cases and events beyond a study's programmed motion: the worst static pose (:mod:`.pose`), emergency
stops (:mod:`.stop`, :mod:`.iso`, :mod:`.stopcase`) and the other cases of DESIGN.md's "Load cases and events"."""
