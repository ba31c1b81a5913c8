package server

import (
	"testing"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/stretchr/testify/require"
)

func TestSumOfTellsTextsApart(t *testing.T) {
	require.Equal(t, sumOf([]byte("a\nb")), sumOf([]byte("a\nb")))
	require.NotEqual(t, sumOf([]byte("a\nb")), sumOf([]byte("a\nc")))
	require.NotEqual(t, sumOf(nil), sumOf([]byte("\x00")))
}

// TestThroughLineKeepsPositions: a span's range is the same in the cut
// text as in the whole, in every encoding, for every offset up to the cut.
func TestThroughLineKeepsPositions(t *testing.T) {
	texts := []string{"", "one line", "a\nb\nc", "a\r\nbé\r\n\r\nc😀d\n", "x\n\n\n", "αβγ\nδ"}
	for _, text := range texts {
		full := model.NewLineIndex([]byte(text))
		for end := 0; end <= len(text); end++ {
			cut := throughLine([]byte(text), end)
			require.True(t, len(cut) >= end, "%q cut at %d", text, end)
			idx := model.NewLineIndex(cut)
			for off := 0; off <= end; off++ {
				for _, enc := range []model.Encoding{model.UTF8, model.UTF16, model.UTF32} {
					sp := model.Span{Start: off, End: end}
					require.Equal(t, full.Range(sp, enc), idx.Range(sp, enc), "%q span %v enc %v", text, sp, enc)
				}
			}
		}
	}
}
