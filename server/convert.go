package server

import (
	"bytes"
	"encoding/json"
	"sort"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

// Source is the diagnostic source of the rules.
const Source = "ahpls"

func jsonMarshal(v any) (json.RawMessage, error) { return json.Marshal(v) }

func lspRange(r model.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

// diagData is Diagnostic.data: every target's verdict, for hover and for
// clients that render their own explanation.
type diagData struct {
	Verdicts map[model.Target]model.Reaction `json:"verdicts"`
}

// toLSP converts rule findings (byte spans into text) to LSP diagnostics in
// enc. Related locations in other files are ranged against those files'
// current text.
func (s *Server) toLSP(self uri.URI, loc location, text []byte, diags []model.Diagnostic, enc model.Encoding) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(diags))
	if len(diags) == 0 {
		return out
	}
	// Index the lines up to the last one a finding touches: a file's
	// findings are few, and indexing all of a long text for them was a
	// tenth of what a first scan adds to `ahpls check`'s cost (#30).
	end := 0
	for _, d := range diags {
		end = max(end, d.Span.End)
		for _, r := range d.Related {
			end = max(end, r.Span.End)
		}
	}
	idx := model.NewLineIndex(throughLine(text, end))
	// Related locations in other files: each file read and indexed once
	// for all the findings (per finding, many findings pointing into one
	// large file cost findings × its size, #42).
	others := map[uri.URI]*model.LineIndex{self: idx}
	for _, d := range diags {
		out = append(out, s.toLSPOne(self, loc, others, d, enc))
	}
	return out
}

// throughLine is text up to and including the line break that ends the
// line holding offset end (all of text when that line is the last), so
// that positions up to end are the same in it as in text.
func throughLine(text []byte, end int) []byte {
	if end < 0 || end >= len(text) {
		return text
	}
	if nl := bytes.IndexByte(text[end:], '\n'); nl >= 0 {
		return text[:end+nl+1]
	}
	return text
}

func (s *Server) toLSPOne(self uri.URI, loc location, indexes map[uri.URI]*model.LineIndex, d model.Diagnostic, enc model.Encoding) protocol.Diagnostic {
	pd := protocol.Diagnostic{
		Range:    lspRange(indexes[self].Range(d.Span, enc)),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Code:     protocol.String(d.Rule),
		Source:   protocol.NewOptional(Source),
		Message:  protocol.String(d.Message),
	}
	if href, err := uri.Parse(model.RuleHref(d.Rule)); err == nil {
		pd.CodeDescription = protocol.CodeDescription{Href: href}
	}
	if len(d.Tags) > 0 {
		tags := make([]protocol.DiagnosticTag, len(d.Tags))
		for i, t := range d.Tags {
			tags[i] = protocol.DiagnosticTag(t)
		}
		pd.Tags = protocol.NewDiagnosticTags(tags...)
	}
	for _, r := range d.Related {
		ru := relatedURI(self, loc, r.Path)
		ridx, ok := indexes[ru]
		if !ok {
			ridx = model.NewLineIndex(s.textOf(ru))
			indexes[ru] = ridx
		}
		pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: ru, Range: lspRange(ridx.Range(r.Span, enc))},
			Message:  r.Message,
		})
	}
	verdicts := d.Verdicts
	if verdicts == nil {
		verdicts = map[model.Target]model.Reaction{}
	}
	if b, err := json.Marshal(diagData{Verdicts: verdicts}); err == nil {
		pd.Data = b
	}
	return pd
}

// sortedTargets lists a verdict map's targets in documentation order.
func sortedTargets(v map[model.Target]model.Reaction) []model.Target {
	order := map[model.Target]int{}
	for i, t := range model.AllTargets {
		order[t] = i
	}
	ts := make([]model.Target, 0, len(v))
	for t := range v {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		oi, ok1 := order[ts[i]]
		oj, ok2 := order[ts[j]]
		if !ok1 {
			oi = len(order)
		}
		if !ok2 {
			oj = len(order)
		}
		if oi != oj {
			return oi < oj
		}
		return ts[i] < ts[j]
	})
	return ts
}
