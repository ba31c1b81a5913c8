package ahpclient

// The connection's client→host requests (Call, listSessions paging,
// resourceRead).

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

func (c *connection) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.opts.RequestTimeout)
}

// Call sends any client→host request (params must carry its channel) and
// returns the raw result. Host errors come back as *RPCError.
func (c *connection) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	return conn.Call(ctx, method, params, nil)
}

// ListSessions fetches every page of listSessions.
func (c *connection) ListSessions(ctx context.Context) ([]wire.SessionSummary, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	return c.listSessionsOn(ctx, conn)
}

func (c *connection) listSessionsOn(ctx context.Context, conn *rpcConn) ([]wire.SessionSummary, error) {
	var out []wire.SessionSummary
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
			if sum, ok := decodeSummary(it); ok {
				out = append(out, sum)
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
// fetched (sessionList.refresh), then re-decides the joins.
func (c *connection) refreshSessions(conn *rpcConn) error {
	c.sessions.beginRefresh()
	items, err := c.listSessionsOn(conn.ctx, conn)
	if !c.sessions.endRefresh(items, err) {
		return err
	}
	c.j.evaluate()
	return nil
}

// ResourceRead reads a host resource (e.g. a referenced tool input, §5.4).
func (c *connection) ResourceRead(ctx context.Context, uri, encoding string) (data []byte, contentType string, err error) {
	return c.ResourceReadLimited(ctx, uri, encoding, 0)
}

// ResourceReadLimited is ResourceRead of at most max bytes of content (0:
// no limit but the frame's). A longer content fails with *TooLargeError,
// and is not buffered whole when the answer's frame is more than twice max
// (JSON escapes, base64) plus 64 KiB: it is read past on the wire.
func (c *connection) ResourceReadLimited(ctx context.Context, uri, encoding string, max int) (data []byte, contentType string, err error) {
	params := map[string]any{"channel": RootURI, "uri": uri}
	if encoding != "" {
		params["encoding"] = encoding
	}
	conn, err := c.current()
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	var res json.RawMessage
	if max > 0 {
		res, err = conn.CallLimited(ctx, wire.MethodResourceRead, params, 2*int64(max)+64<<10)
	} else {
		res, err = conn.Call(ctx, wire.MethodResourceRead, params, nil)
	}
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
		data, err = decodeBase64(r.Data)
		if err != nil {
			return nil, "", err
		}
	} else {
		data = []byte(r.Data)
	}
	if max > 0 && len(data) > max {
		return nil, "", &TooLargeError{Method: wire.MethodResourceRead, Limit: int64(max), Size: int64(len(data))}
	}
	return data, r.ContentType, nil
}
