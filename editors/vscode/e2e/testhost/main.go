// Command testhost runs the in-repo AHP test host (package ahptest) on a
// random loopback port with one session whose working directory is the given
// workspace, for the real VS Code test (editors/vscode/e2e/test.mjs): the
// extension connects ahpls to it, so the Customizations view has rows to show
// and toggle. It prints the host's URL as its first stdout line and runs
// until stdin closes or it is signalled. Not part of the shipped binary.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testhost <workspace folder>")
		os.Exit(2)
	}
	ws, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhost:", err)
		os.Exit(1)
	}
	h := ahptest.New(ahptest.Options{
		ProtocolVersions: []string{"1.0.0", "0.9.0", "0.8.0"},
		Logger:           slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnViolation:      func(err error) { fmt.Fprintln(os.Stderr, "testhost: protocol violation:", err) },
	})
	url, err := h.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhost:", err)
		os.Exit(1)
	}
	h.CreateSession(ahptest.SessionSpec{Title: "e2e session", WorkingDirectories: []string{virtualplugin.FolderURI(ws)}})
	fmt.Println(url)

	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	_ = h.Close()
}
