package toolexec

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
)

// Issue 15, defect 2: a host that sends every action envelope twice —
// with the same serverSeq, or re-emitted under a new one — must not make a
// call run twice or restart it. Every chat and session action of 100 tool
// calls (start, ready, the inputNeeded entry, our own streamed content and
// completion echoed back, turn start and end) arrives twice; each call
// runs once and is completed once, in both dialects.
func TestDuplicatedEnvelopesRunEachCallOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("100 subprocesses per case")
	}
	modes := []struct {
		name string
		mode ahptest.DuplicateMode
	}{{"same-seq", ahptest.DuplicateSameSeq}, {"new-seq", ahptest.DuplicateNewSeq}}
	forEachDialect(t, func(t *testing.T, dl dialect) {
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				h := newHarness(t, dl.with(ahptest.Options{}))
				require.NoError(t, h.host.DuplicateEnvelopes(h.id(), m.mode))
				const turns, perTurn = 10, 10
				var ids []string
				for i := 0; i < turns; i++ {
					turn := h.turn()
					var batch []string
					for j := 0; j < perTurn; j++ {
						batch = append(batch, h.call(turn, "argv", `{"one":"c`+strconv.Itoa(i*perTurn+j)+`"}`))
					}
					for _, id := range batch {
						tc := h.done(id)
						require.Equal(t, "completed", tc["status"], "%s: %v", id, tc)
						require.Equal(t, true, tc["success"], "%s: %v", id, tc)
						h.settled(id)
					}
					require.NoError(t, h.host.CompleteTurn(h.chat, turn))
					ids = append(ids, batch...)
				}
				require.Len(t, ids, turns*perTurn)
				waitFor(t, "every run observed to its end", func() bool {
					for _, id := range ids {
						if _, ok := h.obs.result(id); !ok {
							return false
						}
					}
					return true
				})
				h.obs.mu.Lock()
				defer h.obs.mu.Unlock()
				for _, id := range ids {
					assert.Equal(t, 1, h.obs.calls[id].started, "%s: one run", id)
					assert.Len(t, h.tr.sent("chat/toolCallComplete", id), 1, "%s: one completion", id)
				}
				// The fault was live: the client saw each start twice.
				starts := 0
				for _, typ := range h.tr.received(ids[0]) {
					if typ == "chat/toolCallStart" {
						starts++
					}
				}
				assert.Equal(t, 2, starts, "the host sent the start twice")
			})
		}
	})
}
