package reduce

// Tool-call status values (docs/ahp.md §5.2).
const (
	tcStreaming                 = "streaming"
	tcPendingConfirmation       = "pending-confirmation"
	tcRunning                   = "running"
	tcAuthRequired              = "auth-required"
	tcPendingResultConfirmation = "pending-result-confirmation"
	tcCompleted                 = "completed"
	tcCancelled                 = "cancelled"
)

// toolCallFields are the tool-call keys whose presence each status decides.
// A transition rebuilds the call from these; every other key (a newer
// protocol's addition) is carried over unchanged.
var toolCallFields = map[string]bool{
	"status": true, "toolCallId": true, "toolName": true, "displayName": true,
	"intention": true, "contributor": true, "_meta": true,
	"partialInput": true, "invocationMessage": true, "toolInput": true,
	"confirmationTitle": true, "riskAssessment": true, "edits": true,
	"editable": true, "options": true, "confirmed": true, "selectedOption": true,
	"content": true, "success": true, "pastTenseMessage": true,
	"structuredContent": true, "error": true, "reason": true,
	"reasonMessage": true, "userSuggestion": true, "auth": true,
}

func reduceChat(s object, name string, a object, now Clock, v1 bool) object {
	switch name {
	case "turnStarted":
		return turnStarted(s, a, now)
	case "delta":
		return appendToPart(s, a, "markdown")
	case "reasoning":
		return appendToPart(s, a, "reasoning")
	case "responsePart":
		part, ok := a["part"]
		if !ok {
			return nil
		}
		return withActiveTurn(s, a, func(t object) object {
			parts, _ := arr(t["responseParts"])
			t["responseParts"] = append(cloneArr(parts), part)
			return t
		})
	case "usage":
		usage := a["usage"]
		return withActiveTurn(s, a, func(t object) object {
			set(t, "usage", usage)
			return t
		})
	case "turnComplete":
		return endTurn(s, a, "complete", false, nil, now)
	case "turnCancelled":
		return endTurn(s, a, "cancelled", false, nil, now)
	case "error":
		if v1 {
			return chatErrorV1(s, a, now)
		}
		return endTurn(s, a, "error", true, a["error"], now)
	case "turnResume":
		if v1 {
			return turnResume(s, a)
		}
		return nil // introduced in 0.9.0: unknown to the 0.8 reducer
	case "activityChanged":
		return replaceField(s, "activity", a["activity"])
	case "draftChanged":
		return replaceField(s, "draft", a["draft"])
	case "configChanged":
		return configChanged(s, a)
	case "workingDirectorySet":
		return workingDirectorySet(s, a)
	case "workingDirectoryRemoved":
		return workingDirectoryRemoved(s, a)
	case "toolCallStart":
		return toolCallStart(s, a)
	case "toolCallDelta":
		return updateToolCall(s, a, toolCallDelta)
	case "toolCallContentChanged":
		return updateToolCall(s, a, toolCallContentChanged)
	case "toolCallReady":
		return refreshStatus(s, updateToolCall(s, a, toolCallReady))
	case "toolCallConfirmed":
		return refreshStatus(s, updateToolCall(s, a, toolCallConfirmed))
	case "toolCallComplete":
		return refreshStatus(s, updateToolCall(s, a, toolCallComplete))
	case "toolCallResultConfirmed":
		return refreshStatus(s, updateToolCall(s, a, toolCallResultConfirmed))
	case "toolCallAuthRequired":
		return refreshStatus(s, updateToolCall(s, a, toolCallAuthRequired))
	case "toolCallAuthResolved":
		return refreshStatus(s, updateToolCall(s, a, toolCallAuthResolved))
	case "truncated":
		return truncated(s, a, now)
	case "turnsLoaded":
		return turnsLoaded(s, a)
	case "inputRequested":
		return inputRequested(s, a, now)
	case "inputAnswerChanged":
		return inputAnswerChanged(s, a, now)
	case "inputCompleted":
		return inputCompleted(s, a, now)
	case "pendingMessageSet":
		return pendingMessageSet(s, a)
	case "pendingMessageRemoved":
		return pendingMessageRemoved(s, a)
	case "queuedMessagesReordered":
		return queuedMessagesReordered(s, a)
	}
	return nil
}

// ─── status ────────────────────────────────────────────────────────────────

func partKind(p object) string {
	k, _ := str(p, "kind")
	return k
}

// chatActivity derives the activity bits from the live turn.
func chatActivity(s object) uint32 {
	t := obj(s["activeTurn"])
	if t == nil {
		return statusIdle
	}
	parts, _ := arr(t["responseParts"])
	for _, e := range parts {
		p := obj(e)
		switch partKind(p) {
		case "inputRequest":
			if _, answered := val(p, "response"); !answered {
				return statusInputNeeded
			}
		case "toolCall":
			switch st, _ := str(obj(p["toolCall"]), "status"); st {
			case tcPendingConfirmation, tcPendingResultConfirmation, tcAuthRequired:
				return statusInputNeeded
			}
		}
	}
	return statusInProgress
}

func chatStatus(s object, terminalError bool) uint32 {
	act := statusError
	if !terminalError {
		act = chatActivity(s)
	}
	return toUint32(s["status"])&^statusActivityMask | act
}

// refreshStatus recomputes status after a tool-call transition. It runs even
// when the transition was ignored (changed == nil): the reference does the
// same, so a stray completion after chat/error turns Error into Idle.
func refreshStatus(s, changed object) object {
	base := changed
	if base == nil {
		base = s
	}
	st := chatStatus(base, false)
	if _, isNum := base["status"]; isNum && toUint32(base["status"]) == st {
		return changed
	}
	if changed == nil {
		changed = clone(s)
	}
	changed["status"] = numberU32(st)
	return changed
}

// ─── turn lifecycle ────────────────────────────────────────────────────────

// withActiveTurn applies f to a copy of the active turn when its id matches
// the action's turnId.
func withActiveTurn(s, a object, f func(object) object) object {
	t := obj(s["activeTurn"])
	id, ok := str(a, "turnId")
	if t == nil || !ok {
		return nil
	}
	if tid, _ := str(t, "id"); tid != id {
		return nil
	}
	nt := f(clone(t))
	if nt == nil {
		return nil
	}
	n := clone(s)
	n["activeTurn"] = nt
	return n
}

func turnStarted(s, a object, now Clock) object {
	turn := object{"responseParts": []any{}}
	set(turn, "id", a["turnId"])
	set(turn, "startedAt", a["startedAt"])
	set(turn, "message", a["message"])
	n := clone(s)
	n["activeTurn"] = turn
	n["status"] = numberU32(chatStatus(n, false) &^ statusIsRead)
	n["modifiedAt"] = isoNow(now)
	if q, ok := str(a, "queuedMessageId"); ok && q != "" {
		if id, _ := str(obj(n["steeringMessage"]), "id"); id == q && obj(n["steeringMessage"]) != nil {
			delete(n, "steeringMessage")
		}
		if list, ok := arr(n["queuedMessages"]); ok {
			kept := make([]any, 0, len(list))
			for _, m := range list {
				if id, _ := str(obj(m), "id"); id != q {
					kept = append(kept, m)
				}
			}
			if len(kept) > 0 {
				n["queuedMessages"] = kept
			} else {
				delete(n, "queuedMessages")
			}
		}
	}
	return n
}

// appendToPart streams text into the first part with that id when it has the
// expected kind. Tool-call parts are addressed by toolCallId and never match.
func appendToPart(s, a object, kind string) object {
	partID, ok := str(a, "partId")
	if !ok {
		return nil
	}
	content, _ := str(a, "content")
	return withActiveTurn(s, a, func(t object) object {
		parts, _ := arr(t["responseParts"])
		for i, e := range parts {
			p := obj(e)
			var id string
			var has bool
			if partKind(p) == "toolCall" {
				id, has = str(obj(p["toolCall"]), "toolCallId")
			} else {
				id, has = str(p, "id")
			}
			if !has || id != partID {
				continue
			}
			if partKind(p) != kind {
				return nil
			}
			old, _ := str(p, "content")
			np := clone(p)
			np["content"] = old + content
			nparts := cloneArr(parts)
			nparts[i] = np
			t["responseParts"] = nparts
			return t
		}
		return nil
	})
}

// forceCancel ends a call that was still in flight when its turn ended.
func forceCancel(tc object) object {
	st, _ := str(tc, "status")
	n := rebuild(tc, nil)
	n["status"] = tcCancelled
	if st == tcStreaming {
		if m, ok := val(tc, "invocationMessage"); ok {
			n["invocationMessage"] = m
		} else {
			n["invocationMessage"] = ""
		}
	} else {
		set(n, "invocationMessage", tc["invocationMessage"])
		set(n, "toolInput", tc["toolInput"])
	}
	n["reason"] = "skipped"
	return n
}

func endTurn(s, a object, turnState string, terminalError bool, errVal any, now Clock) object {
	t := obj(s["activeTurn"])
	id, ok := str(a, "turnId")
	if t == nil || !ok {
		return nil
	}
	if tid, _ := str(t, "id"); tid != id {
		return nil
	}
	parts, _ := arr(t["responseParts"])
	nparts := make([]any, len(parts), len(parts)+1)
	for i, e := range parts {
		nparts[i] = e
		p := obj(e)
		if partKind(p) != "toolCall" {
			continue
		}
		tc := obj(p["toolCall"])
		switch st, _ := str(tc, "status"); st {
		case tcCompleted, tcCancelled:
			continue
		}
		np := clone(p)
		np["toolCall"] = forceCancel(tc)
		nparts[i] = np
	}
	// 1.x hosts send chat/error with an ErrorResponsePart instead of an
	// ErrorInfo (docs/ahp.md §9, inferred); keep it in the transcript.
	if terminalError && errVal == nil {
		if part := obj(a["part"]); part != nil {
			nparts = append(nparts, part)
		}
	}
	turn := clone(t)
	turn["responseParts"] = nparts
	set(turn, "duration", clampNonNegative(a["duration"]))
	turn["state"] = turnState
	set(turn, "error", errVal)

	turns, _ := arr(s["turns"])
	nturns := make([]any, len(turns), len(turns)+1)
	copy(nturns, turns)
	n := clone(s)
	n["turns"] = append(nturns, turn)
	delete(n, "activeTurn")
	n["modifiedAt"] = isoNow(now)
	n["status"] = numberU32(chatStatus(n, terminalError))
	return n
}

// chatErrorV1 ends the turn for a 1.x chat/error {turnId, duration, part}.
// The part (an ErrorResponsePart, {kind:"error", error, resumable?}) is
// appended to the turn's responseParts. inferred (ahp.md §9): Turn.error is
// gone in 1.x, so no `error` key is written on the turn; a 0.x-shaped
// `error` arriving on a 1.x connection becomes such a part rather than a
// Turn.error (the same normalisation 1.x consumers apply to legacy turns).
func chatErrorV1(s, a object, now Clock) object {
	part := obj(a["part"])
	if part == nil {
		if e, ok := val(a, "error"); ok {
			part = object{"kind": "error", "error": e}
		}
	}
	na := a
	if part != nil {
		na = clone(a)
		na["part"] = part
	}
	return endTurn(s, na, "error", true, nil, now)
}

// turnResume reopens a failed turn (chat/turnResume {turnId}, 1.x only).
// Verified: the action exists from 0.9.0 and a client may send it after a
// chat/error whose part is resumable. inferred (ahp.md §9; the reducer
// itself is not in our sources): the preconditions hosts check before
// accepting it — no active turn; the last completed turn has that id,
// state "error", and ends with a resumable error part — are the reducer's,
// and applying it moves that turn back to activeTurn (consumers read
// activeTurn right after it) without its end-of-turn fields (state,
// duration, error) and without the error part being resumed, so a second
// failure appends one fresh part instead of stacking two. Anything else is
// a no-op.
func turnResume(s, a object) object {
	id, ok := str(a, "turnId")
	if !ok || obj(s["activeTurn"]) != nil {
		return nil
	}
	turns, _ := arr(s["turns"])
	if len(turns) == 0 {
		return nil
	}
	last := obj(turns[len(turns)-1])
	if tid, _ := str(last, "id"); tid != id {
		return nil
	}
	if st, _ := str(last, "state"); st != "error" {
		return nil
	}
	parts, _ := arr(last["responseParts"])
	if len(parts) == 0 {
		return nil
	}
	tail := obj(parts[len(parts)-1])
	if partKind(tail) != "error" || !truthy(tail["resumable"]) {
		return nil
	}
	turn := clone(last)
	delete(turn, "state")
	delete(turn, "duration")
	delete(turn, "error")
	turn["responseParts"] = append([]any{}, parts[:len(parts)-1]...)
	n := clone(s)
	n["turns"] = append([]any{}, turns[:len(turns)-1]...)
	n["activeTurn"] = turn
	n["status"] = numberU32(chatStatus(n, false))
	return n
}

func truncated(s, a object, now Clock) object {
	turns, _ := arr(s["turns"])
	var kept []any
	turnID, hasTurn := str(a, "turnId")
	if !hasTurn {
		kept = []any{}
	} else {
		i := indexBy(turns, "id", turnID)
		if i < 0 {
			return nil
		}
		kept = turns[: i+1 : i+1]
	}
	n := clone(s)
	n["turns"] = kept
	delete(n, "activeTurn")
	n["modifiedAt"] = isoNow(now)
	if !hasTurn {
		delete(n, "turnsNextCursor")
	}
	n["status"] = numberU32(chatStatus(n, false))
	return n
}

func turnsLoaded(s, a object) object {
	older, ok := arr(a["turns"])
	if !ok {
		return nil
	}
	turns, _ := arr(s["turns"])
	seen := make(map[string]bool, len(turns))
	for _, t := range turns {
		if id, ok := str(obj(t), "id"); ok {
			seen[id] = true
		}
	}
	nturns := make([]any, 0, len(older)+len(turns))
	for _, t := range older {
		if id, ok := str(obj(t), "id"); ok && seen[id] {
			continue
		}
		nturns = append(nturns, t)
	}
	nturns = append(nturns, turns...)
	n := replaceField(s, "turns", nturns)
	set(n, "turnsNextCursor", a["turnsNextCursor"])
	return n
}

// ─── tool calls ────────────────────────────────────────────────────────────

// rebuild starts a new tool-call state from tc's identity fields plus every
// key this package does not model; meta, when given, replaces _meta.
func rebuild(tc object, meta any) object {
	n := make(object, 12)
	for k, v := range tc {
		if !toolCallFields[k] {
			n[k] = v
		}
	}
	for _, k := range [...]string{"toolCallId", "toolName", "displayName", "intention", "contributor", "_meta"} {
		set(n, k, tc[k])
	}
	if meta != nil {
		n["_meta"] = meta
	}
	return n
}

// updateToolCall applies f to the call with the action's toolCallId in the
// active turn with the action's turnId. f returns nil for "ignored".
func updateToolCall(s, a object, f func(tc, a object) object) object {
	callID, ok := str(a, "toolCallId")
	if !ok {
		return nil
	}
	return withActiveTurn(s, a, func(t object) object {
		parts, _ := arr(t["responseParts"])
		var nparts []any
		for i, e := range parts {
			p := obj(e)
			if partKind(p) != "toolCall" {
				continue
			}
			tc := obj(p["toolCall"])
			if id, _ := str(tc, "toolCallId"); id != callID || tc == nil {
				continue
			}
			ntc := f(tc, a)
			if ntc == nil {
				continue
			}
			if nparts == nil {
				nparts = cloneArr(parts)
			}
			np := clone(p)
			np["toolCall"] = ntc
			nparts[i] = np
		}
		if nparts == nil {
			return nil
		}
		t["responseParts"] = nparts
		return t
	})
}

func toolCallStart(s, a object) object {
	callID, ok := str(a, "toolCallId")
	if !ok {
		return nil
	}
	return withActiveTurn(s, a, func(t object) object {
		tc := object{"toolCallId": callID, "status": tcStreaming}
		for _, k := range [...]string{"toolName", "displayName", "intention", "contributor", "_meta"} {
			set(tc, k, a[k])
		}
		parts, _ := arr(t["responseParts"])
		t["responseParts"] = append(cloneArr(parts), object{"kind": "toolCall", "toolCall": tc})
		return t
	})
}

func status(tc object) string {
	st, _ := str(tc, "status")
	return st
}

func toolCallDelta(tc, a object) object {
	if status(tc) != tcStreaming {
		return nil
	}
	n := clone(tc)
	if m, ok := val(a, "_meta"); ok {
		n["_meta"] = m
	}
	// Since 0.7.0 content is optional; absent means "no new input text".
	if c, ok := str(a, "content"); ok {
		old, _ := str(tc, "partialInput")
		n["partialInput"] = old + c
	}
	if m, ok := val(a, "invocationMessage"); ok {
		n["invocationMessage"] = m
	}
	return n
}

func toolCallContentChanged(tc, a object) object {
	if status(tc) != tcRunning {
		return nil
	}
	n := clone(tc)
	if m, ok := val(a, "_meta"); ok {
		n["_meta"] = m
	}
	set(n, "content", a["content"])
	return n
}

func contributorKind(v any) string {
	k, _ := str(obj(v), "kind")
	return k
}

// refineContributor applies toolCallReady's contributor: hosts may name the
// MCP server late, but client ownership is fixed at toolCallStart — it can
// be neither taken away nor granted afterwards ([F] 257).
func refineContributor(old, proposed any) any {
	if proposed == nil {
		return old
	}
	if contributorKind(old) == "client" || contributorKind(proposed) == "client" {
		return old
	}
	return proposed
}

func toolCallReady(tc, a object) object {
	st := status(tc)
	if st != tcStreaming && st != tcRunning && st != tcPendingConfirmation {
		return nil
	}
	meta, _ := val(a, "_meta")
	n := rebuild(tc, meta)
	proposed, _ := val(a, "contributor")
	set(n, "contributor", refineContributor(tc["contributor"], proposed))
	if in, ok := val(a, "intention"); ok {
		n["intention"] = in
	}
	set(n, "invocationMessage", a["invocationMessage"])
	input, ok := val(a, "toolInput")
	if !ok && st != tcStreaming {
		input = tc["toolInput"]
	}
	set(n, "toolInput", input)
	if confirmed, ok := val(a, "confirmed"); ok && truthy(confirmed) {
		n["status"] = tcRunning
		n["confirmed"] = confirmed
		return n
	}
	n["status"] = tcPendingConfirmation
	for _, k := range [...]string{"confirmationTitle", "riskAssessment", "edits", "editable", "options"} {
		v, ok := val(a, k)
		if !ok && st == tcPendingConfirmation {
			v = tc[k]
		}
		set(n, k, v)
	}
	return n
}

func selectedOption(tc, a object) any {
	id, ok := str(a, "selectedOptionId")
	if !ok || id == "" {
		return nil
	}
	opts, _ := arr(tc["options"])
	if i := indexBy(opts, "id", id); i >= 0 {
		return opts[i]
	}
	return nil
}

func toolCallConfirmed(tc, a object) object {
	if status(tc) != tcPendingConfirmation {
		return nil
	}
	meta, _ := val(a, "_meta")
	n := rebuild(tc, meta)
	set(n, "invocationMessage", tc["invocationMessage"])
	set(n, "toolInput", tc["toolInput"])
	set(n, "selectedOption", selectedOption(tc, a))
	if truthy(a["approved"]) {
		n["status"] = tcRunning
		// editedToolInput replaces inline input only; a ContentRef is
		// rewritten host-side and stays a reference ([F] 158, 260).
		if edited, ok := val(a, "editedToolInput"); ok && obj(tc["toolInput"]) == nil {
			n["toolInput"] = edited
		}
		set(n, "confirmed", a["confirmed"])
		return n
	}
	n["status"] = tcCancelled
	set(n, "reason", a["reason"])
	set(n, "reasonMessage", a["reasonMessage"])
	set(n, "userSuggestion", a["userSuggestion"])
	return n
}

func toolCallComplete(tc, a object) object {
	st := status(tc)
	if st != tcRunning && st != tcPendingConfirmation && st != tcAuthRequired {
		return nil
	}
	result := obj(a["result"])
	if result == nil {
		return nil
	}
	// From auth-required only a failure is valid: the call never resumed,
	// so nothing could have produced a real result.
	if st == tcAuthRequired && truthy(result["success"]) {
		return nil
	}
	meta, _ := val(a, "_meta")
	n := rebuild(tc, meta)
	set(n, "invocationMessage", tc["invocationMessage"])
	set(n, "toolInput", tc["toolInput"])
	if st == tcPendingConfirmation {
		n["confirmed"] = "not-needed"
	} else {
		set(n, "confirmed", tc["confirmed"])
		set(n, "selectedOption", tc["selectedOption"])
	}
	if st == tcAuthRequired {
		set(n, "content", tc["content"])
	}
	for k, v := range result {
		n[k] = v
	}
	if truthy(a["requiresResultConfirmation"]) && st != tcAuthRequired {
		n["status"] = tcPendingResultConfirmation
	} else {
		n["status"] = tcCompleted
	}
	return n
}

func toolCallResultConfirmed(tc, a object) object {
	if status(tc) != tcPendingResultConfirmation {
		return nil
	}
	meta, _ := val(a, "_meta")
	n := rebuild(tc, meta)
	set(n, "invocationMessage", tc["invocationMessage"])
	set(n, "toolInput", tc["toolInput"])
	set(n, "selectedOption", tc["selectedOption"])
	if truthy(a["approved"]) {
		n["status"] = tcCompleted
		for _, k := range [...]string{"confirmed", "success", "pastTenseMessage", "content", "structuredContent", "error"} {
			set(n, k, tc[k])
		}
		return n
	}
	n["status"] = tcCancelled
	n["reason"] = "result-denied"
	return n
}

func toolCallAuthRequired(tc, a object) object {
	if status(tc) != tcRunning || contributorKind(tc["contributor"]) != "mcp" {
		return nil
	}
	meta, _ := val(a, "_meta")
	n := rebuild(tc, meta)
	n["status"] = tcAuthRequired
	for _, k := range [...]string{"invocationMessage", "toolInput", "confirmed", "selectedOption", "content"} {
		set(n, k, tc[k])
	}
	set(n, "auth", a["auth"])
	return n
}

func toolCallAuthResolved(tc, a object) object {
	if status(tc) != tcAuthRequired {
		return nil
	}
	meta, _ := val(a, "_meta")
	n := rebuild(tc, meta)
	n["status"] = tcRunning
	for _, k := range [...]string{"invocationMessage", "toolInput", "confirmed", "selectedOption", "content"} {
		set(n, k, tc[k])
	}
	return n
}

// ─── input requests ────────────────────────────────────────────────────────

// openInputRequest finds the unanswered inputRequest part for requestID.
func openInputRequest(parts []any, requestID string) int {
	for i, e := range parts {
		p := obj(e)
		if partKind(p) != "inputRequest" {
			continue
		}
		if _, answered := val(p, "response"); answered {
			continue
		}
		if id, _ := str(obj(p["request"]), "id"); id == requestID {
			return i
		}
	}
	return -1
}

func inputRequested(s, a object, now Clock) object {
	req := obj(a["request"])
	id, ok := str(req, "id")
	t := obj(s["activeTurn"])
	if !ok || t == nil {
		return nil
	}
	parts, _ := arr(t["responseParts"])
	nparts := cloneArr(parts)
	if i := openInputRequest(parts, id); i >= 0 {
		r := clone(req)
		if _, has := val(req, "answers"); !has {
			set(r, "answers", obj(obj(parts[i])["request"])["answers"])
		}
		nparts[i] = object{"kind": "inputRequest", "request": r}
	} else {
		nparts = append(nparts, object{"kind": "inputRequest", "request": req})
	}
	nt := clone(t)
	nt["responseParts"] = nparts
	n := clone(s)
	n["activeTurn"] = nt
	n["status"] = numberU32(chatStatus(n, false) &^ statusIsRead)
	n["modifiedAt"] = isoNow(now)
	return n
}

// withOpenRequest applies f to a copy of the open input request part.
func withOpenRequest(s object, requestID string, f func(p object)) object {
	t := obj(s["activeTurn"])
	if t == nil {
		return nil
	}
	parts, _ := arr(t["responseParts"])
	i := openInputRequest(parts, requestID)
	if i < 0 {
		return nil
	}
	p := clone(obj(parts[i]))
	f(p)
	nparts := cloneArr(parts)
	nparts[i] = p
	nt := clone(t)
	nt["responseParts"] = nparts
	n := clone(s)
	n["activeTurn"] = nt
	return n
}

func inputAnswerChanged(s, a object, now Clock) object {
	reqID, ok1 := str(a, "requestId")
	qID, ok2 := str(a, "questionId")
	if !ok1 || !ok2 {
		return nil
	}
	n := withOpenRequest(s, reqID, func(p object) {
		r := clone(obj(p["request"]))
		answers := clone(obj(r["answers"]))
		if ans, ok := val(a, "answer"); ok {
			answers[qID] = ans
		} else {
			delete(answers, qID)
		}
		if len(answers) > 0 {
			r["answers"] = answers
		} else {
			delete(r, "answers")
		}
		p["request"] = r
	})
	if n != nil {
		n["modifiedAt"] = isoNow(now)
	}
	return n
}

func inputCompleted(s, a object, now Clock) object {
	reqID, ok := str(a, "requestId")
	if !ok {
		return nil
	}
	n := withOpenRequest(s, reqID, func(p object) {
		r := clone(obj(p["request"]))
		answers := clone(obj(r["answers"]))
		for k, v := range obj(a["answers"]) {
			answers[k] = v
		}
		if len(answers) > 0 {
			r["answers"] = answers
		} else {
			delete(r, "answers")
		}
		p["request"] = r
		set(p, "response", a["response"])
	})
	if n != nil {
		n["status"] = numberU32(chatStatus(n, false))
		n["modifiedAt"] = isoNow(now)
	}
	return n
}

// ─── pending messages ──────────────────────────────────────────────────────

func pendingMessageSet(s, a object) object {
	id, ok := str(a, "id")
	if !ok {
		return nil
	}
	entry := object{"id": id}
	set(entry, "message", a["message"])
	if k, _ := str(a, "kind"); k == "steering" {
		return replaceField(s, "steeringMessage", entry)
	}
	list, _ := arr(s["queuedMessages"])
	return replaceField(s, "queuedMessages", upsert(list, "id", id, entry))
}

func pendingMessageRemoved(s, a object) object {
	id, ok := str(a, "id")
	if !ok {
		return nil
	}
	if k, _ := str(a, "kind"); k == "steering" {
		sm := obj(s["steeringMessage"])
		if sid, ok := str(sm, "id"); !ok || sid != id {
			return nil
		}
		n := clone(s)
		delete(n, "steeringMessage")
		return n
	}
	list, ok := arr(s["queuedMessages"])
	if !ok {
		return nil
	}
	kept := make([]any, 0, len(list))
	for _, m := range list {
		if mid, _ := str(obj(m), "id"); mid != id {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(list) {
		return nil
	}
	n := clone(s)
	if len(kept) > 0 {
		n["queuedMessages"] = kept
	} else {
		delete(n, "queuedMessages")
	}
	return n
}

func queuedMessagesReordered(s, a object) object {
	list, ok := arr(s["queuedMessages"])
	if !ok {
		return nil
	}
	order, _ := arr(a["order"])
	byID := make(map[string]any, len(list))
	for _, m := range list {
		if id, ok := str(obj(m), "id"); ok {
			byID[id] = m
		}
	}
	placed := make(map[string]bool, len(order))
	out := make([]any, 0, len(list))
	for _, o := range order {
		id, ok := o.(string)
		if !ok || placed[id] {
			continue
		}
		if m, ok := byID[id]; ok {
			placed[id] = true
			out = append(out, m)
		}
	}
	for _, m := range list {
		if id, _ := str(obj(m), "id"); !placed[id] {
			out = append(out, m)
		}
	}
	return replaceField(s, "queuedMessages", out)
}
