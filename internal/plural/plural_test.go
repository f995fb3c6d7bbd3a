package plural

import "testing"

func TestCountAndNounAgree(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Of(1, "hook command"), "1 hook command"},
		{Of(2, "hook command"), "2 hook commands"},
		{Of(0, "file"), "0 files"},
		{Of(-1, "byte"), "-1 bytes"},
		{Irregular(1, "invalid reply", "invalid replies"), "1 invalid reply"},
		{Irregular(3, "invalid reply", "invalid replies"), "3 invalid replies"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
