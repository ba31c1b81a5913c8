package enablement

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scenarios S1–S27 of the spec's §9, against the real Overlay over real
// files. [H·C] scenarios also run their Global steps on the client store.

func TestS01_ScopedListMostSpecificFirst(t *testing.T) {
	h := newHarness(t)
	h.set(sess1, fixture, KindGlobal, false)
	h.set(sess1, fixture, KindWorkspace, true)
	r := h.set(sess1, fixture, KindSession, false)
	assert.Equal(t, L(S(false), W(true), G(false)), r.List)
	assert.Equal(t, r, h.resolve(sess1, fixture))
	assert.False(t, r.On())
}

func TestS02_DiscoveryDefaultFalseAtEveryScope(t *testing.T) {
	for _, k := range []Kind{KindGlobal, KindWorkspace, KindSession} {
		t.Run(string(k), func(t *testing.T) {
			h := newHarness(t)
			mcp := MCPTarget(Node{ID: "srv-1", Name: "stdio", DiscoveryDefault: bp(false)}, "", false)
			require.False(t, h.resolve(sess1, mcp).On(), "config-disabled server starts off")
			assert.True(t, h.set(sess1, mcp, k, true).On())
			assert.False(t, h.set(sess1, mcp, k, false).On())
			assert.Equal(t, L(G(false)), h.resolve(sess1, mcp).List, "back to the inherited discovery default")
			assert.Equal(t, emptyDurable(), h.durable(), "turning it off again stores nothing")
		})
	}
}

func TestS03_WorkspaceDecisionReachesNewSession(t *testing.T) {
	h := newHarness(t)
	h.set(sess1, fixture, KindWorkspace, false)
	h.sessions.on(sess2, repo)
	h.ov.InitSession(sess2)
	assert.Equal(t, L(W(false)), h.resolve(sess2, fixture).List)
}

func TestS04_OwnedChildKeyIgnoresIDAndPath(t *testing.T) {
	h := newHarness(t)
	old := MCPTarget(Node{ID: "child-a", Name: "azure", URI: "file:///materialized/a/.mcp.json"}, pluginURI, false)
	h.set(sess1, old, KindGlobal, false)
	h.sessions.on(sess2, repo)
	h.ov.InitSession(sess2)
	fresh := MCPTarget(Node{ID: "child-b", Name: "azure", URI: "file:///materialized/b/.mcp.json"}, pluginURI, false)
	assert.Equal(t, L(G(false)), h.resolve(sess2, fresh).List)
}

func TestS05_AllScopeCombinations(t *testing.T) {
	type opt struct {
		set bool
		v   bool
	}
	opts := []opt{{}, {true, true}, {true, false}}
	name := func(o opt) string {
		if !o.set {
			return "unset"
		}
		return fmt.Sprint(o.v)
	}
	h := newHarness(t)
	for _, g := range opts {
		for _, w := range opts {
			for _, s := range opts {
				t.Run(name(g)+"/"+name(w)+"/"+name(s), func(t *testing.T) {
					for _, k := range []Kind{KindGlobal, KindWorkspace, KindSession} {
						h.set(sess1, fixture, k, true) // reset: the inherited value clears
					}
					require.Empty(t, h.resolve(sess1, fixture).List)
					want := List{}
					effG, on := true, true
					if g.set {
						h.set(sess1, fixture, KindGlobal, g.v)
						effG, on = g.v, g.v
						if !g.v {
							want = append(want, G(false))
						}
					}
					effW := effG
					if w.set {
						h.set(sess1, fixture, KindWorkspace, w.v)
						if w.v != effG {
							want = append(L(W(w.v)), want...)
						}
						effW, on = w.v, w.v
					}
					if s.set {
						h.set(sess1, fixture, KindSession, s.v)
						if s.v != effW {
							want = append(L(S(s.v)), want...)
						}
						on = s.v
					}
					r := h.resolve(sess1, fixture)
					assert.Equal(t, want, r.List)
					assert.Equal(t, on, r.On())
				})
			}
		}
	}
}

func TestS06_BaseUnderHostDecisions(t *testing.T) {
	h := newHarness(t)
	p := bundled(fixture)
	h.set(sess1, p, KindGlobal, false)
	h.set(sess1, p, KindWorkspace, true)
	h.set(sess1, p, KindSession, false)
	r := h.base(sess1, p, true)
	assert.Equal(t, L(S(false), W(true), G(false)), r.List)
	assert.False(t, r.On())
}

func TestS07_StaleRepublishKeepsHostDisable(t *testing.T) {
	h := newHarness(t)
	p := bundled(fixture)
	h.rep(sess1, p, L(G(false)))
	r := h.base(sess1, p, true) // the stale client value arrives again
	assert.Equal(t, L(G(false)), r.List)
	assert.Equal(t, Durable{Global: map[string]bool{pluginURI: false}, WorkingDirectories: map[string]map[string]bool{}}, h.durable())
}

func TestS08_BaseIsMemoryOnly(t *testing.T) {
	t.Run("host", func(t *testing.T) {
		h := newHarness(t)
		p := bundled(fixture)
		assert.Equal(t, L(G(false)), h.base(sess1, p, false).List)
		assert.Equal(t, L(G(true)), h.base(sess1, p, true).List)
		assert.Equal(t, emptyDurable(), h.durable())
		_, err := os.Stat(filepath.Join(h.dir, "enablement.json"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("client", func(t *testing.T) {
		c, _ := openClient(t, t.TempDir())
		key := ownPlugin().URI
		assert.False(t, c.Value(key, false))
		assert.True(t, c.Value(key, true))
		assert.Empty(t, c.Decisions())
	})
}

func TestS09_DifferencesAgainstBaseNotTrue(t *testing.T) {
	h := newHarness(t)
	p := bundled(fixture)
	h.base(sess1, p, false)
	h.set(sess1, p, KindGlobal, true)
	require.Equal(t, map[string]bool{pluginURI: true}, h.durable().Global, "an enable over a disabled base is an override")
	h.set(sess1, p, KindWorkspace, false)
	r := h.set(sess1, p, KindGlobal, false)
	assert.Equal(t, emptyDurable(), h.durable())
	assert.Equal(t, L(G(false)), r.List, "inherits the base")
}

func TestS10_UnbundledChildOfClientPlugin(t *testing.T) {
	h := newHarness(t)
	p := bundled(fixture)
	child := MCPTarget(Node{ID: "azure-1", Name: "azure"}, pluginURI, false)
	key := pluginURI + "#mcp=azure"
	h.set(sess1, child, KindGlobal, false)
	h.base(sess1, p, true)
	assert.Equal(t, L(G(false)), h.resolve(sess1, child).List)
	h.set(sess1, child, KindWorkspace, true)
	r, err := h.ov.ApplyClientGlobal(sess1, child, L(G(true)))
	require.NoError(t, err)
	assert.Equal(t, L(W(true), G(false)), r.List, "the client does not own an unbundled child's Global")
	h.sessions.on(sess2, repo)
	h.ov.InitSession(sess2)
	other := MCPTarget(Node{ID: "azure-2", Name: "azure"}, pluginURI, false)
	assert.Equal(t, L(W(true), G(false)), h.resolve(sess2, other).List)
	assert.Equal(t, Durable{Global: map[string]bool{key: false},
		WorkingDirectories: map[string]map[string]bool{repo: {key: true}}}, h.durable())
}

func TestS11_FlipFlopStoresOnlyTheLastDifference(t *testing.T) {
	t.Run("host", func(t *testing.T) {
		h := newHarness(t)
		for _, st := range []struct {
			k Kind
			v bool
		}{{KindGlobal, false}, {KindWorkspace, false}, {KindWorkspace, true}, {KindWorkspace, false}, {KindGlobal, true}, {KindGlobal, false}} {
			h.set(sess1, fixture, st.k, st.v)
		}
		assert.Equal(t, Durable{Global: map[string]bool{pluginURI: false}, WorkingDirectories: map[string]map[string]bool{}}, h.durable())
	})
	t.Run("client", func(t *testing.T) {
		c, _ := openClient(t, t.TempDir())
		key := ownPlugin().URI
		for _, v := range []bool{false, true, false} {
			_, err := c.SetGlobal(key, v, true)
			require.NoError(t, err)
		}
		assert.Equal(t, map[string]bool{key: false}, c.Decisions())
	})
}

func TestS12_SessionMetadataAndClearing(t *testing.T) {
	t.Run("host", func(t *testing.T) {
		h := newHarness(t)
		h.set(sess1, fixture, KindGlobal, false)
		h.set(sess1, fixture, KindWorkspace, false)
		h.set(sess1, fixture, KindWorkspace, true)
		h.set(sess1, fixture, KindSession, true)
		h.set(sess1, fixture, KindSession, false)
		assert.Equal(t, Durable{Global: map[string]bool{pluginURI: false},
			WorkingDirectories: map[string]map[string]bool{repo: {pluginURI: true}}}, h.durable())
		assert.Equal(t, map[string]bool{fixture.ID: false}, h.sessionMeta(sess1))
		h.set(sess1, fixture, KindSession, true)
		h.set(sess1, fixture, KindWorkspace, false)
		h.set(sess1, fixture, KindGlobal, true)
		assert.Equal(t, emptyDurable(), h.durable())
		assert.Equal(t, map[string]bool{}, h.sessionMeta(sess1))
	})
	t.Run("client", func(t *testing.T) {
		c, _ := openClient(t, t.TempDir())
		key := ownPlugin().URI
		_, err := c.SetGlobal(key, false, true)
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{key: false}, c.Decisions())
		_, err = c.SetGlobal(key, true, true)
		require.NoError(t, err)
		assert.Empty(t, c.Decisions())
	})
}

func TestS13_HostGlobalPrunesEqualWorkspaceEntries(t *testing.T) {
	h := newHarness(t)
	for _, d := range []string{"file:///matching", "file:///opposing", "file:///untouched"} {
		h.sessions.on(d, d) // session named after its directory
		h.ov.InitSession(d)
	}
	// Given as stored decisions (an opposing true cannot be written while the
	// inherited value is true).
	require.NoError(t, h.store.SetWorkspace("file:///matching", pluginURI, false))
	require.NoError(t, h.store.SetWorkspace("file:///opposing", pluginURI, true))
	h.set("file:///untouched", fixture, KindGlobal, false)
	assert.Equal(t, map[string]map[string]bool{"file:///opposing": {pluginURI: true}}, h.durable().WorkingDirectories)
	assert.Equal(t, L(G(false)), h.resolve("file:///matching", fixture).List)
	assert.Equal(t, L(Wd("file:///opposing", true), G(false)), h.resolve("file:///opposing", fixture).List)
	assert.Equal(t, L(G(false)), h.resolve("file:///untouched", fixture).List)
}

func TestS14_ReplaceIsNeverAPatch(t *testing.T) {
	h := newHarness(t)
	h.set(sess1, fixture, KindGlobal, false)
	h.set(sess1, fixture, KindWorkspace, true)
	h.set(sess1, fixture, KindSession, false)
	assert.Equal(t, L(G(false)), h.rep(sess1, fixture, L(G(false))).List)
	h.set(sess1, fixture, KindWorkspace, true)
	h.set(sess1, fixture, KindSession, false)
	assert.Equal(t, L(S(false)), h.rep(sess1, fixture, L(S(false))).List)
	r := h.rep(sess1, fixture, List{})
	assert.Equal(t, List{}, r.List)
	assert.True(t, r.On())
	assert.Equal(t, emptyDurable(), h.durable())
	assert.Equal(t, map[string]bool{}, h.sessionMeta(sess1))
}

func TestS15_DurableKeys(t *testing.T) {
	key := func(tg Target) string {
		k, err := tg.DurableKey()
		require.NoError(t, err)
		return k
	}
	slack := MCPTarget(Node{ID: "slack-1", Name: "slack", URI: "file:///materialized/1/.mcp.json"}, pluginURI, false)
	stdio := MCPTarget(Node{ID: "stdio-1", Name: "stdio"}, "", false)
	assert.Equal(t, pluginURI, key(fixture))
	assert.Equal(t, pluginURI+"#mcp=slack", key(slack))
	assert.Equal(t, "mcpServers#stdio", key(stdio))
	assert.NotEqual(t, key(fixture), key(slack))
	_, err := Target{ID: "skill-1", Type: "skill"}.DurableKey()
	assert.ErrorIs(t, err, ErrUnsupportedType)

	h := newHarness(t)
	h.set(sess1, slack, KindGlobal, false)
	h.set(sess1, slack, KindWorkspace, true)
	h.set(sess1, slack, KindSession, false)
	moved := MCPTarget(Node{ID: "slack-2", Name: "slack", URI: "file:///materialized/2/.mcp.json"}, pluginURI, false)
	assert.Equal(t, L(W(true), G(false)), h.resolve(sess1, moved).List, "session keys are ids; durable keys are not")
}

func TestS16_DirectoryStates(t *testing.T) {
	h := newHarness(t)
	h.sessions.put(sess1, SessionInfo{}) // removed from the host's sessions
	assert.Equal(t, DirState{Kind: DirPending}, h.ov.DirectoryState(sess1))
	assert.Equal(t, Resolution{Pending: PendingWorkingDirectory}, h.resolve(sess1, fixture))
	r := h.set(sess1, fixture, KindGlobal, false)
	assert.Equal(t, PendingWorkingDirectory, r.Pending)
	assert.Equal(t, map[string]bool{pluginURI: false}, h.durable().Global, "a pending Global write is stored at once")
	h.sessions.put(sess1, SessionInfo{Known: true, Workspaceless: true})
	assert.Equal(t, DirState{Kind: DirWorkspaceless}, h.ov.DirectoryState(sess1))
	h.sessions.put(sess1, SessionInfo{Known: true, WorktreePending: true, WorkingDirectories: []string{repo}})
	assert.Equal(t, DirState{Kind: DirPending}, h.ov.DirectoryState(sess1))
	h.sessions.on(sess1, repo)
	assert.Equal(t, DirState{Kind: DirDirectory, URI: repo}, h.ov.DirectoryState(sess1))
}

func TestS17_ReplaceWhileDirectoryPending(t *testing.T) {
	h := newHarness(t)
	h.sessions.on(sess1)
	r := h.rep(sess1, fixture, L(W(false)))
	assert.Equal(t, PendingWorkingDirectory, r.Pending)
	h.sessions.on(sess1, repo)
	h.ov.NotifyWorkingDirectories(sess1)
	assert.Equal(t, Resolution{List: L(W(false))}, h.resolve(sess1, fixture))
}

func TestS18_ScopedWriteWhileDirectoryPending(t *testing.T) {
	h := newHarness(t)
	h.sessions.on(sess1)
	r := h.set(sess1, fixture, KindWorkspace, false)
	assert.Equal(t, PendingWorkingDirectory, r.Pending)
	h.sessions.on(sess1, repo)
	h.ov.NotifyWorkingDirectories(sess1)
	assert.Equal(t, Resolution{List: L(W(false))}, h.resolve(sess1, fixture))
}

// slowData blocks Load until released, as a slow session restore would.
type slowData struct {
	SessionData
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *slowData) Load(session string) (map[string]bool, error) {
	s.once.Do(func() { close(s.entered) })
	<-s.release
	return s.SessionData.Load(session)
}

func slowHarness(t *testing.T) (*harness, *slowData, <-chan struct{}) {
	h := &harness{t: t, dir: t.TempDir(), sessions: newSessions()}
	h.sessions.on(sess1, repo)
	h.open()
	slow := &slowData{SessionData: h.data, entered: make(chan struct{}), release: make(chan struct{})}
	h.ov.data = slow
	done := make(chan struct{})
	go func() { h.ov.InitSession(sess1); close(done) }()
	<-slow.entered
	return h, slow, done
}

func TestS19_ReplaceDuringSlowLoad(t *testing.T) {
	h, slow, done := slowHarness(t)
	r := h.rep(sess1, fixture, L(W(false)))
	assert.Equal(t, PendingSession, r.Pending)
	close(slow.release)
	<-done
	assert.Equal(t, Resolution{List: L(W(false))}, h.resolve(sess1, fixture))
}

func TestS20_WorkspacelessRejectsWorkspace(t *testing.T) {
	h := newHarness(t)
	h.sessions.put(sess1, SessionInfo{Known: true, Workspaceless: true})
	_, err := h.ov.Set(sess1, fixture, KindWorkspace, false)
	assert.ErrorIs(t, err, ErrWorkspaceless)
	_, err = h.ov.Replace(sess1, fixture, L(W(false)))
	assert.ErrorIs(t, err, ErrWorkspaceless)
	assert.Equal(t, emptyDurable(), h.durable())
}

func TestS21_LoadEndFiresOneEvent(t *testing.T) {
	h, slow, done := slowHarness(t)
	assert.Equal(t, Resolution{Pending: PendingSession}, h.resolve(sess1, fixture))
	close(slow.release)
	<-done
	h.ov.InitSession(sess1)
	assert.Equal(t, [][]string{{sess1}}, h.gotEvents())
	assert.Equal(t, Resolution{List: List{}}, h.resolve(sess1, fixture))
}

func TestS22_DirectoryAndWorktreeEvents(t *testing.T) {
	h := newHarness(t)
	h.sessions.on(sess1)
	h.ov.NotifyWorkingDirectories(sess1) // the pending state is the baseline
	h.clearEvents()
	h.sessions.on(sess1, repo)
	h.ov.NotifyWorkingDirectories(sess1) // 1: primary appears
	h.sessions.on(sess1, repo, "file:///other")
	h.ov.NotifyWorkingDirectories(sess1) // 0: primary kept
	h.sessions.put(sess1, SessionInfo{Known: true, WorktreePending: true, WorkingDirectories: []string{repo}})
	h.sessions.on(sess1, repo)
	h.ov.NotifyWorktreePending(sess1) // 1
	assert.Equal(t, [][]string{{sess1}, {sess1}}, h.gotEvents())
	assert.Equal(t, Resolution{List: List{}}, h.resolve(sess1, fixture))
}

func TestS23_EventHeldDuringTurn(t *testing.T) {
	h := newHarness(t)
	h.sessions.put(sess1, SessionInfo{Known: true, TurnActive: true, WorkingDirectories: []string{"file:///repo-worktree"}})
	h.ov.NotifyWorkingDirectories(sess1)
	assert.Empty(t, h.gotEvents(), "no event while the turn runs")
	h.sessions.on(sess1, "file:///repo-worktree")
	h.ov.NotifyTurnEnded(sess1)
	assert.Equal(t, [][]string{{sess1}}, h.gotEvents())
	h.ov.NotifyTurnEnded(sess1)
	assert.Len(t, h.gotEvents(), 1, "released once")
}

func TestS24_SessionDecisionSurvivesRestart(t *testing.T) {
	h := newHarness(t)
	h.set(sess1, fixture, KindSession, false)
	h.reopen()
	h.ov.InitSession(sess1)
	assert.Equal(t, L(S(false)), h.resolve(sess1, fixture).List)
}

func TestS25_SessionDecisionsStayInTheirSession(t *testing.T) {
	h := newHarness(t)
	h.sessions.on(sess2, repo)
	h.ov.InitSession(sess2)
	h.set(sess1, fixture, KindSession, false)
	h.reopen()
	h.ov.InitSession(sess1)
	h.ov.InitSession(sess2)
	assert.Equal(t, L(S(false)), h.resolve(sess1, fixture).List)
	assert.Equal(t, map[string]bool{fixture.ID: false}, h.sessionMeta(sess1))
	r := h.resolve(sess2, fixture)
	assert.Equal(t, List{}, r.List)
	assert.True(t, r.On())
	assert.Empty(t, h.sessionMeta(sess2))
	_, err := os.Stat(h.data.file(sess2))
	assert.ErrorIs(t, err, os.ErrNotExist, "no metadata for session 2")
}

func TestS26_ReinitFiresNothing(t *testing.T) {
	h := newHarness(t)
	h.set(sess1, fixture, KindGlobal, false)
	h.ov.InitSession(sess1)
	assert.Equal(t, [][]string{{sess1}}, h.gotEvents())
}

func TestS27_LRUEvictionOrder(t *testing.T) {
	plugin := func(i int) Target {
		return Target{ID: fmt.Sprint("p-", i), Type: TypePlugin, Source: fmt.Sprint("file:///plugins/", i)}
	}
	ws := Target{ID: "p-ws", Type: TypePlugin, Source: "file:///plugins/workspace"}
	t.Run("host", func(t *testing.T) {
		h := newHarness(t)
		path := h.store.path
		h.store.path = "" // 1000 fsynced rewrites would only slow the test down
		for i := 0; i <= 510; i++ {
			h.set(sess1, plugin(i), KindGlobal, false)
		}
		h.set(sess1, ws, KindWorkspace, false)
		require.Equal(t, 512, h.store.Len())
		require.Equal(t, L(G(false)), h.resolve(sess1, plugin(0)).List) // resolving is not a use
		h.set(sess1, plugin(511), KindGlobal, false)
		h.set(sess1, ws, KindWorkspace, false) // rewrite refreshes
		h.set(sess1, plugin(512), KindGlobal, false)
		check := func(t *testing.T, s *Store) {
			assert.Equal(t, 512, s.Len())
			for i, want := range map[int]bool{0: false, 1: false, 2: true, 511: true, 512: true} {
				_, ok := s.Global(fmt.Sprint("file:///plugins/", i))
				assert.Equal(t, want, ok, "plugin %d kept", i)
			}
			_, ok := s.Workspace(repo, "file:///plugins/workspace")
			assert.True(t, ok, "rewritten workspace entry kept")
		}
		check(t, h.store)
		h.store.path = path
		require.NoError(t, h.store.persist())
		h.reopen()
		check(t, h.store) // persisted, LRU order included
	})
	t.Run("client", func(t *testing.T) {
		dir := t.TempDir()
		c, _ := openClient(t, dir)
		path := c.s.path
		c.s.path = ""
		for i := 0; i <= 511; i++ {
			_, err := c.SetGlobal(fmt.Sprint("file:///plugins/", i), false, true)
			require.NoError(t, err)
		}
		require.False(t, c.Value("file:///plugins/0", true))
		_, err := c.SetGlobal("file:///plugins/512", false, true)
		require.NoError(t, err)
		assert.Equal(t, 512, c.Len())
		d := c.Decisions()
		assert.NotContains(t, d, "file:///plugins/0")
		assert.Contains(t, d, "file:///plugins/1")
		assert.Contains(t, d, "file:///plugins/512")
		c.s.path = path
		require.NoError(t, c.s.persist())
		re, _ := openClient(t, dir)
		assert.Equal(t, d, re.Decisions())
	})
}

// The write queue of §5: what a pending write stores at once and what the
// replay applies once the session settles.
func TestPendingWriteQueue(t *testing.T) {
	t.Run("scoped global after a queued full list is not undone", func(t *testing.T) {
		h, slow, done := slowHarness(t)
		h.rep(sess1, fixture, L(S(false), G(false)))
		require.Equal(t, map[string]bool{pluginURI: false}, h.durable().Global, "Global stored at once")
		h.set(sess1, fixture, KindGlobal, true)
		require.Empty(t, h.durable().Global)
		close(slow.release)
		<-done
		assert.Equal(t, L(S(false)), h.resolve(sess1, fixture).List)
		assert.Empty(t, h.durable().Global)
	})
	t.Run("same-scope writes replace each other", func(t *testing.T) {
		h, slow, done := slowHarness(t)
		h.set(sess1, fixture, KindSession, false)
		h.set(sess1, fixture, KindWorkspace, false)
		h.set(sess1, fixture, KindSession, true)
		h.ov.mu.Lock()
		assert.Equal(t, []Decision{W(false), S(true)}, h.ov.queue[sess1+"\x00"+pluginURI].scoped, "the later session write replaced the earlier")
		h.ov.mu.Unlock()
		close(slow.release)
		<-done
		assert.Equal(t, L(S(true), W(false)), h.resolve(sess1, fixture).List)
		assert.Equal(t, [][]string{{sess1}}, h.gotEvents(), "one event for load and replay")
	})
	t.Run("scoped global without a queue entry only stores", func(t *testing.T) {
		h, slow, done := slowHarness(t)
		h.set(sess1, fixture, KindGlobal, false)
		assert.Empty(t, h.ov.queue)
		close(slow.release)
		<-done
		assert.Equal(t, L(G(false)), h.resolve(sess1, fixture).List)
	})
	t.Run("queued workspace dropped when the session turns workspaceless", func(t *testing.T) {
		h := newHarness(t)
		h.sessions.on(sess1)
		h.set(sess1, fixture, KindSession, false)
		h.set(sess1, fixture, KindWorkspace, false)
		h.sessions.put(sess1, SessionInfo{Known: true, Workspaceless: true})
		h.ov.NotifyWorkingDirectories(sess1)
		assert.Equal(t, Resolution{List: L(S(false))}, h.resolve(sess1, fixture))
		assert.Equal(t, 1, h.logs.count("dropping queued workspace decision"))
		assert.Empty(t, h.ov.queue)
	})
	t.Run("still pending stays queued", func(t *testing.T) {
		h := newHarness(t)
		h.sessions.on(sess1)
		h.set(sess1, fixture, KindSession, false)
		h.sessions.put(sess1, SessionInfo{Known: true, WorktreePending: true})
		h.ov.NotifyWorktreePending(sess1)
		assert.Len(t, h.ov.queue, 1)
		h.sessions.on(sess1, repo)
		h.ov.NotifyWorktreePending(sess1)
		assert.Empty(t, h.ov.queue)
		assert.Equal(t, L(S(false)), h.resolve(sess1, fixture).List)
	})
}

func TestApplyClientGlobalWithoutGlobal(t *testing.T) {
	h := newHarness(t)
	_, err := h.ov.ApplyClientGlobal(sess1, bundled(fixture), L(S(false)))
	assert.ErrorIs(t, err, ErrNoGlobal)
	assert.EqualError(t, err, "client plugin file:///plugins/example: no global entry")
	_, err = h.ov.ApplyClientGlobal(sess1, fixture, L(S(false)))
	assert.NoError(t, err, "not bundled: just resolves")
}
