package hostlink

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/virtualplugin"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// Reverse resource* requests (docs/ahp.md §6). The host walks our trees
// with resolve/list/read; everything that would write is refused, since a
// virtual plugin is a projection of workspace files, not a place to store
// anything.

type uriParams struct {
	URI      string `json:"uri"`
	Encoding string `json:"encoding"`
	// Meta may name the plugin version to read (virtualplugin.MetaNonce):
	// AHP has no field for it, and a kept version is read only by nonce.
	Meta map[string]json.RawMessage `json:"_meta"`
}

// nonce is the plugin version the request names; "" for the current one
// (also when the key's value is not a string).
func (p uriParams) nonce() string {
	var n string
	if raw, ok := p.Meta[virtualplugin.MetaNonce]; ok && json.Unmarshal(raw, &n) == nil {
		return n
	}
	return ""
}

// resources answers the host's resource* requests from the served trees.
// It holds no state of its own (the Server has its own lock).
type resources struct {
	served  *virtualplugin.Server
	folders []*folder // fixed by New
}

// register installs the handlers on the client.
func (r resources) register(c *ahpclient.Client) {
	c.Handle(wire.MethodResourceResolve, func(_ context.Context, raw json.RawMessage) (any, error) {
		p, err := decodeURIParams(raw)
		if err != nil {
			return nil, err
		}
		res, err := r.served.ResolveAt(p.URI, p.nonce())
		return res, mapServeError(err)
	})
	c.Handle(wire.MethodResourceList, func(_ context.Context, raw json.RawMessage) (any, error) {
		p, err := decodeURIParams(raw)
		if err != nil {
			return nil, err
		}
		res, err := r.served.ListAt(p.URI, p.nonce())
		return res, mapServeError(err)
	})
	c.Handle(wire.MethodResourceRead, func(_ context.Context, raw json.RawMessage) (any, error) {
		p, err := decodeURIParams(raw)
		if err != nil {
			return nil, err
		}
		if p.Encoding != "" && p.Encoding != "utf-8" && p.Encoding != "base64" {
			return nil, ahpclient.NewError(ahpclient.CodeInvalidParams, "encoding must be utf-8 or base64", nil)
		}
		// Encoded once per content hash and framed as is (issue 16).
		res, err := r.served.ReadJSONAt(p.URI, p.nonce(), p.Encoding)
		if err != nil {
			return nil, mapServeError(err)
		}
		return res, nil
	})
	readOnly := func(context.Context, json.RawMessage) (any, error) {
		return nil, ahpclient.NewError(ahpclient.CodePermissionDenied, virtualplugin.ReadOnly.Message, nil)
	}
	for _, m := range []string{"resourceWrite", "resourceDelete", "resourceMove", "resourceCopy", "resourceMkdir"} {
		c.Handle(m, readOnly)
	}
	c.Handle(wire.MethodCreateResourceWatch, func(context.Context, json.RawMessage) (any, error) {
		// A host-initiated watch cannot work at 0.8.0; new nonces signal
		// changes instead (docs/ahp.md §6).
		return nil, ahpclient.NewError(ahpclient.CodeMethodNotFound, "createResourceWatch is not supported by this client", nil)
	})
	c.Handle(wire.MethodResourceRequest, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			URI   string `json:"uri"`
			Write bool   `json:"write"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || p.URI == "" {
			return nil, ahpclient.NewError(ahpclient.CodeInvalidParams, "resourceRequest needs a uri", nil)
		}
		if p.Write {
			return nil, ahpclient.NewError(ahpclient.CodePermissionDenied, virtualplugin.ReadOnly.Message, nil)
		}
		if r.ownsURI(p.URI) {
			return struct{}{}, nil
		}
		return nil, ahpclient.NewError(ahpclient.CodePermissionDenied, "ahpls grants access only to its own virtual:// plugin trees", nil)
	})
}

// ownsURI reports a URI inside one of the plugins being served.
func (r resources) ownsURI(uri string) bool {
	if _, ok := r.served.Plugin(uri); ok {
		return true
	}
	// The plugin's parent ("virtual://ahpls/<folder>") is ours too.
	for _, f := range r.folders {
		if strings.TrimSuffix(uri, "/") == "virtual://ahpls/"+f.key {
			return true
		}
	}
	return false
}

func decodeURIParams(raw json.RawMessage) (uriParams, error) {
	var p uriParams
	if err := json.Unmarshal(raw, &p); err != nil || p.URI == "" {
		return p, ahpclient.NewError(ahpclient.CodeInvalidParams, "params must carry a uri", nil)
	}
	return p, nil
}

// mapServeError turns a virtualplugin error into the wire error with its
// AHP code; anything else is an internal error.
func mapServeError(err error) error {
	if err == nil {
		return nil
	}
	var ve *virtualplugin.Error
	if errors.As(err, &ve) {
		return ahpclient.NewError(int64(ve.Code), ve.Message, nil)
	}
	return ahpclient.NewError(ahpclient.CodeInternalError, err.Error(), nil)
}
