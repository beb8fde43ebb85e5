package lsp

// SetIndexHook makes the server call hook before it indexes a package
// (nil: no hook).
func SetIndexHook(hook func(path string)) {
	if hook == nil {
		testIndexHook.Store(nil)
		return
	}
	testIndexHook.Store(&hook)
}
