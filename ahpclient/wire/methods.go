package wire

// AHP method names (docs/ahp.md §1, §6, §8.3). Every method ahpls sends,
// answers, routes or validates is named here and nowhere else: the client,
// the host link, the schema validator and the test host all use these
// constants, so a new method is one line here, not a literal in four
// packages.

// Client→host requests.
const (
	MethodInitialize               = "initialize"
	MethodReconnect                = "reconnect"
	MethodPing                     = "ping"
	MethodListSessions             = "listSessions"
	MethodSubscribe                = "subscribe"
	MethodCreateSession            = "createSession"
	MethodDisposeSession           = "disposeSession"
	MethodCreateChat               = "createChat"
	MethodDisposeChat              = "disposeChat"
	MethodFetchTurns               = "fetchTurns"
	MethodCompletions              = "completions"
	MethodAuthenticate             = "authenticate"
	MethodResolveSessionConfig     = "resolveSessionConfig"
	MethodSessionConfigCompletions = "sessionConfigCompletions"
	MethodCreateTerminal           = "createTerminal"
	MethodDisposeTerminal          = "disposeTerminal"
	MethodInvokeChangesetOperation = "invokeChangesetOperation"
)

// Client→host notifications.
const (
	MethodDispatchAction = "dispatchAction"
	MethodUnsubscribe    = "unsubscribe"
)

// Host→client notifications.
const (
	MethodAction                = "action"
	MethodSessionAdded          = "root/sessionAdded"
	MethodSessionRemoved        = "root/sessionRemoved"
	MethodSessionSummaryChanged = "root/sessionSummaryChanged"
	MethodProgress              = "root/progress"
	MethodAuthRequired          = "auth/required"
)

// The resource family and createResourceWatch go both ways (§6): the host
// reads the client's virtual plugins with them, the client reads host
// resources.
const (
	MethodResourceRead        = "resourceRead"
	MethodResourceWrite       = "resourceWrite"
	MethodResourceList        = "resourceList"
	MethodResourceCopy        = "resourceCopy"
	MethodResourceDelete      = "resourceDelete"
	MethodResourceRequest     = "resourceRequest"
	MethodResourceMove        = "resourceMove"
	MethodResourceResolve     = "resourceResolve"
	MethodResourceMkdir       = "resourceMkdir"
	MethodCreateResourceWatch = "createResourceWatch"
)

// Notification is one notification method and the schema definition of its
// params (file and definition name in the AHP JSON schemas).
type Notification struct {
	Method     string
	SchemaFile string
	SchemaDef  string
}

// HostNotifications are the host→client notifications ahpls knows: the
// table the schema validator checks host frames against. The client
// delivers any other method as an EventNotification too, so adding one here
// (with its params type) is what a new host notification costs the wire
// layer.
var HostNotifications = []Notification{
	{MethodAction, "commands", "ActionEnvelope"},
	{MethodSessionAdded, "notifications", "SessionAddedParams"},
	{MethodSessionRemoved, "notifications", "SessionRemovedParams"},
	{MethodSessionSummaryChanged, "notifications", "SessionSummaryChangedParams"},
	{MethodProgress, "notifications", "ProgressParams"},
	{MethodAuthRequired, "notifications", "AuthRequiredParams"},
}

// ClientNotifications are the client→host notifications.
var ClientNotifications = []Notification{
	{MethodDispatchAction, "commands", "DispatchActionParams"},
	{MethodUnsubscribe, "commands", "UnsubscribeParams"},
}

// ClientRequests are the requests only a client sends; their params are the
// schemas' commands <Method>Params.
var ClientRequests = []string{
	MethodInitialize, MethodReconnect, MethodPing, MethodListSessions,
	MethodSubscribe, MethodCreateSession, MethodDisposeSession,
	MethodCreateChat, MethodDisposeChat, MethodFetchTurns,
	MethodCompletions, MethodAuthenticate, MethodResolveSessionConfig,
	MethodSessionConfigCompletions, MethodCreateTerminal,
	MethodDisposeTerminal, MethodInvokeChangesetOperation,
	MethodCreateResourceWatch,
}

// ResourceMethods are the requests either side may send (§6).
var ResourceMethods = []string{
	MethodResourceRead, MethodResourceWrite, MethodResourceList,
	MethodResourceCopy, MethodResourceDelete, MethodResourceRequest,
	MethodResourceMove, MethodResourceResolve, MethodResourceMkdir,
	MethodCreateResourceWatch,
}
