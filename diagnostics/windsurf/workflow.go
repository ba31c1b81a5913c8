package windsurf

// Windsurf workflows: the Markdown files in .windsurf/workflows/, each a
// series of steps the user runs by hand as /<file name> in Cascade.
// Windsurf is closed source; the reactions come from its documentation,
// docs.windsurf.com/windsurf/cascade/workflows (read 2026-12-05 through
// stored copies of the English page and its ja, zh, de, es, pt-BR
// translations):
//   - workflows are Markdown files in .windsurf/workflows/ folders, which
//     Windsurf discovers in the workspace, its sub-directories and, in a
//     git repository, the parent folders up to the git root;
//   - a workflow holds a title, a description and a series of steps with
//     instructions for Cascade; it is invoked as /[name-of-workflow] and
//     is manual-only (Cascade never invokes one by itself);
//   - "Workflow files are limited to 12000 characters each."
// The page names no header fields and no reaction to a malformed one, so
// no header is checked; what it does not spell out is Info.

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"
	"github.com/ahpls-dev/ahpls/model"
)

// WorkflowRules are the rules CheckWorkflow reports; Rules() lists them
// from ruleTable (rules.go).
var WorkflowRules = []*core.Rule{workflowTooLong, workflowNested, workflowEmpty}

// workflowDocs is Windsurf's page on workflows.
const workflowDocs = "docs.windsurf.com/windsurf/cascade/workflows (read 2026-12-05)"

// workflowMaxChars is the documented size of one workflow file, counted
// as windsurf/too-long counts a rule file: in characters (runes) of the
// whole file.
const workflowMaxChars = 12000

var workflowTooLong = &core.Rule{
	ID:       "wsflow/too-long",
	Summary:  "The workflow file is over 12,000 characters, the documented limit of one workflow file.",
	Kinds:    "wsflow",
	Severity: "WS LOSE? (Warning): the documentation limits workflow files to 12,000 characters each; it does not say whether Windsurf cuts or refuses a longer one, and either way the text past the limit does not reach Cascade.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "LOSE?", Source: workflowDocs + ": \"Workflow files are limited to 12000 characters each\""},
	},
}

var workflowNested = &core.Rule{
	ID:       "wsflow/nested",
	Summary:  "The workflow sits in a sub-folder of .windsurf/workflows/: the documentation names the Markdown files in .windsurf/workflows/ and says nothing of its sub-folders, nor of the /name such a file would take.",
	Kinds:    "wsflow",
	Severity: "WS ? (Info): the documentation discovers .windsurf/workflows/ folders in the workspace, its sub-directories and up to the git root, and does not say whether a folder below workflows/ is read.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "?", Source: workflowDocs + ": workflows are saved as Markdown files within .windsurf/workflows/ directories, and invoked as /[name-of-workflow]"},
	},
}

var workflowEmpty = &core.Rule{
	ID:       "wsflow/empty",
	Summary:  "The workflow has no steps: nothing but blank lines and HTML comments follows its header.",
	Kinds:    "wsflow",
	Severity: "WS ? (Info): the documentation describes a workflow as a title, a description and a series of steps Cascade follows in order; what it does with one without steps is not documented.",
	Evidence: []core.Evidence{
		{Consumer: "WS", Reaction: "?", Source: workflowDocs + ": a workflow contains a title, a description and a series of steps with specific instructions for Cascade to follow"},
	},
}

// CheckWorkflow checks one Windsurf workflow file.
func CheckWorkflow(f core.File, r *core.Reporter) {
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if n := utf8.RuneCount(f.Text); n > workflowMaxChars {
		r.Verdict(workflowTooLong, first, model.Verdicts{model.TargetWindsurf: model.Lose.Unverified()},
			"This workflow has "+strconv.Itoa(n)+" characters: Windsurf limits workflow files to "+strconv.Itoa(workflowMaxChars)+" characters each, and the text past the limit does not reach Cascade.")
	}
	if sub := workflowSubfolder(f.Path); sub != "" {
		r.Verdict(workflowNested, first, model.Verdicts{model.TargetWindsurf: model.Unknown},
			"This workflow is in "+core.ClipQuote(sub)+", a sub-folder of .windsurf/workflows/: Windsurf's documentation names the Markdown files in .windsurf/workflows/ and does not say whether it reads sub-folders, nor which /name this file would take.")
	}
	h := syntax.ParseMDCHeader(f.Text)
	if h.Present && !h.Closed {
		return // an unclosed header: where the steps start is not known
	}
	if workflowBlank(f.Text[h.Body.Start:h.Body.End]) {
		r.Verdict(workflowEmpty, first, model.Verdicts{model.TargetWindsurf: model.Unknown},
			"This workflow has no steps: Windsurf's documentation describes a workflow as a series of steps Cascade follows when it is invoked.")
	}
}

// workflowSubfolder is the path below the last .windsurf/workflows/ folder
// of the slash-separated path p up to its file name ("" when the file sits
// directly in workflows/).
func workflowSubfolder(p string) string {
	i := strings.LastIndex(p, ".windsurf/workflows/")
	if i < 0 || i > 0 && p[i-1] != '/' {
		return ""
	}
	rest := p[i+len(".windsurf/workflows/"):]
	j := strings.LastIndexByte(rest, '/')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// workflowBlank reports whether body holds nothing but white space and
// HTML comments (an unclosed one runs to the end), which a rendered
// Markdown workflow does not show.
func workflowBlank(body []byte) bool {
	for {
		body = bytes.TrimSpace(body)
		rest, ok := bytes.CutPrefix(body, []byte("<!--"))
		if !ok {
			return len(body) == 0
		}
		_, after, closed := bytes.Cut(rest, []byte("-->"))
		if !closed {
			return true
		}
		body = after
	}
}
