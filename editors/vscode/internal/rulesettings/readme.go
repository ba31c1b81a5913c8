package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
)

// The README's settings tables sit between these markers; the rest of
// the file is left as it is.
const (
	serverTable = "settings:server"
	vscodeTable = "settings:vscode"
	nvimTable   = "settings:nvim"
	// consumersTable is the table of consumers, from model.Consumers.
	consumersTable = "consumers"
)

// rewriteReadme regenerates the three settings tables and the consumer
// table of README.md.
func rewriteReadme(readme []byte) ([]byte, error) {
	var server, vscode, nvim strings.Builder
	row := func(b *strings.Builder, name, def, doc string) {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", name, def, doc)
	}
	head := "| setting | default | meaning |\n|---|---|---|\n"
	server.WriteString(head)
	vscode.WriteString(head)
	for _, s := range settings.Specs() {
		def := "`" + string(s.Schema.Default) + "`"
		if s.Client == "" {
			row(&server, s.Key, def, s.Doc)
		}
		row(&vscode, "ahpls."+s.Key, def, s.Doc)
	}
	nvim.WriteString("| option | default | meaning |\n|---|---|---|\n")
	for _, o := range settings.NvimOptions() {
		row(&nvim, o.Name, o.Default, o.Doc)
	}
	var err error
	for _, t := range []struct{ name, text string }{{serverTable, server.String()}, {vscodeTable, vscode.String()}, {nvimTable, nvim.String()}} {
		if readme, err = replaceBetween(readme, t.name, "package settings", t.text); err != nil {
			return nil, err
		}
	}
	return replaceBetween(readme, consumersTable, "model.Consumers", consumerRows())
}

// consumerRows is one row per consumer: its target id, what it reads and
// how a file reaches it.
func consumerRows() string {
	var b strings.Builder
	b.WriteString("| target | consumer | reads | install |\n|---|---|---|---|\n")
	for _, c := range model.Consumers {
		name := c.Name
		if c.Default {
			name += " (default target)"
		}
		reads := make([]string, len(c.Reads))
		for i, r := range c.Reads {
			reads[i] = strings.NewReplacer("|", "\\|", "<", "&lt;").Replace(r)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Target, name, strings.Join(reads, "; "), c.Install)
	}
	return b.String()
}

// replaceBetween replaces what lies between <!-- name:begin --> and
// <!-- name:end --> lines.
func replaceBetween(doc []byte, name, source, text string) ([]byte, error) {
	begin := []byte("<!-- " + name + ":begin (generated from " + source + "; go generate in editors/vscode/internal/rulesettings) -->\n")
	end := []byte("<!-- " + name + ":end -->\n")
	i := bytes.Index(doc, begin)
	j := bytes.Index(doc, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("README.md has no %q markers", name)
	}
	out := append([]byte(nil), doc[:i+len(begin)]...)
	out = append(out, text...)
	return append(out, doc[j:]...), nil
}
