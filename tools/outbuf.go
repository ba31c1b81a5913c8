package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// outBuf keeps at most limit bytes of a stream: the first limit/2 bytes
// (head) and the last limit-limit/2 bytes (a ring for the tail), plus the
// total count. Memory stays bounded however much a process prints, and the
// result still shows how the output began and how it ended.
type outBuf struct {
	headMax, tailMax int
	head             []byte
	ring             []byte // grows to tailMax, then wraps
	pos              int    // next write position once the ring is full
	total            int64
}

func newOutBuf(limit int) *outBuf {
	if limit < 2 {
		limit = 2
	}
	h := limit / 2
	return &outBuf{headMax: h, tailMax: limit - h}
}

func (b *outBuf) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(b.ring) < b.tailMax { // still filling
		k := min(b.tailMax-len(b.ring), len(p))
		b.ring = append(b.ring, p[:k]...)
		p = p[k:]
		if len(p) == 0 {
			return n, nil
		}
	}
	if len(p) >= b.tailMax {
		copy(b.ring, p[len(p)-b.tailMax:])
		b.pos = 0
		return n, nil
	}
	k := copy(b.ring[b.pos:], p)
	if k < len(p) {
		copy(b.ring, p[k:])
	}
	b.pos = (b.pos + len(p)) % b.tailMax
	return n, nil
}

// tail returns the ring in stream order.
func (b *outBuf) tail() []byte {
	if len(b.ring) < b.tailMax || b.pos == 0 {
		return b.ring
	}
	out := make([]byte, 0, len(b.ring))
	out = append(out, b.ring[b.pos:]...)
	return append(out, b.ring[:b.pos]...)
}

// Text renders the kept output as valid UTF-8. When bytes were dropped it
// inserts a marker saying how many, and cut reports the same number (bytes
// trimmed to keep characters whole are counted as cut too).
func (b *outBuf) Text() (text string, cut int64) {
	head, tail := b.head, b.tail()
	kept := int64(len(head) + len(tail))
	if kept == b.total {
		return strings.ToValidUTF8(string(head)+string(tail), "\uFFFD"), 0
	}
	head = trimPartialRuneEnd(head)
	tail = trimPartialRuneStart(tail)
	cut = b.total - int64(len(head)+len(tail))
	var sb strings.Builder
	sb.Grow(len(head) + len(tail) + 64)
	sb.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "[... %d bytes of output cut ...]\n", cut)
	sb.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	return sb.String(), cut
}

// trimPartialRuneEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialRuneEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		c := p[len(p)-i]
		if c < utf8.RuneSelf {
			return p // ASCII: nothing partial after it
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimPartialRuneStart drops continuation bytes at the start of p.
func trimPartialRuneStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(p) > 0 && !utf8.RuneStart(p[0]); i++ {
		p = p[1:]
	}
	return p
}
