package reduce

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Whenever Commutes says so, a host action applied on top of the pending
// ones gives exactly the state of replaying them after it — over random
// mixes of tool-call actions, in both dialects, including calls in input
// states, ignored transitions and an errored status.
func TestCommutesIsExact(t *testing.T) {
	clock := func() time.Time { return time.Unix(9, 0) }
	kinds := []func(id string) map[string]any{
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallStart", "turnId": "t", "toolCallId": id, "toolName": "x",
				"contributor": map[string]any{"kind": "client", "clientId": "c"}}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallDelta", "turnId": "t", "toolCallId": id, "content": "{"}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallReady", "turnId": "t", "toolCallId": id, "invocationMessage": "go", "confirmed": "not-needed"}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallReady", "turnId": "t", "toolCallId": id, "invocationMessage": "ask"}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallConfirmed", "turnId": "t", "toolCallId": id, "approved": true, "confirmed": "user-action"}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallContentChanged", "turnId": "t", "toolCallId": id,
				"content": []any{map[string]any{"type": "text", "text": "out"}}}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallComplete", "turnId": "t", "toolCallId": id,
				"result": map[string]any{"success": true, "pastTenseMessage": "done"}}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallComplete", "turnId": "t", "toolCallId": id, "requiresResultConfirmation": true,
				"result": map[string]any{"success": true, "pastTenseMessage": "done"}}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallResultConfirmed", "turnId": "t", "toolCallId": id, "approved": true}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/toolCallAuthRequired", "turnId": "t", "toolCallId": id}
		},
		func(id string) map[string]any {
			return map[string]any{"type": "chat/turnComplete", "turnId": "t"} // never commutes
		},
	}
	rng := rand.New(rand.NewSource(28))
	checked := 0
	for _, dialect := range []string{"", "1.0.0"} {
		opts := Options{Now: clock, Dialect: dialect}
		for round := 0; round < 3000; round++ {
			st := map[string]any{"status": numberU32(statusInProgress), "activeTurn": map[string]any{"id": "t", "responseParts": []any{}}}
			if round%7 == 0 {
				st["status"] = numberU32(statusError) // a stray refresh must not be a difference
			}
			ids := []string{"a", "b", "c", "d"}
			for i := rng.Intn(12); i > 0; i-- {
				st = ApplyWith(Chat, st, kinds[rng.Intn(len(kinds)-1)](ids[rng.Intn(len(ids))]), opts)
			}
			var pending []map[string]any
			for i := rng.Intn(4); i > 0; i-- {
				pending = append(pending, kinds[rng.Intn(len(kinds))](ids[rng.Intn(len(ids))]))
			}
			a := kinds[rng.Intn(len(kinds))](ids[rng.Intn(len(ids))])
			if !Commutes(Chat, st, a, pending) {
				continue
			}
			checked++
			slow := ApplyWith(Chat, st, a, opts)
			fast := st
			for _, p := range pending {
				slow = ApplyWith(Chat, slow, p, opts)
				fast = ApplyWith(Chat, fast, p, opts)
			}
			fast = ApplyWith(Chat, fast, a, opts)
			require.True(t, reflect.DeepEqual(slow, fast), "dialect %q: %v after %v on %v:\nreplayed %v\nfast     %v", dialect, a, pending, st, slow, fast)
		}
	}
	require.Greater(t, checked, 1000, "too few commuting cases to mean anything")
}

func TestCommutesRefuses(t *testing.T) {
	st := map[string]any{"activeTurn": map[string]any{"id": "t", "responseParts": []any{}}}
	start := func(id string) map[string]any {
		return map[string]any{"type": "chat/toolCallStart", "turnId": "t", "toolCallId": id}
	}
	done := func(turn, id string) map[string]any {
		return map[string]any{"type": "chat/toolCallComplete", "turnId": turn, "toolCallId": id}
	}
	for _, c := range []struct {
		name   string
		kind   Kind
		st     map[string]any
		a      map[string]any
		others []map[string]any
		want   bool
	}{
		{"nothing pending", Chat, st, map[string]any{"type": "chat/turnComplete"}, nil, true},
		{"different calls", Chat, st, done("t", "a"), []map[string]any{done("t", "b"), start("c")}, true},
		{"same call", Chat, st, done("t", "a"), []map[string]any{done("t", "b"), done("t", "a")}, false},
		{"two starts", Chat, st, start("a"), []map[string]any{start("b")}, false},
		{"another turn", Chat, st, done("u", "a"), []map[string]any{done("t", "b")}, false},
		{"no active turn", Chat, map[string]any{}, done("t", "a"), []map[string]any{done("t", "b")}, false},
		{"not a tool-call action", Chat, st, map[string]any{"type": "chat/turnComplete", "turnId": "t"}, []map[string]any{done("t", "b")}, false},
		{"session channel", Session, st, done("t", "a"), []map[string]any{done("t", "b")}, false},
		{"no id", Chat, st, done("t", ""), []map[string]any{done("t", "b")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, Commutes(c.kind, c.st, c.a, c.others), fmt.Sprint(c.a))
		})
	}
}
