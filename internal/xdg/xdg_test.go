package xdg

import (
	"path/filepath"
	"testing"
)

func TestFoldersFollowTheEnvironment(t *testing.T) {
	t.Setenv("HOME", "/home/ada")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	for name, f := range map[string]func() (string, error){"state": StateHome, "config": ConfigHome} {
		want := map[string]string{"state": "/home/ada/.local/state", "config": "/home/ada/.config"}[name]
		if got, err := f(); err != nil || got != want {
			t.Errorf("%s with no variable: %q, %v; want %q", name, got, err, want)
		}
	}

	t.Setenv("XDG_STATE_HOME", "/var/state")
	t.Setenv("XDG_CONFIG_HOME", "/etc/me")
	if got, err := StateHome(); err != nil || got != "/var/state" {
		t.Errorf("StateHome with XDG_STATE_HOME set: %q, %v", got, err)
	}
	if got, err := ConfigHome(); err != nil || got != "/etc/me" {
		t.Errorf("ConfigHome with XDG_CONFIG_HOME set: %q, %v", got, err)
	}
}

func TestNoHomeIsAnError(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	if got, err := StateHome(); err == nil {
		t.Errorf("StateHome with no home: %q and no error", got)
	}
	if got, err := ConfigHome(); err == nil {
		t.Errorf("ConfigHome with no home: %q and no error", got)
	}
	// A variable that is set needs no home.
	dir := filepath.Join(t.TempDir(), "state")
	t.Setenv("XDG_STATE_HOME", dir)
	if got, err := StateHome(); err != nil || got != dir {
		t.Errorf("StateHome with the variable and no home: %q, %v", got, err)
	}
}
