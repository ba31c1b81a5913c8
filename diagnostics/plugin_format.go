package diagnostics

import "github.com/ahpls-dev/ahpls/model"

// DetectPluginFormat is model.DetectPluginFormat, kept here for callers that
// reach plugin detection through the rules package.
func DetectPluginFormat(read func(rel string) ([]byte, bool), dir string) model.PluginFormat {
	return model.DetectPluginFormat(read, dir)
}
