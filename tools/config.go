package tools

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ConfigFile is the workspace config file, relative to the workspace root.
const ConfigFile = ".ahpls/tools.json"

// ConfigSchema is the JSON Schema (draft 2020-12) of ConfigFile and of the
// ahpls.tools setting. Editors can be pointed at it; ahpls validates with it.
//
//go:embed tools.schema.json
var ConfigSchema []byte

// Severities of a Problem (LSP DiagnosticSeverity names).
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "information"
)

// Problem is one finding about a config text, with byte offsets into it
// (End exclusive) so the server can publish it as a diagnostic. Path is the
// JSON pointer of the value concerned ("" for the document).
type Problem struct {
	Start, End int
	Message    string
	Severity   string
	Path       string
}

// ConfigOptions tell ParseConfig where the tools would run and whether they
// may.
type ConfigOptions struct {
	// Root is the workspace root; when set, working directories are checked
	// against the disk (symlinks resolved) as well as lexically.
	Root string
	// Source is recorded on the definitions.
	Source Source
	// Trusted: when false, every command tool gets a warning saying it is not
	// registered (the definitions are still returned; Registry drops them).
	Trusted bool
}

// UntrustedReason is the text shown for command tools of an untrusted
// workspace.
const UntrustedReason = "not registered: the workspace is not trusted, and command tools run only in a trusted workspace"

// ValidateConfig returns the problems of a config text, sorted by offset.
func ValidateConfig(data []byte, opts ConfigOptions) []Problem {
	_, probs := ParseConfig(data, opts)
	return probs
}

// ParseConfig parses a config text (ConfigFile, or the ahpls.tools setting
// encoded as JSON) into definitions and problems. A tool with an error is
// left out; the others are returned, input schemas compiled. Empty text is
// an empty config.
func ParseConfig(data []byte, opts ConfigOptions) ([]*Definition, []Problem) {
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil
	}
	root, p := parseSpans(data)
	if p != nil {
		return nil, []Problem{*p}
	}
	var probs []Problem
	bad := map[string]bool{} // indexes of tools with errors
	add := func(n *jnode, path []string, sev, msg string, keyOnly bool) {
		if sev == SeverityError && len(path) >= 2 && path[0] == "tools" {
			bad[path[1]] = true
		}
		if n == nil {
			n = root.lookup(path)
		}
		s, e := n.start, n.end
		if keyOnly {
			s, e = n.keySpan()
		}
		probs = append(probs, Problem{Start: s, End: e, Message: msg, Severity: sev, Path: pointer(path)})
	}

	// Structure first, against the published schema.
	schema, err := configSchema()
	if err != nil { // only if tools.schema.json itself is broken
		return nil, []Problem{{Start: 0, End: min(1, len(data)), Message: "tools.schema.json: " + err.Error(), Severity: SeverityError}}
	}
	for _, is := range schema.validate(root) {
		switch is.keyword {
		case "additionalProperties":
			for _, m := range is.members {
				add(m, append(is.path[:len(is.path):len(is.path)], m.key), SeverityError, fmt.Sprintf("unknown property %q", m.key), true)
			}
		case "propertyNames":
			m := is.members[0]
			add(m, append(is.path[:len(is.path):len(is.path)], m.key), SeverityError, fmt.Sprintf("invalid name %q: %s", m.key, is.msg), true)
		case "required":
			add(is.node, is.path, SeverityError, is.msg, true)
		default:
			add(is.node, is.path, SeverityError, is.msg, false)
		}
	}

	tools := root.member("tools")
	if tools == nil || tools.kind != '[' {
		sortProblems(probs)
		return nil, probs
	}
	var defs []*Definition
	seen := map[string]*jnode{}
	for i, tn := range tools.kids {
		idx := fmt.Sprint(i)
		path := []string{"tools", idx}
		if tn.kind != '{' {
			continue
		}
		// Duplicate names are reported even on tools with other errors.
		if nn := tn.member("name"); nn != nil {
			if name, ok := nn.str(); ok {
				if first, dup := seen[name]; dup {
					add(nn, append(path, "name"), SeverityError, fmt.Sprintf("duplicate tool name %q (first defined at offset %d)", name, first.start), false)
					bad[idx] = true
				} else {
					seen[name] = nn
				}
			}
		}
		if bad[idx] {
			continue
		}
		var d Definition
		if err := json.Unmarshal(data[tn.start:tn.end], &d); err != nil {
			add(tn, path, SeverityError, "cannot read tool: "+err.Error(), true)
			continue
		}
		d.Source = opts.Source
		ok := true
		if err := d.compileInputSchema(); err != nil {
			add(tn.member("inputSchema"), append(path, "inputSchema"), SeverityError, err.Error(), true)
			ok = false
		}
		if !checkCommand(&d, tn, path, opts, add) {
			ok = false
		}
		if !ok {
			continue
		}
		if !opts.Trusted {
			add(tn.member("command"), append(path, "command"), SeverityWarning, fmt.Sprintf("tool %q is %s", d.Name, UntrustedReason), true)
		}
		defs = append(defs, &d)
	}
	sortProblems(probs)
	return defs, probs
}

type addFunc func(n *jnode, path []string, sev, msg string, keyOnly bool)

// checkCommand checks what the schema cannot: placeholders name declared
// inputs, argv[0] is a literal program that stays in the workspace, and the
// working directory stays in the workspace.
func checkCommand(d *Definition, tn *jnode, path []string, opts ConfigOptions, add addFunc) bool {
	cn := tn.member("command")
	c := d.Command
	if c == nil || cn == nil {
		return false
	}
	cpath := append(path[:len(path):len(path)], "command")
	ok := true
	props := d.properties()
	an := cn.member("argv")
	for i, item := range c.Argv {
		in := an.kids[i]
		for j, elem := range item {
			en := in
			epath := append(cpath[:len(cpath):len(cpath)], "argv", fmt.Sprint(i))
			if in.kind == '[' {
				en = in.kids[j]
				epath = append(epath, fmt.Sprint(j))
			}
			name, isPH := placeholder(elem)
			switch {
			case i == 0 && isPH:
				add(en, epath, SeverityError, "argv[0] must be a literal program name, not a placeholder: the model must not choose the program", false)
				ok = false
			case i == 0:
				if err := checkRelative(elem); err != nil || strings.HasPrefix(elem, "{{") {
					msg := "argv[0] must be a bare command name (looked up in PATH) or a workspace-relative path"
					if err != nil {
						msg += ": " + err.Error()
					}
					add(en, epath, SeverityError, msg, false)
					ok = false
				}
			case isPH && !props[name]:
				add(en, epath, SeverityError, fmt.Sprintf("placeholder {%s} names no property of inputSchema", name), false)
				ok = false
			case !isPH && strings.Contains(elem, "{") && strings.Contains(elem, "}") && literal(elem) == elem:
				add(en, epath, SeverityWarning, "this element is passed literally: a placeholder must be a whole element like \"{name}\" (write \"{{text}}\" for a literal {text})", false)
			}
		}
	}
	if c.Cwd != "" {
		wn := cn.member("cwd")
		wpath := append(cpath[:len(cpath):len(cpath)], "cwd")
		if err := checkRelative(c.Cwd); err != nil {
			add(wn, wpath, SeverityError, "cwd "+err.Error(), false)
			ok = false
		} else if opts.Root != "" {
			if real, err := filepath.EvalSymlinks(opts.Root); err == nil {
				if _, err := resolveInside(real, c.Cwd); err != nil {
					sev := SeverityWarning // may be created later; Run checks again
					if errors.Is(err, ErrOutsideWorkspace) {
						sev = SeverityError
						ok = false
					}
					add(wn, wpath, sev, "cwd: "+err.Error(), false)
				} else if st, err := os.Stat(filepath.Join(real, c.Cwd)); err == nil && !st.IsDir() {
					add(wn, wpath, SeverityError, "cwd is not a directory", false)
					ok = false
				}
			}
		}
	}
	if en := cn.member("env"); en != nil {
		for _, m := range en.kids { // the nodes, not c.Env: no look-up per variable
			if v, _ := m.str(); strings.IndexByte(v, 0) >= 0 {
				add(m, append(cpath[:len(cpath):len(cpath)], "env", m.key), SeverityError, "environment values cannot contain NUL", false)
				ok = false
			}
		}
	}
	return ok
}

func sortProblems(p []Problem) {
	sort.SliceStable(p, func(i, j int) bool {
		if p[i].Start != p[j].Start {
			return p[i].Start < p[j].Start
		}
		return p[i].End < p[j].End
	})
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	if strings.HasSuffix(word, "y") {
		return word[:len(word)-1] + "ies"
	}
	return word + "s"
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
