// Command ahplshelper is the subprocess the tools tests run: each mode
// exercises one behaviour of the runner (argument passing, output volume,
// exit codes, environment, working directory, process trees).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const helperName = "ahplshelper"

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: ahplshelper mode ...")
		return 2
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	switch args[0] {
	case "args": // print the received arguments as one JSON array
		b, _ := json.Marshal(args[1:])
		w.Write(append(b, '\n'))
	case "spew": // spew N: print N bytes of 'a' lines
		n, _ := strconv.ParseInt(args[1], 10, 64)
		line := []byte(strings.Repeat("a", 99) + "\n")
		chunk := make([]byte, 0, 64<<10)
		for len(chunk)+len(line) <= cap(chunk) {
			chunk = append(chunk, line...)
		}
		for n > 0 {
			k := int(min(n, int64(len(chunk))))
			if _, err := os.Stdout.Write(chunk[:k]); err != nil {
				return 1
			}
			n -= int64(k)
		}
	case "exit": // exit CODE: print to both streams, exit with CODE
		code, _ := strconv.Atoi(args[1])
		fmt.Fprintln(os.Stdout, "to stdout")
		fmt.Fprintln(os.Stderr, "to stderr")
		return code
	case "pwd":
		wd, _ := os.Getwd()
		fmt.Fprintln(w, wd)
	case "env":
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			fmt.Fprintln(w, kv)
		}
	case "touch": // touch NAME: create a file in the working directory
		if err := os.WriteFile(args[1], []byte("x"), 0o644); err != nil {
			return 1
		}
	case "slow": // slow N: N lines, 150ms apart, flushed one by one
		n, _ := strconv.Atoi(args[1])
		for i := range n {
			fmt.Fprintf(os.Stdout, "line %d\n", i)
			time.Sleep(150 * time.Millisecond)
		}
	case "drip": // drip N MS: N lines, MS milliseconds apart
		n, _ := strconv.Atoi(args[1])
		ms, _ := strconv.Atoi(args[2])
		for i := range n {
			fmt.Fprintf(os.Stdout, "drip %d\n", i)
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
	case "tree": // ignores SIGTERM, as does its child; grandchild `sleep 60`
		signal.Ignore(syscall.SIGTERM)
		fmt.Printf("top %d\n", os.Getpid())
		self, _ := os.Executable()
		c := &exec.Cmd{Path: self, Args: []string{helperName, "child"}, Stdout: os.Stdout, Stderr: os.Stderr}
		if err := c.Start(); err != nil {
			return 1
		}
		c.Wait()
		select {}
	case "child":
		signal.Ignore(syscall.SIGTERM)
		g := exec.Command("sleep", "60")
		g.Stdout, g.Stderr = os.Stdout, os.Stderr
		if err := g.Start(); err != nil {
			return 1
		}
		fmt.Printf("child %d\ngrandchild %d\nready\n", os.Getpid(), g.Process.Pid)
		g.Wait()
		select {}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", args[0])
		return 2
	}
	return 0
}
