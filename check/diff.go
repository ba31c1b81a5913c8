package check

// A small unified-diff printer for --diff. Written here rather than taken
// from a library: it needs only line LCS on the changed middle of one file,
// and the output must match `diff -u` closely enough for `patch -p0` and
// `git apply`.

import (
	"bytes"
	"fmt"
	"io"
)

// diffContext is the number of unchanged lines around each hunk (diff -u).
const diffContext = 3

// maxLCSCells bounds the line LCS table; a larger changed middle is shown
// as one replacement, still a correct diff.
const maxLCSCells = 4 << 20

// splitLines cuts text into lines, each keeping its '\n' (the last may
// have none).
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// diffOp is one line of the edit script: ' ', '-' or '+'.
type diffOp struct {
	kind byte
	line string
}

// lineScript is the edit script from a to b: the common prefix and suffix,
// and an LCS of the middle.
func lineScript(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if (len(ma)+1)*(len(mb)+1) > maxLCSCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		// lcs[i][j] is the LCS length of ma[i:] and mb[j:].
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, diffOp{' ', ma[i]})
				i++
				j++
			case j == len(mb) || i < len(ma) && lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				ops = append(ops, diffOp{'-', ma[i]})
				i++
			default:
				ops = append(ops, diffOp{'+', mb[j]})
				j++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// WriteUnifiedDiff prints the change from old to new of the file at path
// as a unified diff with `--- path` and `+++ path` headers (apply with
// `patch -p0`). Nothing is printed when the texts are equal.
func WriteUnifiedDiff(w io.Writer, path string, old, new []byte) error {
	if bytes.Equal(old, new) {
		return nil
	}
	ops := lineScript(splitLines(old), splitLines(new))
	var b bytes.Buffer
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
	// Walk the script, cutting hunks around changes.
	n := len(ops)
	for k := 0; k < n; {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-diffContext)
		end := k
		for end < n {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// A run of unchanged lines: the hunk ends unless another
			// change follows within 2*context lines.
			run := end
			for run < n && ops[run].kind == ' ' {
				run++
			}
			if run == n || run-end > 2*diffContext {
				end = min(n, end+diffContext)
				break
			}
			end = run
		}
		// Line numbers of the hunk's first line in old and new.
		oldLine, newLine := 1, 1
		for _, op := range ops[:start] {
			if op.kind != '+' {
				oldLine++
			}
			if op.kind != '-' {
				newLine++
			}
		}
		oldN, newN := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				oldN++
			}
			if op.kind != '-' {
				newN++
			}
		}
		if oldN == 0 {
			oldLine--
		}
		if newN == 0 {
			newLine--
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		for _, op := range ops[start:end] {
			b.WriteByte(op.kind)
			b.WriteString(op.line)
			if len(op.line) == 0 || op.line[len(op.line)-1] != '\n' {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		k = end
	}
	_, err := w.Write(b.Bytes())
	return err
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
