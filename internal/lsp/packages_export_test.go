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

// SetLoadHook makes every workspace load call hook before the loaded
// workspace is served (nil: no hook).
func SetLoadHook(hook func()) {
	if hook == nil {
		testLoadHook.Store(nil)
		return
	}
	testLoadHook.Store(&hook)
}

// SetWatchHook makes the watched-file worker call hook with the size of
// each batch before it reads it (nil: no hook).
func SetWatchHook(hook func(batch int)) {
	if hook == nil {
		testWatchHook.Store(nil)
		return
	}
	testWatchHook.Store(&hook)
}

// SetSymbolReadHook makes workspace/symbol call hook with each file it
// reads from disk (nil: no hook).
func SetSymbolReadHook(hook func(path string)) {
	if hook == nil {
		testSymbolReadHook.Store(nil)
		return
	}
	testSymbolReadHook.Store(&hook)
}
