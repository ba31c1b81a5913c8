package reduce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureDir holds the official reducer fixtures (a copy of shared/ahp/test-cases).
// AHP_FIXTURES overrides it for a checkout elsewhere.
func fixtureDir(t testing.TB, sub string) string {
	t.Helper()
	base := os.Getenv("AHP_FIXTURES")
	if base == "" {
		// A copy of the official data (MIT; see NOTICE.md there), so a
		// fresh clone tests without the spec repository beside it.
		base = filepath.Join("..", "testdata", "ahp-test-cases")
	}
	dir := filepath.Join(base, sub)
	_, err := os.Stat(dir)
	require.NoError(t, err, "official fixtures not found; set AHP_FIXTURES")
	return dir
}

// pinned is the fixtures' clock: 9999 ms after the epoch.
func pinned() time.Time { return time.UnixMilli(9999) }

type fixture struct {
	Description string          `json:"description"`
	Reducer     string          `json:"reducer"`
	Dialect     string          `json:"dialect"` // ours only: reduce.Options.Dialect; "" = Apply
	Initial     json.RawMessage `json:"initial"`
	Actions     json.RawMessage `json:"actions"`
	Expected    json.RawMessage `json:"expected"`
}

func mustDecode(t testing.TB, raw []byte) any {
	t.Helper()
	v, err := Decode(raw)
	require.NoError(t, err)
	return v
}

// stripNulls deletes null-valued object keys recursively (§8.1: a fixture's
// null means "present but undefined"). It returns a new value.
func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				m[k] = stripNulls(e)
			}
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = stripNulls(e)
		}
		return a
	}
	return v
}

// canonical renders a generic value as JSON text for comparison and for
// readable diffs; numbers compare by their float value so 0.0 equals 0.
func canonical(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(normNumbers(v))
	require.NoError(t, err)
	var back any
	require.NoError(t, json.Unmarshal(b, &back))
	out, err := json.MarshalIndent(back, "", " ")
	require.NoError(t, err)
	return string(out)
}

func normNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normNumbers(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = normNumbers(e)
		}
		return a
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}

func loadFixtures(t testing.TB) (names []string, fixtures map[string]fixture) {
	return loadFixtureDir(t, fixtureDir(t, "reducers"))
}

func loadFixtureDir(t testing.TB, dir string) (names []string, fixtures map[string]fixture) {
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fixtures = map[string]fixture{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		var f fixture
		require.NoError(t, json.Unmarshal(raw, &f), e.Name())
		fixtures[e.Name()] = f
		names = append(names, e.Name())
	}
	sort.Strings(names) // numbers repeat across files; order by full name
	return names, fixtures
}

// deepCopy returns an independent copy, used to prove Apply leaves its inputs
// untouched.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

func TestOfficialReducerFixtures(t *testing.T) {
	names, fixtures := loadFixtures(t)
	total, passed := runFixtures(t, names, fixtures)
	t.Logf("%d of %d root/session/chat reducer fixtures pass", passed, total)
	require.Equal(t, 202, total, "the corpus has 7 root + 72 session + 123 chat fixtures")
}

// TestGapFixtures runs our own cases, in the official format, for what §8.1
// lists as uncovered: client ownership, activeClientRemoved, nonces, toggled
// containers' load states, the enablement dialect, unknown keys.
func TestGapFixtures(t *testing.T) {
	names, fixtures := loadFixtureDir(t, filepath.Join("testdata", "gaps"))
	total, passed := runFixtures(t, names, fixtures)
	t.Logf("%d of %d gap fixtures pass", passed, total)
	require.Equal(t, len(names), total)
}

// TestV1Fixtures runs our 1.x reducer cases (testdata/v1, official format
// plus a "dialect" field naming the negotiated version) through ApplyWith.
func TestV1Fixtures(t *testing.T) {
	names, fixtures := loadFixtureDir(t, filepath.Join("testdata", "v1"))
	for _, name := range names {
		require.True(t, wire.IsV1(fixtures[name].Dialect), "%s: dialect %q is not 1.x", name, fixtures[name].Dialect)
	}
	total, passed := runFixtures(t, names, fixtures)
	t.Logf("%d of %d 1.x fixtures pass", passed, total)
	require.Equal(t, len(names), total)
	require.GreaterOrEqual(t, total, 11)
}

// TestV1FixturesNeedTheDialect replays the 1.x fixtures with the 0.8
// reducers (Apply) and pins which ones then fail: exactly those whose
// behaviour differs per dialect. The rest document 1.x shapes the 0.8
// reducers already accept (lists, tolerated actions).
func TestV1FixturesNeedTheDialect(t *testing.T) {
	names, fixtures := loadFixtureDir(t, filepath.Join("testdata", "v1"))
	var differ []string
	for _, name := range names {
		f := fixtures[name]
		state := mustDecode(t, f.Initial).(map[string]any)
		for _, a := range mustDecode(t, f.Actions).([]any) {
			state = Apply(Kind(f.Reducer), state, a.(map[string]any), pinned)
		}
		if canonical(t, stripNulls(state)) != canonical(t, stripNulls(mustDecode(t, f.Expected))) {
			differ = append(differ, name[:3])
		}
	}
	assert.Equal(t, []string{"001", "003", "004", "005", "006", "007", "010"}, differ)
}

// TestFixtureComparisonDiscriminates guards the harness itself: if initial
// already equalled expected for most fixtures, a reducer doing nothing would
// pass them.
func TestFixtureComparisonDiscriminates(t *testing.T) {
	names, fixtures := loadFixtures(t)
	differ := 0
	for _, name := range names {
		f := fixtures[name]
		if k := Kind(f.Reducer); k != Root && k != Session && k != Chat {
			continue
		}
		if canonical(t, stripNulls(mustDecode(t, f.Initial))) != canonical(t, stripNulls(mustDecode(t, f.Expected))) {
			differ++
		}
	}
	t.Logf("%d root/session/chat fixtures change their state", differ)
	assert.Greater(t, differ, 150, "most fixtures change their state")
}

func runFixtures(t *testing.T, names []string, fixtures map[string]fixture) (total, passed int) {
	t.Helper()
	for _, name := range names {
		f := fixtures[name]
		kind := Kind(f.Reducer)
		if kind != Root && kind != Session && kind != Chat {
			continue
		}
		total++
		ok := t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			state, isObj := mustDecode(t, f.Initial).(map[string]any)
			require.True(t, isObj, "initial is an object")
			actions, isArr := mustDecode(t, f.Actions).([]any)
			require.True(t, isArr, "actions is an array")
			for i, a := range actions {
				act, isObj := a.(map[string]any)
				require.True(t, isObj, "action %d is an object", i)
				actBefore := deepCopy(act)
				state = ApplyWith(kind, state, act, Options{Now: pinned, Dialect: f.Dialect})
				// Purity: the previous state and the action are unchanged.
				require.Equal(t, canonical(t, actBefore), canonical(t, act), "action %d mutated", i)
			}
			want := canonical(t, stripNulls(mustDecode(t, f.Expected)))
			got := canonical(t, stripNulls(state))
			assert.Equal(t, want, got, f.Description)
		})
		if ok {
			passed++
		}
	}
	return total, passed
}

// TestReducersDoNotMutateInputs replays every fixture while keeping every
// intermediate state, then checks that none of them changed afterwards.
func TestReducersDoNotMutateInputs(t *testing.T) {
	names, fixtures := loadFixtures(t)
	for _, name := range names {
		f := fixtures[name]
		kind := Kind(f.Reducer)
		if kind != Root && kind != Session && kind != Chat {
			continue
		}
		state := mustDecode(t, f.Initial).(map[string]any)
		actions := mustDecode(t, f.Actions).([]any)
		var history []map[string]any
		var snapshots []string
		for _, a := range actions {
			history = append(history, state)
			snapshots = append(snapshots, canonical(t, state))
			state = Apply(kind, state, a.(map[string]any), pinned)
		}
		for i, h := range history {
			assert.Equal(t, snapshots[i], canonical(t, h), "%s: state before action %d was mutated", name, i)
		}
	}
}

// TestFixtureInitialStatesSurviveDecodeEncode checks §8.1's "initial
// survives decode→encode" for every fixture, including ones this package does
// not reduce: the generic form must keep keys, nulls and exact numbers.
func TestFixtureInitialStatesSurviveDecodeEncode(t *testing.T) {
	names, fixtures := loadFixtures(t)
	for _, name := range names {
		f := fixtures[name]
		v := mustDecode(t, f.Initial)
		out, err := json.Marshal(v)
		require.NoError(t, err, name)
		assert.JSONEq(t, string(f.Initial), string(out), name)
		// Numbers keep their exact spelling, not just their value.
		var want, got any
		require.NoError(t, json.Unmarshal(f.Initial, &want))
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, want, got, name)
	}
	assert.Len(t, names, 249)
}
