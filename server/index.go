package server

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

// symbolIndex is what workspace/symbol searches: the named customizations
// of every checked file (name, kind, place), kept current by the checks
// themselves (every funnel event and the scan end in indexLocked), so a
// query reads a list instead of parsing every file again (#30: about 1 s
// per query at 50k skills before). Its lock is a leaf: nothing else is
// locked under it.
type symbolIndex struct {
	mu    sync.Mutex
	byURI map[uri.URI][]indexedSymbol
	// flat is every symbol in URI order, what a search reads (no map
	// lookups on the way); nil when a change made it stale.
	flat []flatSymbol
}

type flatSymbol struct {
	u uri.URI
	*indexedSymbol
}

type indexedSymbol struct {
	name, lower string     // lower: strings.ToLower(name), for matching
	file        model.Kind // the kind of the file defining it
	kind        protocol.SymbolKind
	container   string
	rng         protocol.Range
}

// set replaces u's symbols (none removes u).
func (x *symbolIndex) set(u uri.URI, syms []indexedSymbol) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byURI == nil {
		x.byURI = map[uri.URI][]indexedSymbol{}
	}
	if len(syms) == 0 {
		if _, had := x.byURI[u]; had {
			delete(x.byURI, u)
			x.flat = nil
		}
		return
	}
	x.byURI[u] = syms
	x.flat = nil
}

// search returns up to limit symbols whose names hold query's characters
// in order (case-insensitive), files in URI order; stop is polled now and
// then (a cancelled request), and a stopped search returns nil.
func (x *symbolIndex) search(query string, limit int, stop func() bool) protocol.SymbolInformationSlice {
	q := []rune(strings.ToLower(query))
	out := protocol.SymbolInformationSlice{}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.flat == nil {
		us := make([]uri.URI, 0, len(x.byURI))
		n := 0
		for u, syms := range x.byURI {
			us = append(us, u)
			n += len(syms)
		}
		slices.Sort(us)
		x.flat = make([]flatSymbol, 0, n)
		for _, u := range us {
			syms := x.byURI[u]
			for i := range syms {
				x.flat = append(x.flat, flatSymbol{u, &syms[i]})
			}
		}
	}
	for i, f := range x.flat {
		if i%4096 == 0 && stop() {
			return nil
		}
		if !fuzzyLower(q, f.lower) {
			continue
		}
		container := f.container
		out = append(out, protocol.SymbolInformation{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: f.name, Kind: f.kind, ContainerName: &container},
			Location:              protocol.Location{URI: f.u, Range: f.rng},
		})
		if len(out) >= limit {
			return out
		}
	}
	return out
}

// named returns the places defining name in files of one of kinds, in
// URI order.
func (x *symbolIndex) named(name string, kinds []model.Kind) protocol.LocationSlice {
	out := protocol.LocationSlice{}
	x.mu.Lock()
	defer x.mu.Unlock()
	for u, syms := range x.byURI {
		for _, sym := range syms {
			if sym.name == name && slices.Contains(kinds, sym.file) {
				out = append(out, protocol.Location{URI: u, Range: sym.rng})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b protocol.Location) int { return strings.Compare(string(a.URI), string(b.URI)) })
	return out
}

// fuzzyLower reports whether the characters of q (a lowered query) appear
// in lower in order; an empty query matches everything.
func fuzzyLower(q []rune, lower string) bool {
	if len(q) == 0 {
		return true
	}
	i := 0
	for _, r := range lower {
		if r == q[i] {
			i++
			if i == len(q) {
				return true
			}
		}
	}
	return false
}

// indexLocked brings u's entries in the symbol index in line with fs's
// last check (s.mu held).
func (part funnel) indexLocked(u uri.URI, fs *fileState) {
	s := part.s
	s.symbols.set(u, symbolsOf(fs.kind, fs.rel, fs.snap.Text, s.enc))
}

// symbolsOf is what the index holds for one file's text. It reads nothing
// but its arguments, so the scan computes it before taking s.mu.
func symbolsOf(kind model.Kind, rel string, text []byte, enc model.Encoding) []indexedSymbol {
	if kind == model.KindNone || text == nil {
		return nil
	}
	cs := customizations(kind, rel, text)
	if len(cs) == 0 {
		return nil
	}
	// The names sit near the top (frontmatter, manifest keys): index the
	// lines up to the last one only.
	end := 0
	for _, c := range cs {
		end = max(end, c.span.End)
	}
	end = min(end, len(text))
	if nl := bytes.IndexByte(text[end:], '\n'); nl >= 0 {
		text = text[:end+nl+1]
	}
	idx := model.NewLineIndex(text)
	container := kind.Noun() + " · " + rel
	syms := make([]indexedSymbol, 0, len(cs))
	for _, c := range cs {
		syms = append(syms, indexedSymbol{name: c.name, lower: strings.ToLower(c.name), file: kind, kind: c.kind, container: container, rng: lspRange(idx.Range(c.span, enc))})
	}
	return syms
}
