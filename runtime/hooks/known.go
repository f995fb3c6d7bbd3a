package hooks

// Known reports whether the person trusted some version of the hooks in
// workspace before, so that the question can say they changed since. A
// store that cannot be read knows nothing.
func (t TrustStore) Known(workspace string) bool {
	if t.Path == "" {
		return false
	}
	f, err := t.load()
	if err != nil {
		return false
	}
	_, ok := f.Workspaces[workspaceKey(workspace)]
	return ok
}
