package supplier

// FlaggedCounts is the rule that flags a profile for a person's attention:
// of the documents read with it, at least two, and at least a third, were
// then rejected or had a field it read corrected. A flagged profile keeps
// reading (the validator still judges every read); the flag says its
// anchors no longer fit the supplier's documents, and an operator may
// delete it to let the next correction teach it again.
func FlaggedCounts(reads, misses int) bool { return misses >= 2 && 3*misses >= reads }
