package tools

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestOutBuf(t *testing.T) {
	cases := []struct {
		name   string
		limit  int
		writes []string
		want   string
		cut    int64
	}{
		{"empty", 8, nil, "", 0},
		{"fits", 8, []string{"abc", "def"}, "abcdef", 0},
		{"exactly", 8, []string{"abcdefgh"}, "abcdefgh", 0},
		{"cut in one write", 8, []string{"abcdefghij"}, "abcd\n[... 2 bytes of output cut ...]\ngh" + "ij", 2},
		{"cut across writes", 8, []string{"ab", "cd", "ef", "gh", "ij", "kl"}, "abcd\n[... 4 bytes of output cut ...]\nijkl", 4},
		{"huge write", 8, []string{"ab", strings.Repeat("x", 1000) + "WXYZ"}, "abxx\n[... 998 bytes of output cut ...]\nWXYZ", 998},
		{"head ends with newline", 8, []string{"abc\nDEFGHIJK"}, "abc\n[... 4 bytes of output cut ...]\nHIJK", 4},
		{"runes fit", 8, []string{"aé" + "xxxxxx" + "é"}, "aéx\n[... 3 bytes of output cut ...]\nxxé", 3},
		{"runes split at both cuts", 8, []string{"abcé1234éxyz"}, "abc\n[... 8 bytes of output cut ...]\nxyz", 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newOutBuf(c.limit)
			for _, w := range c.writes {
				b.Write([]byte(w))
			}
			got, cut := b.Text()
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.cut, cut)
		})
	}
}

// Against a reference: the kept bytes are always the first limit/2 and the
// last limit-limit/2 of the stream, however it is split into writes.
func FuzzOutBuf(f *testing.F) {
	f.Add([]byte("hello world, this is a stream"), uint8(7), uint8(3))
	f.Add([]byte("é漢字🙂"), uint8(4), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, limit, step uint8) {
		l := int(limit)%64 + 2
		s := int(step)%17 + 1
		b := newOutBuf(l)
		for i := 0; i < len(data); i += s {
			b.Write(data[i:min(i+s, len(data))])
		}
		if b.total != int64(len(data)) {
			t.Fatalf("total %d, want %d", b.total, len(data))
		}
		h := l / 2
		var wantHead, wantTail []byte
		if len(data) <= l {
			wantHead, wantTail = data, nil
			if !bytes.Equal(append(append([]byte(nil), b.head...), b.tail()...), data) {
				t.Fatalf("short stream not kept whole")
			}
		} else {
			wantHead, wantTail = data[:h], data[len(data)-(l-h):]
			if !bytes.Equal(b.head, wantHead) || !bytes.Equal(b.tail(), wantTail) {
				t.Fatalf("head %q tail %q, want %q %q", b.head, b.tail(), wantHead, wantTail)
			}
		}
		text, cut := b.Text()
		if !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 %q", text)
		}
		if cut < 0 || cut > int64(len(data)) {
			t.Fatalf("cut %d of %d", cut, len(data))
		}
		if len(b.head)+len(b.ring) > l {
			t.Fatalf("kept %d bytes, limit %d", len(b.head)+len(b.ring), l)
		}
	})
}
