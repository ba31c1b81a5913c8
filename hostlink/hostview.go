package hostlink

// What the host says, read from ahpclient's mirror of the joined sessions:
// the customizations a session lists, the other tools in it, the names the
// link gives sessions and the host in messages.

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// hostView reads the client's mirrored state; it holds no state and takes
// no lock of its own (the client's locks are leaves to the link).
type hostView struct {
	client *ahpclient.Client
	url    string // Config.URL
}

// customizations reads a joined session's customization list.
func (h hostView) customizations(session string) []wire.Customization {
	st, ok := h.client.State(session)
	if !ok {
		return nil
	}
	raw, ok := st["customizations"]
	if !ok {
		return nil
	}
	var out []wire.Customization
	if err := wire.FromGeneric(raw, &out); err != nil {
		return nil
	}
	return out
}

// otherToolNames are the names of every other tool in the joined sessions:
// server tools and other active clients' tools (never our own entry).
func (h hostView) otherToolNames() []string {
	me := h.client.ClientID()
	set := map[string]bool{}
	add := func(v any) {
		list, _ := v.([]any)
		for _, t := range list {
			if m, ok := t.(map[string]any); ok {
				if n, ok := m["name"].(string); ok {
					set[n] = true
				}
			}
		}
	}
	for _, s := range h.client.Joined() {
		st, ok := h.client.State(s)
		if !ok {
			continue
		}
		add(st["serverTools"])
		clients, _ := st["activeClients"].([]any)
		for _, c := range clients {
			if m, ok := c.(map[string]any); ok && m["clientId"] != me {
				add(m["tools"])
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// labels name each session in hints: its quoted title, else its URI.
func (h hostView) labels(sessions []string) map[string]string {
	labels := map[string]string{}
	for _, s := range sessions {
		labels[s] = s
		if st, ok := h.client.State(s); ok {
			if t, ok := st["title"].(string); ok && t != "" {
				labels[s] = strconv.Quote(t)
			}
		}
	}
	return labels
}

// name names the host in messages: its serverInfo.name, else the URL's
// host.
func (h hostView) name() string {
	var r struct {
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if raw := h.client.InitializeResult(); len(raw) > 0 && json.Unmarshal(raw, &r) == nil && r.ServerInfo.Name != "" {
		return r.ServerInfo.Name
	}
	if u, err := url.Parse(h.url); err == nil && u.Host != "" {
		return u.Host
	}
	return "agent host"
}
