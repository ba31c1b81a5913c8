package reduce

// Session status bitset (docs/ahp.md §2.6). Bits 0–4 are the activity; the
// rest are orthogonal flags that every reducer must keep.
const (
	statusIdle         uint32 = 1
	statusError        uint32 = 2
	statusInProgress   uint32 = 8
	statusInputNeeded  uint32 = 24
	statusIsRead       uint32 = 32
	statusIsArchived   uint32 = 64
	statusActivityMask uint32 = 31
	// inputNeededOnly is the bit InputNeeded adds on top of InProgress.
	inputNeededOnly = statusInputNeeded &^ statusInProgress
)

func reduceSession(s object, name string, a object, v1 bool) object {
	switch name {
	case "ready":
		// Lifecycle only: a provisional session may already be running its
		// first turn, so status is left alone ([F] 147).
		return replaceField(s, "lifecycle", "ready")
	case "creationFailed":
		// 1.x renamed the lifecycle value (verified, ahp.md §9); the action
		// keeps its name.
		lifecycle := "creationFailed"
		if v1 {
			lifecycle = "failed"
		}
		n := replaceField(s, "lifecycle", lifecycle)
		set(n, "creationError", a["error"])
		return n
	case "titleChanged":
		return replaceField(s, "title", a["title"])
	case "activityChanged":
		return replaceField(s, "activity", a["activity"])
	case "changesetsChanged":
		return replaceField(s, "changesets", a["changesets"])
	case "serverToolsChanged":
		return replaceField(s, "serverTools", a["tools"])
	case "defaultChatChanged":
		return replaceField(s, "defaultChat", a["defaultChat"])
	case "metaChanged":
		return replaceField(s, "_meta", a["_meta"])
	case "configChanged":
		return configChanged(s, a)
	case "isReadChanged":
		return withFlag(s, statusIsRead, truthy(a["isRead"]))
	case "isArchivedChanged":
		return withFlag(s, statusIsArchived, truthy(a["isArchived"]))
	case "activeClientSet":
		return activeClientSet(s, a)
	case "activeClientRemoved":
		return activeClientRemoved(s, a)
	case "workingDirectorySet":
		return workingDirectorySet(s, a)
	case "workingDirectoryRemoved":
		return workingDirectoryRemoved(s, a)
	case "workingDirectoryReplaced":
		return workingDirectoryReplaced(s, a)
	case "chatAdded":
		return chatAdded(s, a)
	case "chatRemoved":
		return chatRemoved(s, a)
	case "chatUpdated":
		return chatUpdated(s, a)
	case "inputNeededSet":
		return inputNeededSet(s, a)
	case "inputNeededRemoved":
		return inputNeededRemoved(s, a)
	case "customizationsChanged":
		return replaceField(s, "customizations", a["customizations"])
	case "customizationUpdated":
		return customizationUpdated(s, a)
	case "customizationRemoved":
		return customizationRemoved(s, a)
	case "customizationToggled":
		return customizationToggled(s, a, v1)
	case "mcpServerStateChanged":
		id, ok := str(a, "id")
		if !ok {
			return nil
		}
		state, channel := a["state"], a["channel"]
		return updateMcpServer(s, id, func(m object) {
			set(m, "state", state)
			set(m, "channel", channel)
		})
	case "mcpServerStartRequested", "mcpServerStopRequested":
		id, ok := str(a, "id")
		if !ok {
			return nil
		}
		kind := "starting"
		if name == "mcpServerStopRequested" {
			kind = "stopped"
		}
		return updateMcpServer(s, id, func(m object) {
			m["state"] = object{"kind": kind}
			delete(m, "channel")
		})
	}
	return nil
}

func withFlag(s object, flag uint32, on bool) object {
	st := toUint32(s["status"])
	if on {
		st |= flag
	} else {
		st &^= flag
	}
	return replaceField(s, "status", numberU32(st))
}

// indexBy returns the index of the first object in list whose key k equals v.
func indexBy(list []any, k, v string) int {
	for i, e := range list {
		if s, ok := str(obj(e), k); ok && s == v {
			return i
		}
	}
	return -1
}

// upsert replaces the element of list keyed like e, or appends e.
func upsert(list []any, k, v string, e any) []any {
	if i := indexBy(list, k, v); i >= 0 {
		n := cloneArr(list)
		n[i] = e
		return n
	}
	return append(cloneArr(list), e)
}

// without returns list minus the elements at the given index.
func without(list []any, i int) []any {
	n := make([]any, 0, len(list)-1)
	n = append(n, list[:i]...)
	return append(n, list[i+1:]...)
}

func activeClientSet(s object, a object) object {
	c := obj(a["activeClient"])
	id, ok := str(c, "clientId")
	if !ok {
		return nil
	}
	list, _ := arr(s["activeClients"])
	// The whole entry is replaced: a client that drops a tool or plugin
	// re-sends its full entry without it (docs/ahp.md §4.8).
	return replaceField(s, "activeClients", upsert(list, "clientId", id, c))
}

func activeClientRemoved(s object, a object) object {
	id, ok := str(a, "clientId")
	if !ok {
		return nil
	}
	list, _ := arr(s["activeClients"])
	i := indexBy(list, "clientId", id)
	if i < 0 {
		return nil
	}
	n := make([]any, 0, len(list))
	for _, e := range list {
		if cid, _ := str(obj(e), "clientId"); cid != id {
			n = append(n, e)
		}
	}
	return replaceField(s, "activeClients", n)
}

func workingDirectorySet(s object, a object) object {
	dir, ok := str(a, "directory")
	if !ok {
		return nil
	}
	list, _ := arr(s["workingDirectories"])
	for _, d := range list {
		if d == dir {
			return nil
		}
	}
	return replaceField(s, "workingDirectories", append(cloneArr(list), dir))
}

func workingDirectoryRemoved(s object, a object) object {
	dir, ok := str(a, "directory")
	if !ok {
		return nil
	}
	list, ok := arr(s["workingDirectories"])
	if !ok {
		return nil
	}
	n := make([]any, 0, len(list))
	for _, d := range list {
		if d != dir {
			n = append(n, d)
		}
	}
	if len(n) == len(list) {
		return nil
	}
	return replaceField(s, "workingDirectories", n)
}

// workingDirectoryReplaced is the released-0.8.0 action {directory,
// replacement} (not in the snapshot schema; shape verified in upstream's
// registry). inferred (ahp.md §9): the entry keeps its position, so an immutable primary stays
// first, and a replacement already in the set is not duplicated.
func workingDirectoryReplaced(s object, a object) object {
	dir, ok1 := str(a, "directory")
	repl, ok2 := str(a, "replacement")
	if !ok1 || !ok2 {
		return nil
	}
	list, ok := arr(s["workingDirectories"])
	if !ok {
		return nil
	}
	i := -1
	for j, d := range list {
		if d == dir {
			i = j
			break
		}
	}
	if i < 0 || dir == repl {
		return nil
	}
	n := make([]any, 0, len(list))
	for j, d := range list {
		switch {
		case j == i:
			n = append(n, repl)
		case d == repl:
			// already present elsewhere: keep the replaced position only
		default:
			n = append(n, d)
		}
	}
	return replaceField(s, "workingDirectories", n)
}

func chatAdded(s object, a object) object {
	sum := obj(a["summary"])
	res, ok := str(sum, "resource")
	if !ok {
		return nil
	}
	list, _ := arr(s["chats"])
	return replaceField(s, "chats", upsert(list, "resource", res, sum))
}

func chatRemoved(s object, a object) object {
	res, ok := str(a, "chat")
	if !ok {
		return nil
	}
	list, _ := arr(s["chats"])
	i := indexBy(list, "resource", res)
	if i < 0 {
		return nil
	}
	n := replaceField(s, "chats", without(list, i))
	if dc, _ := str(s, "defaultChat"); dc == res {
		delete(n, "defaultChat")
	}
	return n
}

func chatUpdated(s object, a object) object {
	res, ok := str(a, "chat")
	if !ok {
		return nil
	}
	changes := obj(a["changes"])
	list, _ := arr(s["chats"])
	i := indexBy(list, "resource", res)
	if i < 0 {
		return nil
	}
	c := clone(obj(list[i]))
	for k, v := range changes {
		if k == "resource" {
			continue // identity never changes through a partial update
		}
		set(c, k, v)
	}
	n := cloneArr(list)
	n[i] = c
	return replaceField(s, "chats", n)
}

// blocksUser reports whether an inputNeeded entry waits on a person. Client
// tool executions are work for a client, so since 0.8.0 they leave the
// session InProgress ([F] 261, 262).
func blocksUser(e any) bool {
	k, _ := str(obj(e), "kind")
	return k != "toolClientExecution"
}

func withInputNeededStatus(n object, list []any) {
	st := toUint32(n["status"])
	blocked := false
	for _, e := range list {
		if blocksUser(e) {
			blocked = true
			break
		}
	}
	if blocked {
		st = st&^statusActivityMask | statusInputNeeded
	} else {
		st &^= inputNeededOnly
	}
	n["status"] = numberU32(st)
}

func inputNeededSet(s object, a object) object {
	req := obj(a["request"])
	id, ok := str(req, "id")
	if !ok {
		return nil
	}
	list, _ := arr(s["inputNeeded"])
	nl := upsert(list, "id", id, req)
	n := replaceField(s, "inputNeeded", nl)
	withInputNeededStatus(n, nl)
	return n
}

func inputNeededRemoved(s object, a object) object {
	id, ok := str(a, "id")
	if !ok {
		return nil
	}
	list, _ := arr(s["inputNeeded"])
	i := indexBy(list, "id", id)
	if i < 0 {
		return nil
	}
	nl := without(list, i)
	n := clone(s)
	if len(nl) == 0 {
		delete(n, "inputNeeded")
	} else {
		n["inputNeeded"] = nl
	}
	withInputNeededStatus(n, nl)
	return n
}

func customizationUpdated(s object, a object) object {
	c := obj(a["customization"])
	id, ok := str(c, "id")
	if !ok {
		return nil
	}
	list, _ := arr(s["customizations"])
	return replaceField(s, "customizations", upsert(list, "id", id, c))
}

func customizationRemoved(s object, a object) object {
	id, ok := str(a, "id")
	if !ok {
		return nil
	}
	list, ok := arr(s["customizations"])
	if !ok {
		return nil
	}
	if i := indexBy(list, "id", id); i >= 0 {
		return replaceField(s, "customizations", without(list, i))
	}
	var nl []any
	for i, e := range list {
		c := obj(e)
		if t, _ := str(c, "type"); t == "mcpServer" {
			continue
		}
		children, _ := arr(c["children"])
		j := indexBy(children, "id", id)
		if j < 0 {
			continue
		}
		if nl == nil {
			nl = cloneArr(list)
		}
		nc := clone(c)
		// An emptied container keeps `children: []`: parsed, now empty ([F] 153).
		nc["children"] = without(children, j)
		nl[i] = nc
	}
	if nl == nil {
		return nil
	}
	return replaceField(s, "customizations", nl)
}

// customizationToggled accepts both toggle shapes (docs/ahp.md §4.7, §9):
// the 0.8.0 snapshot's {id, enabled} and the enablement dialect's
// {id, enablement}. With a list, plugins and MCP servers store it and every
// other entry takes the effective value (first entry's `enabled`, default on).
// An entry that already carries a boolean `enabled` also gets the effective
// value so code reading `enabled` sees the same decision.
//
// An `enabled`-only toggle:
//   - 1.x (v1): no-op for every entry. inferred (ahp.md §9): `enablement`
//     is required and the host reducer throws without it, so the host's
//     state does not change and neither may the mirror's.
//   - 0.8: sets `enabled`, except on a plugin or MCP server that carries an
//     `enablement` list and no boolean `enabled` (a released-0.8.0 host):
//     inferred (ahp.md §9) that host throws like 1.x, and writing an
//     `enabled` beside the list would create the second source of truth
//     the lists exist to end.
func customizationToggled(s object, a object, v1 bool) object {
	id, ok := str(a, "id")
	if !ok {
		return nil
	}
	enablement, hasList := arr(a["enablement"])
	enabled, hasBool := a["enabled"].(bool)
	if !hasList && (!hasBool || v1) {
		return nil
	}
	effective := enabled
	if hasList {
		effective = true
		if len(enablement) > 0 {
			if e, ok := obj(enablement[0])["enabled"].(bool); ok {
				effective = e
			}
		}
	}
	apply := func(c object) object {
		t, _ := str(c, "type")
		scoped := t == "plugin" || t == "mcpServer"
		_, hadBool := c["enabled"].(bool)
		if !hasList && scoped && !hadBool {
			if _, hadList := arr(c["enablement"]); hadList {
				return nil
			}
		}
		n := clone(c)
		if hasList && scoped {
			n["enablement"] = enablement
			if hadBool {
				n["enabled"] = effective
			}
			return n
		}
		n["enabled"] = effective
		return n
	}
	list, ok := arr(s["customizations"])
	if !ok {
		return nil
	}
	if i := indexBy(list, "id", id); i >= 0 {
		nc := apply(obj(list[i]))
		if nc == nil {
			return nil
		}
		nl := cloneArr(list)
		nl[i] = nc
		return replaceField(s, "customizations", nl)
	}
	for i, e := range list {
		c := obj(e)
		children, _ := arr(c["children"])
		j := indexBy(children, "id", id)
		if j < 0 {
			continue
		}
		nchild := apply(obj(children[j]))
		if nchild == nil {
			return nil
		}
		nch := cloneArr(children)
		nch[j] = nchild
		nc := clone(c)
		nc["children"] = nch
		nl := cloneArr(list)
		nl[i] = nc
		return replaceField(s, "customizations", nl)
	}
	return nil
}

// updateMcpServer applies f to a copy of the MCP server with that id, at top
// level or as a container child; other customization types never match.
func updateMcpServer(s object, id string, f func(object)) object {
	list, ok := arr(s["customizations"])
	if !ok {
		return nil
	}
	isMcp := func(c object) bool {
		t, _ := str(c, "type")
		cid, _ := str(c, "id")
		return t == "mcpServer" && cid == id
	}
	for i, e := range list {
		c := obj(e)
		if isMcp(c) {
			nc := clone(c)
			f(nc)
			nl := cloneArr(list)
			nl[i] = nc
			return replaceField(s, "customizations", nl)
		}
	}
	for i, e := range list {
		c := obj(e)
		children, _ := arr(c["children"])
		for j, ch := range children {
			if !isMcp(obj(ch)) {
				continue
			}
			nch := clone(obj(ch))
			f(nch)
			nchildren := cloneArr(children)
			nchildren[j] = nch
			nc := clone(c)
			nc["children"] = nchildren
			nl := cloneArr(list)
			nl[i] = nc
			return replaceField(s, "customizations", nl)
		}
	}
	return nil
}
