//go:build !unix

package pages

// lowerPriority does nothing where there is no nice value.
func lowerPriority(int, int) error { return nil }
