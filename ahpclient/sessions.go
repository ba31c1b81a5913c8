package ahpclient

// The host's session list, typed: listSessions' answer kept current by the
// root/session* notifications (docs/ahp.md §2.6).

import (
	"encoding/json"
	"errors"
	"maps"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// sessionList holds the session summaries by URI. Its lock is a leaf.
type sessionList struct {
	mu    sync.Mutex
	byURI map[string]wire.SessionSummary // guarded by mu
	// touched is non-nil while a listSessions refresh is in flight: the
	// sessions a notification changed meanwhile, whose notification is
	// newer than the page that listed them (guarded by mu).
	touched map[string]bool
}

// decodeSummary reads one summary leniently: a summary whose optional
// fields do not decode still counts with its resource and directories.
func decodeSummary(raw json.RawMessage) (wire.SessionSummary, bool) {
	var s wire.SessionSummary
	if json.Unmarshal(raw, &s) != nil {
		var min struct {
			Resource           string   `json:"resource"`
			WorkingDirectories []string `json:"workingDirectories"`
			WorkingDirectory   string   `json:"workingDirectory"`
		}
		if json.Unmarshal(raw, &min) != nil {
			return wire.SessionSummary{}, false
		}
		s = wire.SessionSummary{Resource: min.Resource, WorkingDirectories: min.WorkingDirectories, WorkingDirectory: min.WorkingDirectory}
	}
	return s, s.Resource != ""
}

// apply records one root/session* notification and returns the session it
// concerns.
func (l *sessionList) apply(method string, params json.RawMessage) (string, error) {
	var p struct {
		Summary json.RawMessage            `json:"summary"`
		Session string                     `json:"session"`
		Changes wire.PartialSessionSummary `json:"changes"`
	}
	err := json.Unmarshal(params, &p)
	if err != nil && method == wire.MethodSessionSummaryChanged {
		// Odd changes must not hide which session changed.
		var id struct {
			Session string `json:"session"`
		}
		_ = json.Unmarshal(params, &id)
		p.Session = id.Session
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	uri := p.Session
	switch method {
	case wire.MethodSessionAdded:
		sum, ok := decodeSummary(p.Summary)
		if !ok {
			return "", errors.New("summary without a resource")
		}
		uri = sum.Resource
		l.byURI[uri] = sum
	case wire.MethodSessionRemoved:
		delete(l.byURI, uri)
	case wire.MethodSessionSummaryChanged:
		if old, ok := l.byURI[uri]; ok && err == nil {
			l.byURI[uri] = old.With(p.Changes)
		}
	}
	if l.touched != nil {
		l.touched[uri] = true
	}
	return uri, err
}

// beginRefresh starts noting which sessions notifications touch.
func (l *sessionList) beginRefresh() {
	l.mu.Lock()
	l.touched = map[string]bool{}
	l.mu.Unlock()
}

// endRefresh installs a listSessions answer (err nil), keeping what
// notifications said meanwhile; it reports whether it installed one.
func (l *sessionList) endRefresh(items []wire.SessionSummary, err error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	touched := l.touched
	l.touched = nil
	if err != nil {
		return false
	}
	fresh := make(map[string]wire.SessionSummary, len(items))
	for _, it := range items {
		fresh[it.Resource] = it
	}
	for uri := range touched {
		if sum, ok := l.byURI[uri]; ok {
			fresh[uri] = sum
		} else {
			delete(fresh, uri)
		}
	}
	l.byURI = fresh
	return true
}

// all is a copy of the list.
func (l *sessionList) all() map[string]wire.SessionSummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.byURI)
}

// each calls f for every session (under the list's lock: f must not call
// back into the list).
func (l *sessionList) each(f func(uri string, s wire.SessionSummary)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for uri, s := range l.byURI {
		f(uri, s)
	}
}
