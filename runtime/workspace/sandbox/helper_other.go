//go:build !linux

package sandbox

// detect reports no Landlock: it is Linux's.
func detect() Support { return Support{} }
