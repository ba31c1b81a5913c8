package check

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/view"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// ListMain runs `ahpls list [--targets a,b] [--format text|json] [DIR]`:
// what each consumer would load from the workspace folder DIR (default
// "."), under which name, and why not. Exit code 0, or 2 on a usage or I/O
// error.
func ListMain(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("ahpls list", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output format: text or json")
	state := fl.String("state", "", "JSON file with what an editor or host knows: {\"disabled\": {path: scope}, \"host\": {path: load state}}")
	targets := fl.String("targets", "", "comma-separated consumers (default: vscode,vscode-agent-host,claude-code,copilot-cli,agent-skills)")
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: ahpls list [flags] [DIR]\n\n"+
			"Lists, per consumer, what it would load from the workspace folder DIR: each item's\n"+
			"name, source file and status (loads, shadowed, not scanned, fails, disabled).\n\nflags:\n")
		fl.PrintDefaults()
	}
	var dirs []string
	rest := args
	for {
		if err := fl.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		rest = fl.Args()
		for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			dirs = append(dirs, rest[0])
			rest = rest[1:]
		}
		if len(rest) == 0 {
			break
		}
	}
	if len(dirs) > 1 {
		fmt.Fprintf(stderr, "ahpls list: one folder at a time (got %d)\n", len(dirs))
		return 2
	}
	dir := "."
	if len(dirs) == 1 {
		dir = dirs[0]
	}
	var ts []model.Target
	for _, id := range strings.Split(*targets, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !model.KnownTarget(id) {
			fmt.Fprintf(stderr, "ahpls list: unknown target '%s' ignored\n", id)
			continue
		}
		ts = append(ts, model.Target(id))
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "ahpls list: --format %q is not text or json\n", *format)
		return 2
	}
	in, err := Inventory(dir, Config{Warn: func(msg string) { fmt.Fprintf(stderr, "ahpls list: %s\n", msg) }})
	if err != nil {
		fmt.Fprintf(stderr, "ahpls list: %v\n", err)
		return 2
	}
	in.Targets = ts
	if *state != "" {
		b, err := wsfs.ReadFile(*state, 1<<20)
		if err == nil {
			err = json.Unmarshal(b, &in.State)
		}
		if err != nil {
			fmt.Fprintf(stderr, "ahpls list: --state: %v\n", err)
			return 2
		}
	}
	v := view.Build(in)
	if *format == "json" {
		err = WriteViewJSON(stdout, v)
	} else {
		err = WriteViewText(stdout, v)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ahpls list: %v\n", err)
		return 2
	}
	return 0
}

// WriteViewJSON prints the view as indented JSON.
func WriteViewJSON(w io.Writer, v view.View) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteViewText prints one block per consumer, one line per item:
//
//	status       name  ← source  (reason)
func WriteViewText(w io.Writer, v view.View) error {
	bw := bufio.NewWriter(w)
	for i, c := range v.Consumers {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		fmt.Fprintf(bw, "%s (%s)\n", c.Name, c.Target)
		if len(c.Items) == 0 {
			fmt.Fprintln(bw, "  (nothing)")
		}
		writeItems(bw, c.Items, "  ")
		if l := c.Listing; l != nil {
			state := "fits"
			if l.Over {
				state = "over: the least-used skills lose their descriptions"
			}
			fmt.Fprintf(bw, "  skill listing: %d of %d characters (%s)\n", l.Chars, l.Budget, state)
		}
	}
	return bw.Flush()
}

func writeItems(w io.Writer, items []view.Item, indent string) {
	for _, it := range items {
		line := fmt.Sprintf("%s%-11s %-12s %s  ← %s", indent, it.Status, it.Category, it.Name, it.Source)
		switch it.Status {
		case view.Shadowed:
			line += "  (shadowed by " + it.ShadowedBy + ")"
		case view.Fails:
			line += "  (" + it.Rule + ": " + it.Reason + ")"
		case view.NotScanned, view.Disabled:
			line += "  (" + it.Reason + ")"
		case view.Loads:
			if it.Install != "" {
				line += "  (" + it.Install + ")"
			}
		}
		if it.Description != nil && it.Description.Truncated {
			line += fmt.Sprintf("  [description cut at %d of %d characters]", it.Description.Budget, it.Description.Length)
		}
		if it.HostState != "" {
			line += "  [host: " + it.HostState + "]"
		}
		fmt.Fprintln(w, line)
		writeItems(w, it.Components, indent+"    ")
	}
}
