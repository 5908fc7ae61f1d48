"""Reading run files (tfevents, VisualDL) into the store, incrementally."""
