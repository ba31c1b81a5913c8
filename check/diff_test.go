package check

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// applyUnified applies a unified diff of one file to old, checking every
// context and removed line against old, as patch does.
func applyUnified(t *testing.T, old, diff string) string {
	t.Helper()
	lines := strings.SplitAfter(diff, "\n")
	require.True(t, strings.HasPrefix(lines[0], "--- ") && strings.HasPrefix(lines[1], "+++ "), "headers: %q", diff)
	src := splitLines([]byte(old))
	var out []string
	at := 0 // next line of src to copy
	for i := 2; i < len(lines) && lines[i] != ""; {
		h := lines[i]
		require.True(t, strings.HasPrefix(h, "@@ -"), "hunk header %q", h)
		var oldStart int
		f := strings.Fields(h)
		oldStart, _ = strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[1], "-"), ",", 2)[0])
		if !strings.Contains(f[1], ",") || !strings.HasSuffix(f[1], ",0") {
			oldStart-- // 1-based first line; an empty range names the line before
		}
		require.GreaterOrEqual(t, oldStart, at, "hunks in order")
		out = append(out, src[at:oldStart]...)
		at = oldStart
		i++
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ No newline") {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				require.Equal(t, src[at], body, "context line %d", at+1)
				out = append(out, body)
				at++
			case '-':
				require.Equal(t, src[at], body, "removed line %d", at+1)
				at++
			case '+':
				out = append(out, body)
			default:
				t.Fatalf("bad diff line %q", l)
			}
			i++
		}
	}
	out = append(out, src[at:]...)
	return strings.Join(out, "")
}

func TestUnifiedDiffApplies(t *testing.T) {
	cases := []struct{ old, new string }{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\nb\nc", "a\nb\nc\n"},
		{"", "x\n"},
		{"x\n", ""},
		{"\ufeff---\r\nname: x\r\n---\r\n", "---\nname: x\n---\n"},
		{strings.Repeat("l\n", 30) + "tab\there\n" + strings.Repeat("m\n", 30) + "\tx\n", strings.Repeat("l\n", 30) + "tab  here\n" + strings.Repeat("m\n", 30) + "  x\n"},
	}
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 200; n++ {
		var a, b []string
		for i := 0; i < r.Intn(40); i++ {
			a = append(a, fmt.Sprintf("%d\n", r.Intn(6)))
		}
		for _, l := range a {
			switch r.Intn(5) {
			case 0:
			case 1:
				b = append(b, l, fmt.Sprintf("%d\n", r.Intn(6)))
			default:
				b = append(b, l)
			}
		}
		old, nw := strings.Join(a, ""), strings.Join(b, "")
		if r.Intn(4) == 0 && len(nw) > 0 {
			nw = nw[:len(nw)-1]
		}
		cases = append(cases, struct{ old, new string }{old, nw})
	}
	for i, c := range cases {
		var b bytes.Buffer
		require.NoError(t, WriteUnifiedDiff(&b, "f", []byte(c.old), []byte(c.new)))
		if c.old == c.new {
			assert.Empty(t, b.String())
			continue
		}
		assert.Equal(t, c.new, applyUnified(t, c.old, b.String()), "case %d:\n%s", i, b.String())
	}
}

// TestUnifiedDiffFormat pins the hunk layout against `diff -u` for a small
// case: three lines of context, merged hunks, counts.
func TestUnifiedDiffFormat(t *testing.T) {
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n"
	nw := "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\nFIFTEEN\n16\n"
	var b bytes.Buffer
	require.NoError(t, WriteUnifiedDiff(&b, "f", []byte(old), []byte(nw)))
	assert.Equal(t, "--- f\n+++ f\n@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n@@ -12,5 +12,5 @@\n 12\n 13\n 14\n-15\n+FIFTEEN\n 16\n", b.String())
}
