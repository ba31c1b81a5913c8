package server

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pipeRWC is the server's end of two io.Pipes.
type pipeRWC struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeRWC) Close() error {
	for _, c := range p.closers {
		_ = c.Close()
	}
	return nil
}

// rawServer drives a Server with raw bytes and reads its frames back.
type rawServer struct {
	t    *testing.T
	in   *io.PipeWriter
	rd   *frameReader
	srv  *Server
	code chan int
}

func newRawServerOpts(t testing.TB, opts Options) *rawServer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := New(withSync(opts))
	r := &rawServer{in: inW, srv: srv, code: make(chan int, 1), rd: newFrameReader(outR)}
	if tt, ok := t.(*testing.T); ok {
		r.t = tt
	}
	go func() {
		r.code <- srv.Serve(context.Background(), pipeRWC{Reader: inR, Writer: outW, closers: []io.Closer{inR, outW}})
	}()
	t.Cleanup(func() { _ = inW.Close() })
	return r
}

func newRawServer(t *testing.T) *rawServer { return newRawServerOpts(t, Options{}) }

func (r *rawServer) send(b []byte) {
	_, err := r.in.Write(b)
	require.NoError(r.t, err)
}

// wait returns the server's exit code once Serve has returned.
func (r *rawServer) wait() int {
	select {
	case c := <-r.code:
		return c
	case <-time.After(waitLimit):
		r.t.Fatal("server did not exit")
		return -1
	}
}

// frameReader decodes Content-Length frames in the background so the
// server's writes never block on the test.
type frameReader struct {
	frames chan []byte
}

func newFrameReader(rd io.Reader) *frameReader {
	f := &frameReader{frames: make(chan []byte, 1024)}
	go func() {
		defer close(f.frames)
		br := bufio.NewReader(rd)
		for {
			n := -1
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimRight(line, "\r\n")
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			if n < 0 {
				return
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			f.frames <- body
		}
	}()
	return f
}

func (f *frameReader) next() []byte {
	select {
	case b, ok := <-f.frames:
		if !ok {
			panic("server output ended")
		}
		return b
	case <-time.After(waitLimit):
		panic("no frame from server")
	}
}
