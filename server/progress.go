package server

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// scanWithProgress scans workspace folders and, when the editor supports
// work-done progress, reports the first check of their files with
// $/progress (begin, a percentage as checks finish, end) (#18). It returns
// once the files are queued; the progress report follows the checks from
// a goroutine of its own. Call it released from the read loop.
func (s *Server) scanWithProgress(ctx context.Context, roots []string) {
	s.mu.Lock()
	workDone := s.caps.workDone
	s.mu.Unlock()
	var p *Progress
	if workDone && len(roots) > 0 {
		p = s.StartProgress(ctx, "ahpls", "scanning the workspace")
	}
	total := 0
	for _, r := range roots {
		n := s.scanFolder(r)
		total += n
		s.LogMessage(protocol.MessageTypeInfo, fmt.Sprintf("ahpls: %d customization files in %s", n, r))
	}
	if p == nil {
		return
	}
	pending := s.pendingChecks()
	go s.followChecks(ctx, p, pending, total)
}

// pendingChecks lists the URIs whose check is queued or running.
func (s *Server) pendingChecks() []uri.URI {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []uri.URI
	for u, fs := range s.files {
		if fs.cancel != nil || fs.timer != nil {
			out = append(out, u)
		}
	}
	return out
}

// followChecks reports progress until every URI in pending has no check
// pending (done, superseded and done, or forgotten), the session ends, or
// a bound of ten minutes passes.
func (s *Server) followChecks(ctx context.Context, p *Progress, pending []uri.URI, total int) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(10 * time.Minute)
	last := -1
	for {
		left := 0
		s.mu.Lock()
		for _, u := range pending {
			if fs := s.files[u]; fs != nil && (fs.cancel != nil || fs.timer != nil) {
				left++
			}
		}
		s.mu.Unlock()
		if left == 0 {
			p.End(fmt.Sprintf("checked %d customization files", total))
			return
		}
		if pct := 100 * (len(pending) - left) / len(pending); pct != last {
			last = pct
			p.Report(fmt.Sprintf("checking %d of %d files", len(pending)-left, len(pending)), pct)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			p.End("stopped")
			return
		case <-limit:
			p.End("still checking; giving up on the progress report")
			return
		}
	}
}
