package diagnostics

import (
	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// FrontmatterEntry is one key of a Markdown customization's YAML header with
// the spans the editor features of package server need (document symbols,
// folding, rename, links). Children are the entries of a mapping value.
type FrontmatterEntry struct {
	Key       string
	KeySpan   model.Span
	ValueSpan model.Span
	// Value is a scalar's decoded text ("" for collections and null).
	Value    string
	Scalar   bool
	Children []FrontmatterEntry
}

// maxOutlineEntries bounds what one header can make the server hold.
const maxOutlineEntries = 2000

// FrontmatterEntries parses the header of text (strictly, or with Claude
// Code's retry when strict parsing fails) and returns its keys in source
// order. ok is false when there is no header or it does not parse.
func FrontmatterEntries(text []byte) (entries []FrontmatterEntry, ok bool) {
	fm := SplitFrontmatter(text)
	if !fm.Present {
		return nil, false
	}
	body := text[fm.Body.Start:fm.Body.End]
	base := fm.Body.Start
	doc, err := parseYAML(body, func(o int) int { return base + o })
	if err != nil {
		res, changed := ccRetry(body)
		if !changed {
			return nil, false
		}
		doc, err = parseYAML(res.src, func(o int) int {
			if o >= len(res.orig) {
				o = len(res.orig) - 1
			}
			return base + res.orig[o]
		})
		if err != nil {
			return nil, false
		}
	}
	if doc.root == nil || doc.root.Kind != yaml.MappingNode {
		return nil, doc.root == nil
	}
	budget := maxOutlineEntries
	return outlineMapping(doc, doc.root, &budget, 0), true
}

func outlineMapping(d *ydoc, n *yaml.Node, budget *int, depth int) []FrontmatterEntry {
	var out []FrontmatterEntry
	c := n.Content
	for i := 0; i+1 < len(c) && *budget > 0; i += 2 {
		*budget--
		k, v := c[i], c[i+1]
		e := FrontmatterEntry{Key: k.Value, KeySpan: d.keySpan(k), ValueSpan: d.span(v)}
		if isNull(v) {
			e.ValueSpan = model.Span{Start: e.KeySpan.End, End: e.KeySpan.End}
		}
		if v.Kind == yaml.ScalarNode {
			e.Scalar = true
			if !isNull(v) {
				e.Value = v.Value
			}
		}
		if v.Kind == yaml.MappingNode && depth < 8 {
			e.Children = outlineMapping(d, v, budget, depth+1)
		}
		out = append(out, e)
	}
	return out
}
