package ahpclient

// The requests part of Client: client→host calls on the current
// connection (Call, listSessions paging, resourceRead).

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

func (c *Client) current() (*rpcConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.conn == nil {
		return nil, ErrNotConnected
	}
	return c.conn, nil
}

func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.opts.RequestTimeout)
}

// Call sends any client→host request (params must carry its channel) and
// returns the raw result. Host errors come back as *RPCError.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	return conn.Call(ctx, method, params, nil)
}

// ListSessions fetches every page of listSessions.
func (c *Client) ListSessions(ctx context.Context) ([]map[string]any, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	return c.listSessionsOn(ctx, conn)
}

func (c *Client) listSessionsOn(ctx context.Context, conn *rpcConn) ([]map[string]any, error) {
	var out []map[string]any
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		params := map[string]any{"channel": RootURI, "limit": 100}
		if cursor != "" {
			params["cursor"] = cursor
		}
		cctx, cancel := c.withTimeout(ctx)
		res, err := conn.Call(cctx, wire.MethodListSessions, params, nil)
		cancel()
		if err != nil {
			return nil, err
		}
		var r struct {
			Items      []json.RawMessage `json:"items"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return nil, fmt.Errorf("ahpclient: listSessions result: %w", err)
		}
		for _, it := range r.Items {
			if m, ok := decodeObject(it); ok {
				out = append(out, m)
			}
		}
		if r.NextCursor == "" {
			return out, nil
		}
		if seen[r.NextCursor] || page > 10000 {
			return out, fmt.Errorf("ahpclient: listSessions cursor %q repeats", r.NextCursor)
		}
		seen[r.NextCursor] = true
		cursor = r.NextCursor
	}
}

// refreshSessions replaces the session list with listSessions' answer,
// except for sessions a root notification touched while the pages were being
// fetched: those notifications are newer than the page that listed them.
func (c *Client) refreshSessions(conn *rpcConn) error {
	c.mu.Lock()
	c.touched = map[string]bool{}
	c.mu.Unlock()
	items, err := c.listSessionsOn(conn.ctx, conn)
	c.mu.Lock()
	touched := c.touched
	c.touched = nil
	if err != nil {
		c.mu.Unlock()
		return err
	}
	fresh := map[string]map[string]any{}
	for _, it := range items {
		if uri, ok := it["resource"].(string); ok {
			fresh[uri] = it
		}
	}
	for uri := range touched {
		if sum, ok := c.summaries[uri]; ok {
			fresh[uri] = sum
		} else {
			delete(fresh, uri)
		}
	}
	c.summaries = fresh
	c.evaluateJoinsLocked()
	c.unlock()
	return nil
}

// ResourceRead reads a host resource (e.g. a referenced tool input, §5.4).
func (c *Client) ResourceRead(ctx context.Context, uri, encoding string) (data []byte, contentType string, err error) {
	params := map[string]any{"channel": RootURI, "uri": uri}
	if encoding != "" {
		params["encoding"] = encoding
	}
	res, err := c.Call(ctx, wire.MethodResourceRead, params)
	if err != nil {
		return nil, "", err
	}
	var r struct {
		Data        string `json:"data"`
		Encoding    string `json:"encoding"`
		ContentType string `json:"contentType"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, "", err
	}
	if r.Encoding == "base64" {
		b, err := decodeBase64(r.Data)
		return b, r.ContentType, err
	}
	return []byte(r.Data), r.ContentType, nil
}
