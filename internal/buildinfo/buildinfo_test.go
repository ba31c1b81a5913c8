package buildinfo

import "testing"

func TestVersion(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"v0.2.0", "0.2.0"},
		{"v0.2.1-0.20261204170000-abcdef123456", "0.2.1-0.20261204170000-abcdef123456"},
		{"(devel)", "devel"},
		{"", "devel"},
	} {
		if got := moduleVersion(c.in); got != c.want {
			t.Errorf("moduleVersion(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Version("1.2.3"); got != "1.2.3" {
		t.Errorf("a stamped version must win, got %q", got)
	}
	// A test binary records no module version of its own.
	if got := Version(""); got != "devel" {
		t.Errorf("Version(\"\") in a test binary = %q, want devel", got)
	}
}
