package server

import (
	"bytes"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// FuzzServerInput feeds arbitrary bytes to a live server after a valid
// initialize and didOpen. Whatever the bytes, the server must not panic
// (a panic in any goroutine fails the fuzz run), must end cleanly when the
// input ends, and must not lose the open document.
func FuzzServerInput(f *testing.F) {
	seeds := []string{
		"",
		"garbage\r\n\r\n",
		"Content-Length: 9999999999\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 4\r\nContent-Length: 2\r\n\r\n[]xx",
		string(frame(`{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/.github/skills/a/SKILL.md"},"position":{"line":99,"character":99}}}`)),
		string(frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/.github/skills/a/SKILL.md","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":99}},"text":"\u0000"}]}}`)),
		string(frame(`{"jsonrpc":"2.0","id":"x","method":"textDocument/completion","params":{"textDocument":{"uri":"file:///w/.github/skills/a/SKILL.md"},"position":{"line":1,"character":3}}}`)),
		string(frame(`{"jsonrpc":"2.0","id":1,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///w/.github/skills/a/SKILL.md"},"range":{"start":{"line":0,"character":0},"end":{"line":5,"character":0}},"context":{"diagnostics":[]}}}`)),
		string(frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"x"}}`)),
		string(frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)) + string(frame(`{"jsonrpc":"2.0","method":"exit"}`)),
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	const docURI = "file:///w/.github/skills/a/SKILL.md"
	prefix := append(frame(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":"file:///w","capabilities":{}}}`),
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"`+docURI+`","languageId":"markdown","version":1,"text":"---\nname: a\n---\n"}}}`)...)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newRawServerOpts(t, Options{NoFSNotify: true})
		r.t = t
		go func() {
			// Drain the server's output so its writes never block.
			for range r.rd.frames {
			}
		}()
		_, _ = r.in.Write(prefix)
		_, _ = r.in.Write(data)
		_ = r.in.Close()
		select {
		case code := <-r.code:
			if code != 0 && code != 1 {
				t.Fatalf("exit code %d", code)
			}
		case <-time.After(waitLimit):
			t.Fatal("server did not stop after its input ended")
		}
		if bytes.Contains(data, []byte("didClose")) {
			return // the input may legitimately close the document
		}
		snap, ok := r.srv.DocumentSnapshot(uri.URI(docURI))
		if !ok {
			t.Fatalf("the open document was lost")
		}
		if snap.Version < 1 {
			t.Fatalf("bad version %d", snap.Version)
		}
	})
}
