package hooks

// Known reports whether the person trusted some version of the hooks in
// workspace before, so that the question can say they changed since. A
// store that cannot be read knows nothing.
func (t TrustStore) Known(workspace string) bool {
	_, ok := t.TrustedDigest(workspace)
	return ok
}

// TrustedDigest returns the digest the person last trusted in workspace,
// and whether they trusted any; a store that cannot be read knows nothing.
// A caller that makes its digest of more than the hooks (a workspace's MCP
// servers too) can tell by it that the hooks alone were trusted before.
func (t TrustStore) TrustedDigest(workspace string) (string, bool) {
	if t.Path == "" {
		return "", false
	}
	f, err := t.load()
	if err != nil {
		return "", false
	}
	e, ok := f.Workspaces[workspaceKey(workspace)]
	return e.Digest, ok
}
