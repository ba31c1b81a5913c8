package ahpclient_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
)

// vmRSS is this process's resident set in bytes (0 where /proc is absent).
func vmRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Issue 16, reproduction 1: a host that stops reading its socket and
// pipelines 2,000 resourceRead requests for a 4 MiB file. The client
// holds a bounded number of workers and queued requests (the rest are
// answered busy), a bounded number of encoded bytes for the writer, and
// drops the connection when the host makes no room — then reconnects.
// Peak RSS growth is logged (target < 100 MB); goroutines and queued
// bytes are asserted bounded.
func TestHostileHostPipelinedReadsStayBounded(t *testing.T) {
	size := 4 << 20
	if v, err := strconv.Atoi(os.Getenv("AHPLS_FLOOD_BYTES")); err == nil && v > 0 {
		size = v // a smaller payload to check the old code without risking the machine
	}
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = byte(rand.IntN(256))
	}
	// Encoded once, as the virtual plugin server's cache does.
	encoded, err := json.Marshal(map[string]any{"data": base64.StdEncoding.EncodeToString(payload), "encoding": "base64", "contentType": "application/octet-stream"})
	require.NoError(t, err)
	payload = nil

	h := newHost(t, ahptest.Options{})
	const budget = 16 << 20
	r := startClient(t, h, func(o *ahpclient.Options) {
		o.Trace = nil
		o.WriteTimeout = 2 * time.Second
		o.WriteBudget = budget
	})
	r.client.Handle("resourceRead", func(context.Context, json.RawMessage) (any, error) {
		return json.RawMessage(encoded), nil
	})
	r.waitFor("connected", r.client.Connected)
	id := r.client.ClientID()

	accepted := h.Accepted()
	runtime.GC()
	baseRSS, baseG := vmRSS(), runtime.NumGoroutine()
	// The sampler reads only this process and the client: the host holds
	// its lock while it queues the flood.
	var peakRSS, peakWrite int64
	var peakG, peakQueued atomic.Int64
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peakRSS = max(peakRSS, vmRSS())
			g := int64(runtime.NumGoroutine())
			if g > peakG.Load() {
				peakG.Store(g)
			}
			st := r.client.Budget()
			peakWrite = max(peakWrite, st.WriteBytesPeak)
			if q := int64(st.QueuedRequests); q > peakQueued.Load() {
				peakQueued.Store(q)
			}
			if g-int64(baseG) > 500 {
				r.client.Close() // unbounded: stop before the machine suffers
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	require.NoError(t, h.StopReading(id, true))
	const n = 2000
	require.NoError(t, h.Flood(id, "resourceRead", map[string]any{"uri": "virtual://ahpls/x/p/big.bin"}, n))
	deadline := time.Now().Add(60 * time.Second)
	for h.Accepted() <= accepted && time.Now().Before(deadline) && peakG.Load()-int64(baseG) <= 500 {
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	<-sampled
	_ = h.StopReading(id, false) // the stuck connection may be gone already
	t.Logf("flood of %d reads of %d bytes (%d encoded): peak RSS growth %.1f MB, peak goroutines +%d, peak queued requests %d, peak write bytes %.1f MB",
		n, size, len(encoded), float64(peakRSS-baseRSS)/(1<<20), peakG.Load()-int64(baseG), peakQueued.Load(), float64(peakWrite)/(1<<20))

	assert.Less(t, peakG.Load()-int64(baseG), int64(64), "goroutines bounded by the worker pool, not one per request")
	assert.LessOrEqual(t, peakQueued.Load(), int64(64), "bounded request queue")
	assert.LessOrEqual(t, peakWrite, int64(budget), "bytes held for the writer stay within the budget")
	require.Greater(t, h.Accepted(), accepted, "the stuck connection was dropped and the client reconnected")
	r.waitFor("connected again", r.client.Connected)
	_, err = r.client.Call(context.Background(), "ping", map[string]any{"channel": ahpclient.RootURI})
	require.NoError(t, err, "the new connection works")
}

// Beyond the workers and the queue, a host request is answered busy at
// once, with a schema-valid error; the ones admitted are answered when the
// workers get to them.
func TestRequestsBeyondTheBudgetAreBusy(t *testing.T) {
	h := newHost(t, ahptest.Options{})
	release := make(chan struct{})
	r := startClient(t, h, func(o *ahpclient.Options) {
		o.MaxConcurrentRequests, o.RequestQueue = 1, 1
	})
	r.client.Handle("resourceRead", func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"data": "ok", "encoding": "utf-8"}, nil
	})
	r.waitFor("connected", r.client.Connected)
	id := r.client.ClientID()
	const n = 6
	errs := make(chan error, n)
	for range n {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := h.ResourceRead(ctx, id, "virtual://ahpls/x/p/f.md")
			errs <- err
		}()
	}
	busy := 0
	for range n - 2 {
		err := <-errs
		var re *ahptest.RPCError
		require.ErrorAs(t, err, &re)
		assert.EqualValues(t, ahpclient.CodeBusy, re.Code)
		busy++
	}
	close(release)
	for range 2 {
		require.NoError(t, <-errs, "the admitted requests are answered")
	}
	assert.Equal(t, n-2, busy)
}
