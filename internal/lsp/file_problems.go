// This file reports workspace files crd-lsp did not read: a diagnostic at
// the start of each (unless it is open in the editor, where the buffer is
// analysed instead), so that a CRD that cannot be read is not only noticed
// as "no schema for …" somewhere else.

package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// fileProblem is why a workspace file was not read.
type fileProblem struct {
	message  string
	severity protocol.DiagnosticSeverity
}

// problemFor describes a file the scan or a watch event skipped.
func problemFor(path string, err error) fileProblem {
	reason := err.Error()
	sev := protocol.DiagnosticSeverityWarning
	if fe, ok := workspace.IsFileError(err); ok {
		reason = fe.Reason
		sev = protocol.DiagnosticSeverityInformation // on purpose, not an accident
		if fe.TooLarge {
			reason += " (crdLsp.schemas.maxFileSize sets the limit)"
		}
	} else if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
		reason = u.Unwrap().Error() // "permission denied" rather than the path again
	}
	return fileProblem{
		message:  "crd-lsp did not read this file: " + reason + ". CRDs, XRDs and example resources in it are not loaded.",
		severity: sev,
	}
}

// replaceFileProblemsLocked makes set the problems of the workspace (a
// new scan) and returns the paths whose problem appeared, changed or went
// away. s.mu must be held.
func (s *server) replaceFileProblemsLocked(set map[string]fileProblem) []string {
	var changed []string
	for p, old := range s.fileProblems {
		if now, still := set[p]; !still || now != old {
			changed = append(changed, p)
		}
	}
	for p := range set {
		if _, had := s.fileProblems[p]; !had {
			changed = append(changed, p)
		}
	}
	s.fileProblems = set
	return changed
}

// setFileProblemLocked records path's problem (nil: it has none now) and
// reports whether that changed anything. s.mu must be held.
func (s *server) setFileProblemLocked(path string, pr *fileProblem) bool {
	old, had := s.fileProblems[path]
	if pr == nil {
		delete(s.fileProblems, path)
		return had
	}
	if s.fileProblems == nil {
		s.fileProblems = map[string]fileProblem{}
	}
	s.fileProblems[path] = *pr
	return !had || old != *pr
}

// publishFileProblems publishes the current state of each path that is
// not open: its problem, or nothing.
func (s *server) publishFileProblems(paths []string) {
	for _, p := range paths {
		u := pathURI(p)
		s.mu.Lock()
		_, _, open := openAt(s.open, p)
		pr, has := s.fileProblems[p]
		s.mu.Unlock()
		if open {
			continue // the buffer's own diagnostics stand
		}
		s.diag.publishMu.Lock()
		s.sendFileProblem(u, pr, has)
		s.diag.publishMu.Unlock()
	}
}

// sendFileProblem publishes pr for u (nothing when !has). The caller holds
// diag.publishMu.
func (s *server) sendFileProblem(u uri.URI, pr fileProblem, has bool) {
	params := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}}
	if has {
		params.Diagnostics = append(params.Diagnostics, protocol.Diagnostic{
			Severity: pr.severity,
			Source:   protocol.NewOptional("crd-lsp"),
			Code:     protocol.String("file-not-read"),
			Message:  protocol.String(diagnosticText(pr.message)),
		})
	}
	if err := s.client.PublishDiagnostics(s.ctx, params); err != nil && s.ctx.Err() == nil {
		s.log.Warn("publishDiagnostics failed", "error", err)
	}
}

// fileProblemOf returns path's problem, if any.
func (s *server) fileProblemOf(u uri.URI) (fileProblem, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr, ok := s.fileProblems[filePath(u)]
	return pr, ok
}
