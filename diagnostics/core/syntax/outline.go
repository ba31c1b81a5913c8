package syntax

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
	doc, err := ParseYAML(body, func(o int) int { return base + o })
	if err != nil {
		res, changed := CCRetry(body)
		if !changed {
			return nil, false
		}
		doc, err = ParseYAML(res.Src, func(o int) int {
			if o >= len(res.Orig) {
				o = len(res.Orig) - 1
			}
			return base + res.Orig[o]
		})
		if err != nil {
			return nil, false
		}
	}
	if doc.Root == nil || doc.Root.Kind != yaml.MappingNode {
		return nil, doc.Root == nil
	}
	budget := maxOutlineEntries
	return outlineMapping(doc, doc.Root, &budget, 0), true
}

func outlineMapping(d *YDoc, n *yaml.Node, budget *int, depth int) []FrontmatterEntry {
	var out []FrontmatterEntry
	c := n.Content
	for i := 0; i+1 < len(c) && *budget > 0; i += 2 {
		*budget--
		k, v := c[i], c[i+1]
		e := FrontmatterEntry{Key: k.Value, KeySpan: d.KeySpan(k), ValueSpan: d.Span(v)}
		if IsNull(v) {
			e.ValueSpan = model.Span{Start: e.KeySpan.End, End: e.KeySpan.End}
		}
		if v.Kind == yaml.ScalarNode {
			e.Scalar = true
			if !IsNull(v) {
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
