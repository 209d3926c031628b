"""Load cases beyond a study's duty motion: emergency stops (:mod:`.stop`), and others as they come."""
