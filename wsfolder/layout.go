package wsfolder

import (
	"path"
	"slices"
	"sort"
	"sync"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Layout is model.Layout (and model.ClaudeListing) from the manifests
// read through an FS (open buffers included when it has an Overlay),
// memoised per folder and safe for concurrent use: one per check, or one
// per walk shared by its walkers.
type Layout struct {
	fs FS
	// formats: folder → its plugin format.
	formats memo[model.PluginFormat]
	// listed: plugin root → whether a Claude marketplace lists it.
	listed memo[bool]
	// markets: folder → its Claude marketplace parsed (nil: none there).
	markets memo[model.MarketplaceListing]
	// files: path → whether a regular file is there (HasFile).
	files memo[bool]
	mu    sync.Mutex
	bad   []Refusal // guarded by mu
}

// NewLayout is a Layout reading through fsys.
func NewLayout(fsys FS) *Layout { return &Layout{fs: fsys} }

// DirLayout is a Layout over folder dir on disk, without a walk or buffers.
func DirLayout(dir string) *Layout { return NewLayout(DirFS(dir)) }

// Refusal is a manifest the layout could not read for a reason worth a
// finding (not a plain absence): a FIFO named plugin.json.
type Refusal struct{ Rel, Why string }

// PluginRoot is asked for every folder above every file, from every
// walker: a memo hit takes a read lock only. Two walkers may detect the
// same folder at once; both get the same answer, and Refused drops the
// double.
func (l *Layout) PluginRoot(dir string) model.PluginFormat {
	if f, ok := l.formats.load(dir); ok {
		return f
	}
	f := diagnostics.DetectPluginFormat(func(rel string) ([]byte, bool) {
		b, err := l.fs.ReadFile(rel)
		if err != nil && wsfs.ReasonOf(err) != wsfs.NotExist {
			l.mu.Lock()
			l.bad = append(l.bad, Refusal{rel, Unreadable(err)})
			l.mu.Unlock()
		}
		return b, err == nil
	}, dir)
	return l.formats.store(dir, f)
}

// ClaudeListed implements model.ClaudeListing (implied targets), memoised
// like PluginRoot; each marketplace is parsed once per layout.
func (l *Layout) ClaudeListed(dir string) bool {
	if v, ok := l.listed.load(dir); ok {
		return v
	}
	got := model.ClaudeListedBy(func(m string) (model.MarketplaceListing, bool) {
		if v, ok := l.markets.load(m); ok {
			return v, v != nil
		}
		var v model.MarketplaceListing
		if b, err := l.fs.ReadFile(path.Join(m, ".claude-plugin/marketplace.json")); err == nil {
			v = model.ParseMarketplaceListing(b, m)
		}
		v = l.markets.store(m, v)
		return v, v != nil
	}, dir)
	return l.listed.store(dir, got)
}

// HasFile implements model.Files: whether a regular file (or an open
// buffer) is at rel. Memoised like PluginRoot: the package manifests it
// is asked for are asked of every folder above every skill.
func (l *Layout) HasFile(rel string) bool {
	if v, ok := l.files.load(rel); ok {
		return v
	}
	fi, err := l.fs.Stat(rel)
	return l.files.store(rel, err == nil && !fi.IsDir())
}

// Refused are the manifests PluginRoot could not read, in path order.
func (l *Layout) Refused() []Refusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Refusal(nil), l.bad...)
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return slices.Compact(out)
}

// memo is a map safe for concurrent use: a plain map under a read-write
// lock, since a sync.Map costs several times the memory per entry and a
// big check memoises every folder of the tree.
type memo[V any] struct {
	mu sync.RWMutex
	m  map[string]V
}

func (m *memo[V]) load(k string) (V, bool) {
	m.mu.RLock()
	v, ok := m.m[k]
	m.mu.RUnlock()
	return v, ok
}

// store keeps the first value stored for k and returns it.
func (m *memo[V]) store(k string, v V) V {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.m[k]; ok {
		return old
	}
	if m.m == nil {
		m.m = map[string]V{}
	}
	m.m[k] = v
	return v
}
